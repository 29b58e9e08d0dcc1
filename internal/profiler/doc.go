// Package profiler is jsprof's run pipeline, the one every command, test
// and benchmark goes through. Execute runs a Job from start to end:
//
//	read, link  decode the module file; link what it imports (link.go: a
//	            Javy plugin, or a Shopify Functions provider from a file or
//	            a folder); decide whether the run uses function-runner's
//	            I/O (functionIO: a Shopify provider's namespace, or
//	            --input/--codec; a javy_quickjs_provider_vN module
//	            otherwise runs as wasmtime run --preload) and encode a
//	            function's input (function.go)
//	Prepare     decode the module (and a dynamic module's plugin), find the
//	            interpreter (dispatch), instrument it (meter), or read both,
//	            with the engine's facts, from the prepared-engine cache
//	            (prepared.go); a static module's program is detached from
//	            what is compiled (detach.go); read the program's bytecode
//	            for naming (bytecode, naming). A run with no interpreter
//	            can be counted instead (countonly.go)
//	Configure   hook the session into the runner.Options, composed with
//	            the caller's own hooks (Start readies each instance: the
//	            meter's state, then the detached program put back); the
//	            measurement window is function-runner's, from the main
//	            module's instantiation (BeforeMain) to its export's return
//	run         internal/run/runner, under the job's limits and timeout; a
//	            signal's cancellation stops the guest at the meter's
//	            checkpoints; a damaged compilation cache is cleared and the
//	            run done again
//	Finish      decode a function's output; collect the counters, name the
//	            functions, build the profile (stacks) with the run's facts
//	            (export, memory, a function's provider, codec, sizes and
//	            limits), name its positions after the program's source map
//	            when the caller found one (sourcemap), and its tables
//	            (report)
//
// The caller hears the job through its Hooks. Compare (compare.go) reads
// one JS file (its map, the guests' input), builds it with two plugins,
// runs both through Execute and keeps each side's module, profile and
// output in --out-dir (jsprof compare); BuildFile builds a module that
// carries its JS (jsprof build).
//
// A run's output files (outputs.go): OpenOutputs checks the files the
// caller names (-o, --collapsed, --report-json) against each other and
// against every file the job reads or linking found, and creates them
// before the guest runs; Outputs.Write writes the profile, its collapsed
// stacks and the JSON report from the Outcome. OutDir and WriteEach put
// several inputs' own profiles in --out-dir.
//
// Source maps (sourcemap.go): FindMap finds a program's map (the file
// given, else the one its sourceMappingURL comment names) and checks it
// against the JS (ModuleProgram: the JS a module carries or names), before
// a run (Job.ReadProgram), a build's error or a compare; MapSaved names a saved profile's
// positions after one (report, diff), and MappedSources finds the original
// files for the HTML source view (ReportSources: all of a report's). A map that cannot be used comes back as
// a warning for the caller to say, never as wrong positions;
// CompileErrorAt names a build's compile error after the original file.
//
// Several inputs (pipeline.go, inputs.go): PrepareJob prepares the module once and
// Prepared.RunSeveral runs it on each input in an instance of its own, in
// parallel, with their table's facts, their merged profile and the exit
// code of the first input that failed.
//
// It also says how a run ended (ExitCode, Ending: which of internal/cli's
// exit codes it ends with, and why), reads the uncaught JS error an
// engine told before it trapped (Uncaught, from a Tail of the guest's
// stderr; Outcome.Throw, its stack found in the run's own profile) and
// serves a running guest's profile (Serve). It owns the order of those
// steps, what passes between them and the files a run reads and writes,
// nothing else: flags, messages and which outputs are asked for belong to
// cmd/jsprof; the exit codes, a message's first line and the cause of a
// signal's cancellation to internal/cli; how a file is written to
// internal/outfile; the work of each step to the package named beside it.
package profiler
