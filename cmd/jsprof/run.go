package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/inputcost"
	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/cachedir"
	"github.com/jsprof/jsprof/internal/run/extension"
	"github.com/jsprof/jsprof/internal/run/inputfile"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/run/shopify/scalelimits"
	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

const runSynopsis = `jsprof [run] [flags] module.wasm [--] [guest args...]

Runs a WebAssembly command module under wazero, as 'wasmtime run' would — a
static Javy module, a dynamic one (with --plugin), an older Javy module
(_start or shopify_main) or any WASI program — and profiles the JavaScript
it runs: by default exact per-opcode and per-line cost, written as a pprof
profile to jsprof.pb.gz (go tool pprof jsprof.pb.gz; jsprof report
jsprof.pb.gz).

The guest gets jsprof's stdin, stdout and stderr, and no host directory,
environment variable or argument unless given with --dir, --env or after
the module. jsprof exits with the guest's exit code; 134 if the guest
trapped. The profile is written however the guest ended.`

// sourceMapUsage is the --source-map flag's help.
const sourceMapUsage = "name JS positions after the source map `file` (default: the one the JS's //# sourceMappingURL= comment names, inline or beside the JS)"

// runFlags is jsprof run's command line: its flags as given, and what
// check derives from them.
type runFlags struct {
	env, dirs  cli.List
	plugins    cli.List
	inputs     cli.List
	outDir     string
	codecName  string
	export     string
	mode       string
	output     string
	collapsed  string
	report     bool
	reportJSON string
	html       string
	top        int
	every      uint64
	pprofAddr  string
	push       string
	pushLabels cli.List
	maxInstr   uint64
	timeout    time.Duration
	quiet      bool
	progress   time.Duration
	source     string
	fixedClock bool
	wasmFrames bool
	stackEvery uint64
	sourceMap  string
	failLimit  bool
	schemaPath string // with queryPath, scales a function's limits
	queryPath  string
	failInval  bool
	inputCost  inputcost.Flag
	cacheDir   func() cachedir.Cache
	readCost   func() (wasmcore.CostModel, error)

	// Derived by check.
	input     string               // the one input file, unless several
	several   bool                 // several inputs (a folder, or --input repeated)
	module    string               // the module's path
	guestArgs []string             // after the module (a first -- dropped)
	app       *extension.Extension // the function's folder, when given instead of a module
	cost      wasmcore.CostModel
	codec     *shopify.Codec // nil: the provider's
	scale     *scalelimits.Analyzer
	mounts    []runner.Mount
	costs     []report.InputCost // measured by --input-cost, for the outputs
}

