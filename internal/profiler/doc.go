// Package profiler is jsprof's profiling pipeline, the one every command,
// test and benchmark goes through:
//
//	Prepare   decode the module (and a dynamic module's plugin), find the
//	          interpreter (dispatch), instrument it (meter), or read both,
//	          with the engine's facts, from the prepared-engine cache
//	          (prepared.go); a static module's program is detached from
//	          what is compiled (detach.go); read the program's bytecode for
//	          naming (bytecode, naming). A run with no interpreter can be
//	          counted instead (countonly.go)
//	Configure hook the session into a runner.Options (Start readies each
//	          instance: the detached program put back, the meter's state)
//	(the caller runs the guest with internal/runner)
//	Finish    collect the counters, name the functions, build the profile
//	          (stacks), name its positions after the program's source map
//	          when the caller found one (sourcemap), and its tables (report)
//
// It also says how a run ended (ExitCode, Ending: the exit codes jsprof
// documents) and serves a running guest's profile (Serve). It owns the
// order of those steps and what passes between them, nothing else: flags,
// messages and files belong to cmd/jsprof; the work of each step to the
// package named beside it.
package profiler
