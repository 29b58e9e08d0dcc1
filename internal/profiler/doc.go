// Package profiler is jsprof's run pipeline, the one every command, test
// and benchmark goes through. Execute runs a Job from start to end:
//
//	read, link  decode the module file; link what it imports (run/link: a
//	            Javy plugin, or a Shopify Functions provider from a file or
//	            a folder); decide whether the run uses function-runner's
//	            I/O (functionIO: a Shopify provider's namespace, or
//	            --input/--codec; a javy_quickjs_provider_vN module
//	            otherwise runs as wasmtime run --preload) and encode a
//	            function's input, read as internal/run/inputfile tells
//	            (a Shopify CLI run log or fixture names its export):
//	            function.go
//	Prepare     decode the module (and a dynamic module's plugin), find
//	            the interpreter (dispatch), instrument it (meter), or read
//	            both, with the engine's facts, from the prepared-engine
//	            cache (enginecache); a static module's program is detached
//	            from what is compiled (detach.go); read the program's
//	            bytecode for naming (bytecode, naming): session.go,
//	            prepare.go. A run with no interpreter can be counted
//	            instead (countonly.go)
//	Configure   hook the session into the runner.Options, composed with
//	            the caller's own hooks (Start readies each instance: the
//	            meter's state, then the detached program put back); the
//	            measurement window is function-runner's, from the main
//	            module's instantiation (BeforeMain) to its export's return
//	            (configure.go)
//	run         internal/run/runner, under the job's limits and timeout; a
//	            signal's cancellation stops the guest at the meter's
//	            checkpoints; a damaged compilation cache is cleared and the
//	            run done again (pipeline.go)
//	Finish      decode a function's output; collect the counters, name the
//	            functions, build the profile (stacks) with the run's facts
//	            (export, memory, a function's provider, codec, sizes and
//	            limits), name its positions after the program's source map
//	            when the caller found one (sourcemap), and its tables
//	            (report): finish.go
//
// The caller hears the job through its Hooks. jsprof compare's two runs
// go through Execute from internal/compare, which builds the JS with two
// plugins (javy.BuildJS) and hands on the tables Finish built.
//
// A run's outputs (Job.Outputs, package output; outputs.go): opened once
// the module is linked, their files checked against every file the job
// reads or linking found (Job.reads), before anything is prepared;
// watched while a profiled guest runs; written from the Outcome once it
// has ended, after its warnings are said (Execute; RunSeveral with the
// table of inputs and each input's profile).
//
// Source maps: Job.ReadProgram (pipeline.go) reads the module and, before the
// run, its program's JS (javy.ModuleProgram) and map (sourcemap.FindMap),
// which Finish names the profile's positions after; a map that cannot be
// used is a warning for the caller to say, never wrong positions. A saved
// profile's map, the HTML report's sources and a build's compile error
// are internal/run/javy's (MapSaved, ReportSources, CompileErrorAt).
//
// Several inputs (pipeline.go, inputs.go): PrepareJob prepares the module once and
// Prepared.RunSeveral runs it on each input in an instance of its own, in
// parallel, with their table's facts (a run log's production count, a
// fixture's output checked: inputFact), their merged profile (each run's
// merged as it ends, jsprofile.Merger) and the exit code of the first
// input that failed;
// Prepared.RunInputs hands each run, with what its guest wrote on stdout,
// to a caller of its own (internal/inputcost's runs without a field
// path), and Prepared.Execute is Execute's one run of a job already
// prepared.
//
// It also says how a run ended (ExitCode, Ending: which of internal/cli's
// exit codes it ends with, and why), keeps the uncaught JS error an
// engine told before it trapped (Outcome.Throw: internal/name/throw) and
// lets a running guest be watched (Session is an output.Live: Window,
// Done). It owns the order of those steps, what passes between them and
// the files a run reads, nothing else: flags, messages and which outputs
// are asked for belong to cmd/jsprof; the exit codes, a message's first
// line and the cause of a signal's cancellation to internal/cli; what
// each output writes to internal/output; how a file is written to
// internal/outfile; the work of each step to the package named beside it.
package profiler