// runFlagSet declares run's flags into f.
func runFlagSet(f *runFlags, io stdio) *flag.FlagSet {
	fs := cli.NewFlagSet("run", runSynopsis, io.err)
	fs.Var(&f.env, "env", "set a guest environment variable `KEY=VALUE` (repeatable)")
	fs.Var(&f.dirs, "dir", "grant the guest the host directory `HOST[:GUEST]` (repeatable)")
	fs.Var(&f.plugins, "plugin", "the Javy plugin or Shopify Functions provider a dynamic module imports: a `file`, or a folder of providers named by namespace as function-runner's providers/ (repeatable)")
	fs.Var(&f.inputs, "input", "the function's input: a JSON `file`, encoded for its provider (any module given it runs with function-runner's I/O), or a Shopify CLI run log or fixture: its input run with its export, a fixture's output checked, a log's production count shown; default: jsprof's stdin. A folder, or --input repeated: each *.json run in an instance of its own, in parallel, a table of them on stderr and -o their merged profile")
	fs.StringVar(&f.outDir, "out-dir", "", "with several inputs, also write each input's profile into `dir`, as NAME.pb.gz")
	fs.StringVar(&f.codecName, "codec", "", "how a function's input and output are encoded: json, messagepack or raw (default: the provider's, as function-runner chooses; any module given it runs with function-runner's I/O)")
	fs.StringVar(&f.export, "export", "", "the export to run (default _start, else shopify_main; a Shopify CLI run log or fixture given --input runs its own)")
	fs.StringVar(&f.export, "e", "", "short for --export")
	f.readCost = costFlag(fs)
	fs.StringVar(&f.mode, "mode", jsprofile.ModeExact, "profiling `mode`: exact (every instruction, per opcode and line), sample (full Wasm and JS stacks every --sample-every instructions) or off (just run)")
	fs.Uint64Var(&f.every, "sample-every", profiler.DefaultSampleEvery, "with --mode sample, take a sample about every `N` Wasm instructions")
	fs.BoolVar(&f.wasmFrames, "wasm-frames", true, "with --mode exact, lay the Wasm frames (apportioned from sampled Wasm stacks) around the exact JS frames; =false leaves them out")
	fs.Uint64Var(&f.stackEvery, "wasm-stack-every", profiler.DefaultWasmStackEvery, "with --mode exact, take a Wasm stack for the Wasm frames about every `N` instructions at first (less often as the run grows); smaller gives a short run a finer split")
	fs.StringVar(&f.pprofAddr, "pprof-addr", "", "with --mode sample, serve the running guest's profile at http://`HOST:PORT`/debug/pprof/profile?seconds=N")
	fs.StringVar(&f.push, "push", "", "also send the profile to the Pyroscope server at `URL` (http://localhost:4040); one per input with several inputs; a failed push is a warning")
	fs.Var(&f.pushLabels, "push-label", "label what --push sends with `NAME=VALUE` (repeatable)")
	fs.StringVar(&f.output, "o", defaultProfile, "write the pprof profile to `file`")
	fs.StringVar(&f.collapsed, "collapsed", "", "also write the stacks in collapsed format (flamegraph.pl, speedscope) to `file`")
	fs.BoolVar(&f.report, "report", false, "print the per-opcode and per-function cost table on stderr when the guest ends")
	fs.StringVar(&f.reportJSON, "report-json", "", "write the cost report as JSON to `file`")
	fs.StringVar(&f.html, "html", "", "also write the HTML report (jsprof report --html's page: flame graph, annotated source) to `file`")
	fs.IntVar(&f.top, "top", 20, "rows of each table of --report (0: all)")
	fs.Uint64Var(&f.maxInstr, "max-instructions", 0, "stop the guest after `N` Wasm instructions (exit 124), profile written (needs a profiling --mode)")
	cli.DurationVar(fs, &f.timeout, "timeout", 0, "stop the guest after this `duration` (exit 124), profile written")
	fs.StringVar(&f.source, "source", "", "show the program's functions as in `file` (Javy compiles every program as function.mjs; jsprof build records the file, a module built by the Javy CLI does not)")
	fs.StringVar(&f.sourceMap, "source-map", "", sourceMapUsage)
	fs.BoolVar(&f.fixedClock, "deterministic", false, "give the guest fixed clocks and a fixed random source, so that a program reading the time counts the same instructions every run")
	fs.BoolVar(&f.failLimit, "fail-over-limit", false, "exit 1, naming the limit and the input, when a Shopify Function goes over one of function-runner's limits (instructions, input or output size; scaled by --schema-path and --query-path)")
	fs.StringVar(&f.schemaPath, "schema-path", "", "with --query-path, scale a function's limits as function-runner does: the GraphQL schema `file` whose @scaleLimits(rate:) fields the input query selects")
	fs.StringVar(&f.queryPath, "query-path", "", "the function's input query, a GraphQL `file`: with --schema-path, for its scaled limits; with --input-cost, to name each path's field and line")
	fs.BoolVar(&f.failInval, "fail-invalid-output", false, "exit 1, naming the input, when a Shopify Function's output is missing or does not decode (function-runner shows it as it is and counts the run a success; so does jsprof without this flag)")
	fs.Var(&f.inputCost, "input-cost", fmt.Sprintf("also run the function on each input without each of its field paths (every top-level one, then those holding 1%%+ of its bytes, the largest first, %d per input or =`N`) and say what each removal saves of the input decoding, and whether the output changed; in exact mode, on --input", inputcost.DefaultMaxPaths))
	fs.BoolVar(&f.quiet, "q", false, "no progress lines during long runs, nor the closing line naming the profile, on stderr")
	cli.DurationVar(fs, &f.progress, "progress", 5*time.Second, "on stderr, every `interval` of a run, the Wasm instructions executed so far")
	f.cacheDir = cacheFlag(fs)
	return fs
}

// parseRun parses run's command line into f and checks it; done reports
// that the caller should return code (--help, or a command line run
// cannot follow, said on io.err).
func parseRun(f *runFlags, args []string, io stdio) (code int, done bool) {
	fs := runFlagSet(f, io)
	if code, done := cli.Parse(fs, args, io.out, io.err); done {
		return code, true
	}
	var err error
	if f.app, err = f.fromApp(fs); errors.Is(err, extension.ErrNoExtension) && fs.NArg() == 0 {
		return cli.BadCommandLine(io.err, fs, err.Error()), true
	} else if err != nil {
		return fail(io, cli.ExitFailure, err), true
	}
	if err := f.check(fs); err != nil {
		return fail(io, cli.ExitUsage, err), true
	}
	if rest := fs.Args()[min(1, fs.NArg()):]; len(rest) == 0 || rest[0] != "--" {
		if name := cli.FlagAmong(fs, rest); name != "" {
			warn(io, fmt.Errorf("%s comes after the module, so it goes to the guest, as wasmtime passes it: put jsprof's flags before the module (or -- before the guest's)", name))
		}
	}
	return 0, false
}

