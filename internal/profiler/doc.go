// Package profiler is jsprof's profiling pipeline, the one every command,
// test and benchmark goes through:
//
//	Prepare   decode the module (and a dynamic module's plugin), find the
//	          interpreter (dispatch), instrument it (meter), or read both
//	          from the prepared-engine cache (prepared.go); read the
//	          program's bytecode for naming (bytecode, naming)
//	Configure hook the meter into a runner.Options
//	(the caller runs the guest with internal/runner)
//	Finish    collect the counters, name the functions, build the profile
//	          (stacks) and its tables (report)
//
// It owns the order of those steps and what passes between them, nothing
// else: flags, messages, files and exit codes belong to cmd/jsprof; the
// work of each step to the package named beside it.
package profiler
