// Package testrules owns the project's rules for its own tests, and for
// where its facts are defined, checked by reading their source: its test
// parses every *_test.go file of the repository (go/parser and go/ast, no
// type checking; testdata, node_modules and directories named ".*" or
// "_*" left out), and every other Go file for one-owner, and fails,
// listing file:line, wherever a rule is broken; a negative control,
// testdata/control, proves that each rule bites.
//
// one-owner: each fact has one owner, and no other package defines it as
// a constant (facts.go). Exit codes belong to internal/cli: a constant
// named Exit*, exit* or *Exit* whose value is not a string, or one named
// like a code or status whose value is 124, 128 or 134. Mode and bucket
// names belong to jsframes/jsprofile: a constant named Mode* or mode*
// whose value is a string, one named Bucket* or bucket* whose value is a
// string in parentheses, or either naming another package's Mode* or
// Bucket* constant (an alias is a second definition too).
//
// The other rules: every test is deterministic. No test asserts on
// anything another goroutine, test or process can move.
//
//   - process-state: runtime.ReadMemStats, runtime.NumGoroutine,
//     runtime/metrics.Read, runtime/debug.ReadGCStats,
//     runtime/pprof.Lookup, syscall.Getrusage and unix.Getrusage, and the
//     /proc files of a process's statistics (status, stat, statm, smaps,
//     io, sched, clear_refs, or a VmHWM-like field name) may not be read
//     on a path from a Test function, even to be logged: what they say is
//     the whole process's. Such a measurement is made in a benchmark
//     (.ci/run runs those one at a time, nothing else in the process), or
//     after the guard below, in a process of its own. A parallel subtest
//     is a path's start of its own: the guard of the test around it does
//     not cover it, for its siblings run beside it in that process.
//     Fuzz targets, benchmarks and TestMain start no path (a fuzz
//     target's seeds run after every test has ended, one at a time; each
//     fuzzing worker is a process running one input at a time).
//   - parallel-allocs: testing.AllocsPerRun counts the whole process's
//     allocations: it may not be reached from a parallel test or subtest
//     but through the guard.
//   - wall-time: no duration read from the clock (time.Since, time.Until,
//     a clock reading's Sub, testing.Benchmark, and what is computed from
//     them) may reach a testify assertion, or the condition of an if or a
//     switch case that fails the test, in a function reachable from a
//     Test or Fuzz function, guard or no guard: a process of its own
//     still shares the machine. Logging a duration is allowed; so is a
//     deadline (a clock reading, compared with a later one to stop
//     polling), which is not a measured duration.
//
// The guard is this statement, at the top level of a function's body:
//
//	if testrules.RunIsolated(t) {
//		return
//	}
//
// Every statement after it runs only in a re-execution of the test binary
// in which nothing but t's test runs (RunIsolated); code reached only from
// those statements may read the process's state.
//
// The analysis is syntactic, and errs towards reporting. Calls are
// resolved by name within a directory's test files (a method call to
// every method of that name; the package's test functions seen from its
// external test package too); a function literal is reached from the
// function that defines it. A duration is followed through assignments
// (by variable, or path of fields; an element stands for its whole
// slice, array or map), through the results and into the parameters of
// the package's test functions, and into a function literal's results;
// not through channels, struct literals' fields read back, or other
// packages. Helpers outside *_test.go files are not read.
//
// The package gives tests the guard, RunIsolated, too. It imports no
// package of the project.
package testrules