// check checks that the flags go together, and derives what the run
// needs from them; its error is a usage error.
func (f *runFlags) check(fs *flag.FlagSet) error {
	profiling := f.mode != jsprofile.ModeOff
	switch f.mode {
	case jsprofile.ModeExact, jsprofile.ModeSample, jsprofile.ModeOff:
	default:
		return fmt.Errorf("--mode %q: want exact, sample or off", f.mode)
	}
	switch {
	case !profiling && (f.report || f.reportJSON != "" || f.collapsed != "" || f.html != ""):
		return errors.New("--report, --report-json, --collapsed and --html need a profiling --mode")
	case f.mode != jsprofile.ModeSample && f.pprofAddr != "":
		return errors.New("--pprof-addr needs --mode sample")
	case !profiling && f.maxInstr > 0:
		return errors.New("--max-instructions counts instructions: it needs a profiling --mode")
	case !profiling && f.failLimit:
		return errors.New("--fail-over-limit counts instructions: it needs a profiling --mode")
	case !profiling && cli.Given(fs, "o"):
		return fmt.Errorf("-o %s: --mode off writes no profile", f.output)
	case !profiling && f.push != "":
		return errors.New("--push sends the profile: it needs a profiling --mode")
	case len(f.pushLabels) > 0 && f.push == "":
		return errors.New("--push-label labels what --push sends: give --push URL")
	}
	if _, err := output.PushLabels(f.pushLabels); err != nil {
		return fmt.Errorf("--push-label %w", err)
	}
	if len(f.inputs) == 1 {
		if st, err := os.Stat(f.inputs[0]); err != nil || !st.IsDir() {
			f.input = f.inputs[0]
		}
	}
	f.several = len(f.inputs) > 0 && f.input == ""
	switch {
	case f.several && !profiling:
		return errors.New("several inputs are compared by their instructions: they need a profiling --mode")
	case f.several && f.pprofAddr != "":
		return errors.New("--pprof-addr serves one run: give one --input")
	case f.inputCost.MaxPaths > 0 && (f.mode != jsprofile.ModeExact || len(f.inputs) == 0):
		return errors.New("--input-cost measures a function's --input in exact instructions: give --input, in --mode exact")
	case f.outDir != "" && !f.several:
		return errors.New("--out-dir holds each input's profile: give a folder of inputs, or --input more than once")
	}
	var err error
	if f.cost, err = f.readCost(); err != nil {
		return err
	}
	if f.codecName != "" {
		c, err := shopify.ParseCodec(f.codecName)
		if err != nil {
			return fmt.Errorf("--codec: %w", err)
		}
		f.codec = &c
	}
	// A period given for a mode that takes none would be ignored in
	// silence: the user meant another mode.
	switch {
	case f.mode == jsprofile.ModeSample && f.every == 0:
		return errors.New("--sample-every 0: want a period of at least 1 instruction")
	case cli.Given(fs, "sample-every") && f.mode != jsprofile.ModeSample:
		return errors.New("--sample-every needs --mode sample")
	case cli.Given(fs, "wasm-stack-every") && f.mode != jsprofile.ModeExact:
		return errors.New("--wasm-stack-every needs --mode exact")
	}
	if f.pprofAddr != "" {
		// The port is checked now, not when the guest is ready to run.
		_, port, err := net.SplitHostPort(f.pprofAddr)
		if err == nil {
			_, err = net.LookupPort("tcp", port)
		}
		if err != nil {
			return fmt.Errorf("--pprof-addr %s: want HOST:PORT: %w", f.pprofAddr, err)
		}
	}
	if f.quiet {
		f.progress = 0
	}
	if f.app == nil {
		f.module, f.guestArgs = fs.Arg(0), fs.Args()[1:]
	} else if fs.NArg() > 0 {
		f.guestArgs = fs.Args()[1:]
	}
	if javy.IsSourceFile(f.module) {
		return fmt.Errorf("%s is JavaScript, not a Wasm module: build it first (jsprof build --plugin PLUGIN.wasm %s -o index.wasm)", f.module, f.module)
	}
	if len(f.guestArgs) > 0 && f.guestArgs[0] == "--" {
		f.guestArgs = f.guestArgs[1:]
	}
	if f.mounts, err = runner.ParseMounts(f.dirs); err != nil || f.schemaPath+f.queryPath == "" || f.schemaPath == "" && f.inputCost.MaxPaths > 0 {
		return err // a query alone names --input-cost's fields
	}
	f.scale, err = scalelimits.Load(f.schemaPath, f.queryPath)
	return err
}

