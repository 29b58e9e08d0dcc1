package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/internal/shopify"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
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

// Profiling modes.
const (
	modeExact  = "exact"
	modeSample = "sample"
	modeOff    = "off"
)

type runFlags struct {
	env, dirs  listFlag
	plugins    listFlag
	input      string
	codec      string
	export     string
	cost       string
	mode       string
	output     string
	collapsed  string
	report     bool
	reportJSON string
	top        int
	every      uint64
	pprofAddr  string
	maxInstr   uint64
	timeout    time.Duration
	quiet      bool
	progress   time.Duration
	source     string
	fixedClock bool
	wasmFrames bool
	stackEvery uint64
	sourceMap  string
}

func cmdRun(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("run", runSynopsis, io)
	var f runFlags
	fs.Var(&f.env, "env", "set a guest environment variable `KEY=VALUE` (repeatable)")
	fs.Var(&f.dirs, "dir", "grant the guest the host directory `HOST[:GUEST]` (repeatable)")
	fs.Var(&f.plugins, "plugin", "the Javy plugin or Shopify Functions provider a dynamic module imports: a `file`, or a folder of providers named by namespace as function-runner's providers/ (repeatable)")
	fs.StringVar(&f.input, "input", "", "the function's input: a JSON `file` (a Shopify Function's, encoded for its provider), else the guest's stdin; default: jsprof's stdin")
	fs.StringVar(&f.codec, "codec", "", "how a Shopify Function's input and output are encoded: json, messagepack or raw (default: the provider's, as function-runner chooses)")
	fs.StringVar(&f.export, "export", "", "the export to run (default _start, else shopify_main)")
	fs.StringVar(&f.export, "e", "", "short for --export")
	fs.StringVar(&f.cost, "cost", costFuel, "what an instruction costs: fuel (wasmtime's fuel, as function-runner counts) or all (every instruction but block, loop, else and end)")
	fs.StringVar(&f.mode, "mode", modeExact, "profiling `mode`: exact (every instruction, per opcode and line), sample (full Wasm and JS stacks every --sample-every instructions) or off (just run)")
	fs.Uint64Var(&f.every, "sample-every", profiler.DefaultSampleEvery, "with --mode sample, take a sample about every `N` Wasm instructions")
	fs.BoolVar(&f.wasmFrames, "wasm-frames", true, "with --mode exact, lay the Wasm frames (apportioned from sampled Wasm stacks) around the exact JS frames; =false leaves them out")
	fs.Uint64Var(&f.stackEvery, "wasm-stack-every", profiler.DefaultWasmStackEvery, "with --mode exact, take a Wasm stack for the Wasm frames about every `N` instructions at first (less often as the run grows); smaller gives a short run a finer split")
	fs.StringVar(&f.pprofAddr, "pprof-addr", "", "with --mode sample, serve the running guest's profile at http://`HOST:PORT`/debug/pprof/profile?seconds=N")
	fs.StringVar(&f.output, "o", "jsprof.pb.gz", "write the pprof profile to `file`")
	fs.StringVar(&f.collapsed, "collapsed", "", "also write the stacks in collapsed format (flamegraph.pl, speedscope) to `file`")
	fs.BoolVar(&f.report, "report", false, "print the per-opcode and per-function cost table on stderr when the guest ends")
	fs.StringVar(&f.reportJSON, "report-json", "", "write the cost report as JSON to `file`")
	fs.IntVar(&f.top, "top", 20, "rows of each table of --report (0: all)")
	fs.Uint64Var(&f.maxInstr, "max-instructions", 0, "stop the guest after `N` Wasm instructions (exit 124), profile written (needs a profiling --mode)")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop the guest after this `duration` (exit 124), profile written")
	fs.StringVar(&f.source, "source", "", "show the program's functions as in `file` (Javy compiles every program as function.mjs; jsprof build records the file, a module built by the Javy CLI does not)")
	fs.StringVar(&f.sourceMap, "source-map", "", sourceMapUsage)
	fs.BoolVar(&f.fixedClock, "deterministic", false, "give the guest fixed clocks and a fixed random source, so that a program reading the time counts the same instructions every run")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines on stderr during long runs")
	fs.DurationVar(&f.progress, "progress", 5*time.Second, "on stderr, every `interval` of a run, the Wasm instructions executed so far")
	openCache := cacheFlag(fs)
	if code, done := parseFlags(fs, args, io); done {
		return code
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(io.err, "jsprof: run: no module given")
		fs.Usage()
		return exitUsage
	}
	switch f.mode {
	case modeExact, modeSample, modeOff:
	default:
		return fail(io, exitUsage, fmt.Errorf("--mode %q: want exact, sample or off", f.mode))
	}
	if f.mode == modeOff && (f.report || f.reportJSON != "" || f.collapsed != "") {
		return fail(io, exitUsage, errors.New("--report, --report-json and --collapsed need a profiling --mode"))
	}
	if f.mode != modeExact && (f.report || f.reportJSON != "") {
		return fail(io, exitUsage, errors.New("--report and --report-json need --mode exact"))
	}
	if f.mode != modeSample && f.pprofAddr != "" {
		return fail(io, exitUsage, errors.New("--pprof-addr needs --mode sample"))
	}
	if f.mode == modeOff && f.maxInstr > 0 {
		return fail(io, exitUsage, errors.New("--max-instructions counts instructions: it needs a profiling --mode"))
	}
	cost, err := parseCost(f.cost)
	if err != nil {
		return fail(io, exitUsage, err)
	}
	var codec *shopify.Codec // nil: the provider's
	if f.codec != "" {
		c, err := shopify.ParseCodec(f.codec)
		if err != nil {
			return fail(io, exitUsage, fmt.Errorf("--codec: %w", err))
		}
		codec = &c
	}
	if f.mode == modeSample && f.every == 0 {
		return fail(io, exitUsage, errors.New("--sample-every 0: want a period of at least 1 instruction"))
	}
	// A period given for a mode that takes none would be ignored in
	// silence: the user meant another mode.
	if given(fs, "sample-every") && f.mode != modeSample {
		return fail(io, exitUsage, errors.New("--sample-every needs --mode sample"))
	}
	if given(fs, "wasm-stack-every") && f.mode != modeExact {
		return fail(io, exitUsage, errors.New("--wasm-stack-every needs --mode exact"))
	}
	if f.pprofAddr != "" {
		// The port is checked now, not when the guest is ready to run.
		_, port, err := net.SplitHostPort(f.pprofAddr)
		if err == nil {
			_, err = net.LookupPort("tcp", port)
		}
		if err != nil {
			return fail(io, exitUsage, fmt.Errorf("--pprof-addr %s: want HOST:PORT: %w", f.pprofAddr, err))
		}
	}
	modulePath, guestArgs := rest[0], rest[1:]
	if len(guestArgs) > 0 && guestArgs[0] == "--" {
		guestArgs = guestArgs[1:]
	}
	opts := runner.Options{
		Name:   filepath.Base(modulePath),
		Args:   guestArgs,
		Env:    f.env,
		Stdin:  io.in,
		Stdout: io.out,
		Stderr: io.err,

		Deterministic: f.fixedClock,
	}
	for _, d := range f.dirs {
		m, err := runner.ParseMount(d)
		if err != nil {
			return fail(io, exitUsage, err)
		}
		if st, err := os.Stat(m.Host); err != nil || !st.IsDir() {
			return fail(io, exitUsage, fmt.Errorf("--dir %s: not a directory", m.Host))
		}
		opts.Dirs = append(opts.Dirs, m)
	}
	wasm, mainMod, err := readModule(modulePath)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	linked, err := link(mainMod, f.plugins)
	if err != nil {
		return fail(io, exitFailure, fmt.Errorf("%s: %w", modulePath, err))
	}
	opts.Plugin = linked.plugin
	opts.Entry = f.export
	var function *shopify.Run
	if linked.provider != nil {
		if function, err = prepareFunction(&opts, *linked.provider, codec, f.input, io); err != nil {
			return fail(io, exitFailure, err)
		}
	} else if f.input != "" {
		in, err := os.ReadFile(f.input)
		if err != nil {
			return fail(io, exitFailure, fmt.Errorf("--input: %w", err))
		}
		opts.Stdin = bytes.NewReader(in)
	}
	if opts.Cache, err = openCache(); err != nil {
		return fail(io, exitFailure, err)
	}

	var outs *outputs
	if f.mode != modeOff {
		// Every output is created (as a temporary file beside it) before
		// the guest runs, so that an unwritable path is said now, not
		// after a long run, and the guest's exit code survives.
		if outs, err = openOutputs(f, modulePath, linked); err != nil {
			return fail(io, exitUsage, err)
		}
		defer outs.discard()
	}
	var sess *profiler.Session
	if f.mode != modeOff {
		var plugin []byte
		if opts.Plugin != nil {
			plugin = opts.Plugin.Wasm
		}
		prog := moduleProgram(wasm, modulePath, f.source)
		sess, err = profiler.Prepare(ctx, opts.Name, wasm, plugin, profiler.Options{Decoded: mainMod, ModulePath: modulePath,
			SourceMap: findMap(f.sourceMap, prog, io), GeneratedText: prog.text,
			Mode: profiler.Mode(f.mode), SampleEvery: f.every, MaxInstructions: f.maxInstr, Source: f.source, Cost: cost,
			NoWasmFrames: !f.wasmFrames, WasmStackEvery: f.stackEvery, CacheDir: fs.Lookup("cache-dir").Value.String(), Warn: func(err error) { warn(io, err) },
			// A function with no JS (a Wasm API provider's) still has its
			// export call counted, as function-runner counts it.
			CountWithoutInterpreter: function != nil,
		})
		if err != nil {
			var none *profiler.NoInterpreterError
			if !errors.As(err, &none) || f.report || f.reportJSON != "" {
				return failInterrupted(ctx, io, exitFailure, err)
			}
			// A plain WASI program: run it, and say why there is no profile.
			fmt.Fprintf(io.err, "jsprof: %s; running without a profile\n", profiler.FirstLine(err.Error()))
			sess = nil
		} else {
			if why := sess.CountOnly(); why != nil {
				if f.maxInstr > 0 {
					return fail(io, exitFailure, errors.New("--max-instructions needs a module with a JS interpreter to instrument"))
				}
				fmt.Fprintf(io.err, "jsprof: %s; counting the export call's Wasm instructions only (the profile has one frame, %s)\n", profiler.FirstLine(why.Error()), profiler.BucketWasm)
			}
			wasm = sess.Main()
			sess.Configure(&opts)
		}
	}
	if f.maxInstr > 0 && sess == nil {
		return fail(io, exitFailure, errors.New("--max-instructions needs a module with a JS interpreter to instrument"))
	}
	start := time.Now()
	runCtx := ctx
	if f.timeout > 0 {
		// Counted from when the guest's modules are compiled: compiling
		// is not the guest's time.
		runCtx = runner.WithTimeout(ctx, f.timeout, fmt.Errorf("%s %v", profiler.TimeoutPrefix, f.timeout))
	}
	if sess != nil {
		if f.pprofAddr != "" {
			addr, stop, err := sess.Serve(f.pprofAddr)
			if err != nil {
				return fail(io, exitFailure, fmt.Errorf("--pprof-addr: %w", err))
			}
			defer stop()
			fmt.Fprintf(io.err, "jsprof: serving the running guest's profile at http://%s/debug/pprof/profile\n", addr)
		}
	}
	if f.mode == modeOff && f.timeout == 0 && io.defaultSignals != nil {
		// wazero stops a guest when its context ends only if it compiled
		// checks into every loop and call, which makes QuickJS run up to
		// six times slower (fib(30): 1.38 s against 0.21 s). Profiled runs
		// stop at the meter's checkpoints instead. An unprofiled run
		// without --timeout is compiled without the checks, and an
		// interrupt ends the process by the signal's default action: it
		// has nothing to write, and while a guest computes without host
		// calls, Go's runtime may not run jsprof's own handler at all.
		opts.KeepOnContextDone = true
		io.defaultSignals()
	}
	stopProgress := func() {}
	if sess != nil && sess.CountOnly() == nil && !f.quiet && f.progress > 0 {
		stopProgress = progress(io, f.progress, start, sess.Instructions)
	}
	res, err := runner.Run(runCtx, wasm, opts)
	if errors.Is(err, runner.ErrDamagedCache) {
		// Nothing of the guest ran: clear the cache and compile afresh.
		warn(io, fmt.Errorf("%w; clearing it and compiling again", err))
		dir := fs.Lookup("cache-dir").Value.String()
		if cerr := clearCache(dir); cerr != nil {
			warn(io, fmt.Errorf("clearing the cache %s: %w", dir, cerr))
		}
		if opts.Cache, err = openCache(); err == nil {
			res, err = runner.Run(runCtx, wasm, opts)
		}
	}
	stopProgress()
	if err != nil {
		if sess != nil {
			sess.Finished()
		}
		return fail(io, exitFailure, err)
	}
	code := profiler.ExitCode(res)
	info := jsprofile.RunInfo{Export: res.Entry, MemoryBytes: res.MemoryBytes}
	if sess != nil {
		info.MemoryBytes = sess.GuestMemory(res.MemoryBytes)
	}
	if function != nil {
		info.Provider, info.Codec, info.InputBytes = function.Namespace, function.Codec.String(), uint64(len(function.Input))
		out, err := function.Output()
		info.OutputBytes = uint64(len(out.Output))
		info.Limits = functionLimits(info.InputBytes, info.OutputBytes)
		if werr := writeFunctionOutput(out, err, function.Codec, res, io); werr != nil {
			fail(io, exitFailure, werr)
			if code == 0 {
				code = exitFailure
			}
		}
	}
	if sess != nil {
		// The guest has ended, however it ended: what was measured is
		// written before anything else is said.
		// An interrupt that stopped the guest has done its work: naming
		// still runs. One that comes after the guest ended skips it (and
		// a second one ends jsprof: main).
		finishCtx := ctx
		if ctx.Err() != nil {
			finishCtx = context.WithoutCancel(ctx)
		}
		// The tables are for the reports and a function's summary.
		profileOnly := !f.report && f.reportJSON == "" && function == nil
		out, err := sess.Finish(finishCtx, profiler.Run{Start: start, ExitCode: code, Trap: res.Trap, Info: info, ProfileOnly: profileOnly})
		if err != nil {
			return fail(io, exitFailure, err)
		}
		if err := outs.write(out, f, io); err != nil {
			return fail(io, exitFailure, err)
		}
		if function != nil {
			writeFunctionSummary(io, out.Tables.TotalWasmInstructions, out.Tables.CostModel, out.Tables.Run, "")
		}
	} else if function != nil {
		// Only --mode off runs a function uninstrumented: one with no JS
		// interpreter is counted all the same (countonly.go).
		writeFunctionSummary(io, 0, "", info, "--mode off")
	}
	return exitStatus(res, code, io)
}