// defaultProfile is where run writes its profile, and what report reads,
// when not told.
const defaultProfile = "jsprof.pb.gz"

// usageError is an error of the command line found while the job runs
// (an output that cannot be written): exit code 2.
type usageError struct{ error }

func cmdRun(ctx context.Context, args []string, io stdio) int {
	var f runFlags
	if code, done := parseRun(&f, args, io); done {
		return code
	}
	if f.app != nil {
		if _, err := os.Stat(f.module); errors.Is(err, os.ErrNotExist) {
			return fail(io, cli.ExitFailure, f.app.NotBuilt())
		}
		if !f.quiet {
			fmt.Fprintf(io.err, "jsprof: %s\n", f.app.Describe())
		}
	}
	if err := link.CheckPlugins(f.plugins); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	var inputs []string // the inputs' files, checked before anything runs
	if len(f.inputs) > 0 {
		var err error
		if inputs, err = inputfile.List(f.inputs); err != nil {
			return fail(io, cli.ExitFailure, err)
		}
	}
	scaleBy, err := f.scaleByExport()
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	outs, err := f.outputs(inputs, io)
	if err != nil {
		return fail(io, cli.ExitUsage, err)
	}
	job := profiler.Job{
		ModulePath: f.module,
		Plugins:    f.plugins,
		Guest: runner.Options{Name: filepath.Base(f.module), Args: f.guestArgs, Env: f.env, Dirs: f.mounts,
			Stdin: io.in, Stdout: io.out, Stderr: io.err, Entry: f.export, Deterministic: f.fixedClock},
		Input:  f.input,
		Inputs: inputs,
		Codec:  f.codec, ScaleLimits: f.scale, ScaleByExport: scaleBy,
		Profile: profiler.Options{Mode: profiler.Mode(f.mode), SampleEvery: f.every, MaxInstructions: f.maxInstr, Source: f.source, Cost: f.cost,
			NoWasmFrames: !f.wasmFrames, WasmStackEvery: f.stackEvery, Warn: func(err error) { warn(io, err) }},
		ProfileOnly: !f.report && f.reportJSON == "" && f.html == "",
		Timeout:     f.timeout,
		// Whole lines, each starting "jsprof:", so that they stay apart
		// from what the guest itself writes on stderr.
		Progress: profiler.Progress{Every: f.progress, Say: func(instructions uint64, elapsed time.Duration) {
			fmt.Fprintf(io.err, "jsprof: running: %s Wasm instructions, %s\n", costfmt.Human(instructions), elapsed.Round(100*time.Millisecond))
		}},
		Cache:          f.cacheDir(),
		DefaultSignals: io.defaultSignals,
		Hooks: profiler.Hooks{
			Prepared: func(sess *profiler.Session, why error) error {
				switch {
				case why != nil:
					fmt.Fprintf(io.err, "jsprof: %s: running it without a profile, nothing written (--mode off runs it so, without this line)\n", cli.FirstLine(why.Error()))
				case sess != nil && sess.CountOnly() != nil:
					fmt.Fprintf(io.err, "jsprof: %s; counting the export call's Wasm instructions only (the profile has one frame, %s)\n", cli.FirstLine(sess.CountOnly().Error()), jsprofile.BucketWasm)
				}
				return nil
			},
			OutputError: func(err error) { fail(io, cli.ExitFailure, err) },
			Ready: func(linked link.Linking) error {
				if f.failLimit && linked.Provider == nil {
					return usageError{fmt.Errorf("--fail-over-limit: %s imports no Shopify Functions provider: it has no limits", f.module)}
				}
				return nil
			},
		},
		Outputs: outs,
		Files:   io.files,
	}
	if f.mode != jsprofile.ModeOff {
		// Said once the module links, not before another error.
		mapWarning, ready := job.ReadProgram(ctx, f.sourceMap), job.Hooks.Ready
		job.Hooks.Ready = func(linked link.Linking) error {
			warn(io, mapWarning)
			return ready(linked)
		}
	}
	if f.html != "" { // annotated with the JS ReadProgram found
		job.Outputs = append(job.Outputs, output.RunHTML(f.html, f.output, job.Module, f.module, job.Profile.SourceMap, &f.costs))
	}
	p, err := profiler.PrepareJob(ctx, job)
	if err == nil && f.inputCost.MaxPaths > 0 {
		f.costs, err = inputcost.Measure(ctx, p, inputs, inputcost.Options{MaxPaths: f.inputCost.MaxPaths, QueryFile: f.queryPath})
	}
	if err != nil {
		return failJob(ctx, io, err)
	}
	if f.several {
		return runInputs(ctx, p, inputs, f, io)
	}
	// What was measured is written (Job.Outputs) before anything else is
	// said.
	done, err := p.Execute(ctx)
	if err != nil {
		return failJob(ctx, io, err)
	}
	code := done.ExitCode
	mark := func(s string) string { return paint(io, red, s) }
	if out := done.Outcome; out != nil {
		if out.Throw != nil {
			fmt.Fprintf(io.err, "jsprof: uncaught %s%s\n", out.Throw.Message, out.Throw.Place())
		}
		if done.Function {
			report.WriteFunctionSummary(io.err, out.Tables.TotalWasmInstructions, out.Tables.CostModel, out.Tables.Run, "", mark)
			report.WriteInputCost(io.err, f.costs)
			if over := report.OverLimit(out.Tables.TotalWasmInstructions, out.Tables.Run); f.failLimit && over != "" {
				fmt.Fprintf(io.err, "jsprof: %s: %s (--fail-over-limit)\n", cmp.Or(f.input, "stdin"), mark(over))
				code = cmp.Or(code, cli.ExitFailure)
			}
		}
	} else if done.Function {
		// Only --mode off runs a function uninstrumented: one with no JS
		// interpreter is counted all the same (countonly.go).
		report.WriteFunctionSummary(io.err, 0, "", done.Info, "--mode off", mark)
	}
	if done.Function && report.WriteInputVerdicts(io.err, []report.InputRun{profiler.InputFact(cmp.Or(f.input, "stdin"), done)}, report.Gates{InvalidOutput: f.failInval}, mark) {
		code = cmp.Or(code, cli.ExitFailure)
	}
	code = exitStatus(done.Guest, code, io)
	// An interrupted run's last word is the interruption (exitStatus).
	if done.Outcome != nil && !f.quiet && !errors.As(context.Cause(ctx), new(interrupted)) {
		fmt.Fprintf(io.err, "jsprof: profile written to %s (jsprof report %s; go tool pprof -http=: %s)\n", f.output, f.output, f.output)
	}
	return code
}