// failInterrupted is fail, unless ctx was cancelled by a signal: then the
// error is the interruption, with its exit code.
func failInterrupted(ctx context.Context, io stdio, code int, err error) int {
	var sig interrupted
	if errors.As(context.Cause(ctx), &sig) {
		return fail(io, profiler.ExitSignalBase+int(sig.sig), sig)
	}
	return fail(io, code, err)
}

// warn prints a warning as one line.
func warn(io stdio, err error) {
	fmt.Fprintf(io.err, "jsprof: warning: %s\n", profiler.FirstLine(err.Error()))
}

// progress prints, every interval until stopped, one line on stderr with
// the instructions executed so far. Whole lines, each starting "jsprof:",
// so that they stay apart from what the guest itself writes there.
func progress(io stdio, interval time.Duration, start time.Time, instructions func() uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				fmt.Fprintf(io.err, "jsprof: running: %s Wasm instructions, %s\n",
					report.Human(instructions()), now.Sub(start).Round(100*time.Millisecond))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// exitStatus says how the guest ended, when it did not end by itself
// (profiler.Ending), and returns code, jsprof's exit code.
func exitStatus(res runner.Result, code int, io stdio) int {
	if _, why := profiler.Ending(res); why != nil {
		return fail(io, code, why)
	}
	return code
}

// readModule reads and decodes a module: its imports say what it links,
// and a malformed file is reported with wasmcore's offsets before wazero
// sees it.
func readModule(path string) ([]byte, *wasmcore.Module, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	// The module is given the bytes, which nothing writes to: decoding
	// copies none of them.
	m, err := wasmcore.DecodeOwned(wasm)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return wasm, m, nil
}

type loadedPlugin struct {
	path   string
	wasm   []byte
	module *wasmcore.Module
	info   javy.Plugin
}

func loadPlugin(path string) (*loadedPlugin, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	info, err := javy.Inspect(m)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	// A provider without an import_namespace section is told by its file
	// name where that is a known one (javy_quickjs_provider_v1.wasm), as
	// function-runner links its bundled providers.
	if ns, _ := shopify.DeclaredNamespace(m, path); ns != "" {
		info.Namespace = ns
	}
	return &loadedPlugin{path: path, wasm: wasm, module: m, info: info}, nil
}

// writeFileAtomic writes via a temporary file in the same directory and a
// rename, so an interrupted jsprof never leaves half a file.
func writeFileAtomic(path string, write func(f *os.File) error) error {
	o, err := createOutput(path)
	if err != nil {
		return err
	}
	return o.commit(write)
}