// failJob fails with a job's error: a usage error (exit 2: an output
// that cannot be opened is one), an output not written (exit 1), the
// interruption, or else exit 1.
func failJob(ctx context.Context, io stdio, err error) int {
	var out *profiler.OutputError
	switch {
	case errors.As(err, new(usageError)), errors.As(err, &out) && out.Open:
		return fail(io, cli.ExitUsage, err)
	case out != nil:
		return fail(io, cli.ExitFailure, err)
	}
	return failInterrupted(ctx, io, cli.ExitFailure, err)
}

// failInterrupted is fail, unless ctx was cancelled by a signal: then the
// error is the interruption, with its exit code.
func failInterrupted(ctx context.Context, io stdio, code int, err error) int {
	var sig interrupted
	if errors.As(context.Cause(ctx), &sig) {
		return fail(io, cli.ExitSignalBase+int(sig.Sig), sig)
	}
	return fail(io, code, err)
}

// warn prints a warning as one line; nil: nothing.
func warn(io stdio, err error) {
	if err == nil {
		return
	}
	fmt.Fprintf(io.err, "jsprof: %s %s\n", paint(io, yellow, "warning:"), cli.FirstLine(err.Error()))
}

// exitStatus says how the guest ended, when it did not end by itself
// (profiler.Ending), and returns code, jsprof's exit code.
func exitStatus(res runner.Result, code int, io stdio) int {
	if _, why := profiler.Ending(res); why != nil {
		return fail(io, code, why)
	}
	return code
}

// costFlag adds --cost and returns a function that reads it: its error, a
// usage error, names the flag. (wasmcore.CostFuelOps, the wasmtime
// reference test's negative control, is read but not offered.)
func costFlag(fs *flag.FlagSet) func() (wasmcore.CostModel, error) {
	fuel, all := wasmcore.CostFuel, wasmcore.CostAll
	name := fs.String("cost", fuel.String(), fmt.Sprintf("what an instruction costs: %s (%s) or %s (%s)", fuel, fuel.Meaning(), all, all.Meaning()))
	return func() (wasmcore.CostModel, error) {
		c, err := wasmcore.ParseCostModel(*name)
		if err != nil {
			return 0, fmt.Errorf("--cost %w", err)
		}
		return c, nil
	}
}
