package profiler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/name/throw"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/internal/run/cachedir"
	"github.com/jsprof/jsprof/internal/run/inputfile"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/run/shopify/scalelimits"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// Job is one run of a module through the whole pipeline (Execute): read,
// linked with what it imports, a Shopify Function's input encoded,
// prepared for profiling, run under its limits and timeout, finished, and
// its facts gathered. jsprof run, jsprof compare, the tests and the
// benchmarks describe their runs with it.
type Job struct {
	// ModulePath is the file the main module is read from; Module, when
	// set, is its bytes already (a module built in memory: then ModulePath
	// may be empty), and Decoded, when set, the same decoded.
	ModulePath string
	Module     []byte
	Decoded    *wasmcore.Module
	// Plugins are the paths a module's imports are linked against (link.Link):
	// plugin files, or folders of providers. Guest.Plugin, when set, is
	// the plugin linked instead.
	Plugins []string
	// Guest is the run as it would go unprofiled: its name, arguments,
	// environment, directories, stdio, entry and clocks, and any hooks of
	// the caller's own. Execute adds the plugin linked, the cache, a
	// Shopify Function's I/O and the profiler's hooks; those of the
	// caller still run (Session.Configure composes them).
	Guest runner.Options
	// Input is a file: a Shopify Function's JSON input, else the guest's
	// stdin. "" leaves stdin as Guest.Stdin (where a function's input is
	// then read from).
	Input string
	// Codec, when set, replaces the codec of a function's provider.
	Codec *shopify.Codec
	// ScaleLimits scales a function's limits per input as function-runner's
	// --schema-path and --query-path do; ScaleByExport, by an input's export.
	ScaleLimits   *scalelimits.Analyzer
	ScaleByExport map[string]*scalelimits.Analyzer
	// Inputs are the files of a job that runs on several inputs
	// (RunSeveral, inputfile.List): a module given inputs runs with
	// function-runner's I/O, as with Input, and no output may be one of
	// them.
	Inputs []string
	// Profile says how the module is profiled (Profile.CacheDir:
	// Cache.Dir when empty); Profile.Mode Off runs it unprofiled.
	Profile Options
	// NeedProfile makes a run with no JS interpreter an error rather than
	// a run without a profile (Hooks.Prepared hears why).
	NeedProfile bool
	// ProfileOnly leaves Outcome.Tables nil (Run.ProfileOnly), unless the
	// module is a Shopify Function, whose summary reads the tables.
	ProfileOnly bool
	// Timeout stops the guest after it has run that long (0: never),
	// counted from when its modules are compiled.
	Timeout time.Duration
	// Cache is the compilation cache, opened unless Guest.Cache is set
	// (jsprof compare shares one with its builds). When a damaged entry
	// stops the run before the guest starts (cachedir.ErrDamaged), it
	// is cleared and opened again, and the run done again. A directory
	// jsprof may not trust is said and not used (CacheDir.Trusted); what
	// a run compiles is sealed once compiled (CacheDir.Seal).
	Cache cachedir.Cache
	// Progress is said while a profiled guest runs.
	Progress Progress
	// DefaultSignals, when set, gives SIGINT and SIGTERM back their
	// default action; it is called before a run with mode Off and no timeout
	// (Execute says why).
	DefaultSignals func()
	// Outputs are where the profile goes, each opened once the module is
	// linked, before anything is prepared (output.Open: its files in
	// Files, none of them one the job reads), watched while a profiled
	// guest runs (output.Watcher) and written, after the outcome's
	// warnings are said, once it has ended (Execute, RunSeveral); an
	// unprofiled run writes none of them.
	Outputs []output.Output
	Files   *outfile.Set
	Hooks   Hooks
}

// Progress says, every Every while a profiled guest runs (0: never), the
// Wasm instructions it has run so far (at the meter's last checkpoint) and
// for how long.
type Progress struct {
	Every time.Duration
	Say   func(instructions uint64, elapsed time.Duration)
}

// start starts saying progress for s from start; stop stops it, and
// returns once it is no longer said.
func (p Progress) start(s *Session, start time.Time) (stop func()) {
	if p.Every <= 0 || p.Say == nil || s == nil || s.CountOnly() != nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(p.Every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				p.Say(s.Instructions(), now.Sub(start))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// Hooks are what a caller hears of a Job while it runs, each at its
// step; any may be nil. An error a hook returns ends the job, as is.
type Hooks struct {
	// Ready hears what the module links, once the job's inputs are read
	// and before its outputs are opened and anything is prepared.
	Ready func(link.Linking) error
	// Prepared hears the session about to run (nil when the run is not
	// profiled: why says why, nil for mode Off) just before the guest
	// starts.
	Prepared func(s *Session, why error) error
	// OutputError hears a Shopify Function's output that could not be
	// read (shopify.WriteOutput's error; one that does not decode is
	// Done.Output's Problem): the run's exit code is then 1 if it was 0.
	OutputError func(error)
}

// scaleFor is the analyzer of the limits of a run of export.
func (j *Job) scaleFor(export string) *scalelimits.Analyzer {
	return cmp.Or(j.ScaleByExport[export], j.ScaleLimits)
}

// Done is what a job produced.
type Done struct {
	Guest runner.Result
	// ExitCode is jsprof's exit code for the run (ExitCode, or 1 for a
	// function's output that could not be had).
	ExitCode int
	// Info is the run's facts: the export, memory, and a Shopify
	// Function's provider, codec, sizes and limits. The profile carries
	// the same (Finish adds the phases it measured).
	Info jsprofile.RunInfo
	// Function says the module ran as a Shopify Function; Output is what
	// its output showed, Input what its input file recorded.
	Function bool
	Output   shopify.Shown
	Input    inputfile.File
	// Outcome is the profile; nil when the run was not profiled.
	Outcome *Outcome
}

// Execute runs a job from start to end: PrepareJob, then one Run with
// the job's input. The guest's own ending (a trap, a limit, a timeout, a
// signal) is no error: Done says it; errors are what stopped the job from
// running the guest or from making its profile.
func Execute(ctx context.Context, job Job) (*Done, error) {
	p, err := PrepareJob(ctx, job)
	if err != nil {
		return nil, err
	}
	return p.Execute(ctx)
}

// Execute is Execute's run of a prepared job: one Run with the job's
// input and stdio, then its outputs written.
func (p *Prepared) Execute(ctx context.Context) (*Done, error) {
	defer output.Discard(p.job.Outputs)
	done, err := p.Run(ctx, p.job.Input, p.job.Guest.Stdout, p.job.Guest.Stderr)
	if err == nil && done.Outcome != nil {
		if werr := p.job.writeOutputs(ctx, done.Outcome, nil); werr != nil {
			return done, &OutputError{Err: werr}
		}
	}
	return done, err
}

// OutputError is an error of a job's outputs: one could not be opened
// (Open: a file the command line names cannot be written, said before
// anything runs), or written (the run itself is done, and Execute's
// Done is not nil).
type OutputError struct {
	Err  error
	Open bool
}

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// Prepared is a job read, linked and prepared for profiling once, to be
// run any number of times, each run with an input of its own in an
// instance of its own (Run). Runs may go at once: the prepared session is
// forked for each (Session.Fork), and the compilation cache shared.
type Prepared struct {
	job      Job
	opts     runner.Options // the guest's, with the plugin and the cache
	wasm     []byte         // the main module as it runs
	provider *shopify.Resolved
	sess     *Session // nil: the runs are not profiled (why says why)
	why      error
}

// PrepareJob reads, links and prepares a job's module (Job.Input is
// Run's): the job's Ready hook runs here, then its outputs are opened,
// before the module is prepared. On an error, they are discarded.
func PrepareJob(ctx context.Context, job Job) (p *Prepared, err error) {
	// A cache directory jsprof may not trust is said once and not used,
	// for compiled modules or prepared engines (cachedir.Cache.Trusted).
	job.Cache = job.Cache.Trusted()
	opts := job.Guest
	if opts.Name == "" {
		opts.Name = filepath.Base(job.ModulePath)
	}
	wasm, mainMod := job.Module, job.Decoded
	if wasm == nil {
		var err error
		if wasm, mainMod, err = link.ReadModule(job.ModulePath); err != nil {
			return nil, err
		}
	}
	what := job.ModulePath
	if what == "" {
		what = opts.Name
	}
	linked := link.Linking{Plugin: opts.Plugin}
	if opts.Plugin == nil {
		if mainMod == nil {
			var err error
			if mainMod, err = wasmcore.Decode(wasm); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
		}
		var err error
		if linked, err = link.Link(mainMod, job.Plugins); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		opts.Plugin = linked.Plugin
	}
	job.Decoded = mainMod // an input file's export is checked against it (Run)
	p = &Prepared{job: job}
	if p.provider = functionIO(mainMod, &linked, job.Input != "" || job.Codec != nil || len(job.Inputs) > 0); p.provider != nil {
		if p.provider.Self && opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "jsprof: %s is a static build of an in-memory provider, which function-runner cannot run (build it --dynamic, as Shopify CLI does); running it through its own initialize and finalize\n", opts.Name)
		}
		// Prepared with the provider; each run's input is its own (Run).
		shopify.LinkProvider(&opts, *p.provider)
	} else if linked.Provider != nil {
		// A Javy QuickJS provider, linked as wasmtime run --preload
		// links it: as it comes, pre-initialized.
		opts.Plugin, opts.SkipPluginInit = linked.Plugin, true
	}
	if opts.Cache == nil {
		var err error
		if opts.Cache, err = job.Cache.Open(); err != nil {
			return nil, err
		}
	}
	// What the run compiles is sealed as soon as it is compiled, for
	// the next runs (cachedir.Cache.Seal), and compiled by one run at once.
	opts.Compiled, opts.CompileLock = job.Cache.Seal, job.Cache.LockCompile
	if job.Hooks.Ready != nil {
		if err := job.Hooks.Ready(linked); err != nil {
			return nil, err
		}
	}
	if err := output.Open(ctx, job.Outputs, output.Opening{Files: job.Files, Reads: job.reads(linked)}); err != nil {
		return nil, &OutputError{Err: err, Open: true}
	}
	defer func() {
		if err != nil {
			output.Discard(job.Outputs)
		}
	}()
	popts := job.Profile
	if job.Profile.Mode != Off {
		var plugin []byte
		if opts.Plugin != nil {
			plugin = opts.Plugin.Wasm
		}
		popts.Decoded, popts.ModulePath = mainMod, job.ModulePath
		if popts.CacheDir == "" {
			popts.CacheDir = job.Cache.Dir
		}
		// A function with no JS (a Wasm API provider's) still has its
		// export call counted, as function-runner counts it.
		popts.CountWithoutInterpreter = popts.CountWithoutInterpreter || p.provider != nil
		sess, err := Prepare(ctx, opts.Name, wasm, plugin, popts)
		var none *NoInterpreterError
		switch {
		case errors.As(err, &none) && !job.NeedProfile:
			// A plain WASI program: run it without a profile.
			p.why = err
		case err != nil:
			return nil, err
		default:
			if sess.CountOnly() != nil && popts.MaxInstructions > 0 {
				return nil, errors.New("--max-instructions needs a module with a JS interpreter to instrument")
			}
			p.sess = sess
			wasm = sess.Main()
		}
	}
	if popts.MaxInstructions > 0 && p.sess == nil {
		return nil, errors.New("--max-instructions needs a module with a JS interpreter to instrument")
	}
	p.opts, p.wasm = opts, wasm
	return p, nil
}

// Run runs the prepared module once, in a fresh instance, with input (a
// file: a Shopify Function's JSON input, else the guest's stdin; "": the
// guest's stdin as the job gave it), the guest's output going to stdout
// and stderr (nil: nowhere). The job's Prepared hook hears the run's
// session. Errors are as Execute's.
func (p *Prepared) Run(ctx context.Context, input string, stdout, stderr io.Writer) (*Done, error) {
	job, opts, wasm := p.job, p.opts, p.wasm
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	// What the guest writes on stderr last tells an uncaught JS error.
	guestErr := &throw.Tail{W: stderr}
	opts.Stdout, opts.Stderr = stdout, guestErr
	var function *shopify.Run
	var recorded inputfile.File
	if p.provider != nil {
		var err error
		if function, recorded, err = prepareFunction(ctx, &opts, *p.provider, job.Codec, input, job.Decoded, job.scaleFor); err != nil {
			return nil, err
		}
	}
	var sess *Session
	if p.sess != nil {
		sess = p.sess.Fork()
		sess.Configure(&opts)
	}
	popts := job.Profile
	why := p.why
	if job.Hooks.Prepared != nil {
		if err := job.Hooks.Prepared(sess, why); err != nil {
			return nil, err
		}
	}
	if sess != nil {
		if err := output.Watch(job.Outputs, sess); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	stopProgress := job.Progress.start(sess, start)
	runCtx := ctx
	if job.Timeout > 0 {
		// Counted from when the guest's modules are compiled: compiling
		// is not the guest's time. The context finishing sees is not done
		// by it: a guest its timeout stopped still has its functions named.
		runCtx = runner.WithTimeout(ctx, job.Timeout, fmt.Errorf("%s %v", TimeoutPrefix, job.Timeout))
	}
	if job.Profile.Mode == Off && job.Timeout == 0 && job.DefaultSignals != nil {
		// wazero stops a guest when its context ends only if it compiled
		// checks into every loop and call, which makes QuickJS run up to
		// six times slower (fib(30): 1.38 s against 0.21 s). Profiled runs
		// stop at the meter's checkpoints instead. An unprofiled run
		// without a timeout is compiled without the checks, and an
		// interrupt ends the process by the signal's default action: it
		// has nothing to write, and while a guest computes without host
		// calls, Go's runtime may not run jsprof's own handler at all.
		opts.KeepOnContextDone = true
		job.DefaultSignals()
	}
	res, err := runner.Run(runCtx, wasm, opts)
	if errors.Is(err, cachedir.ErrDamaged) {
		// Nothing of the guest ran: clear the cache and compile afresh.
		warn := popts.Warn
		if warn == nil {
			warn = func(error) {}
		}
		warn(fmt.Errorf("%w; clearing it and compiling again", err))
		if cerr := job.Cache.Clear(); cerr != nil {
			warn(fmt.Errorf("clearing the cache %s: %w", job.Cache.Dir, cerr))
		}
		if opts.Cache, err = job.Cache.Open(); err == nil {
			res, err = runner.Run(runCtx, wasm, opts)
		}
	}
	stopProgress()
	if res.Uncached != nil && popts.Warn != nil {
		popts.Warn(fmt.Errorf("%w; ran uncached", res.Uncached))
	}
	if err != nil {
		if sess != nil {
			sess.Finished()
		}
		return nil, err
	}
	done := &Done{Guest: res, ExitCode: ExitCode(res), Function: function != nil, Input: recorded,
		Info: jsprofile.RunInfo{Export: res.Entry, MemoryBytes: res.MemoryBytes}}
	if sess != nil {
		done.Info.MemoryBytes = sess.GuestMemory(res.MemoryBytes)
	}
	guestOutput := guestErr.Bytes()
	if function != nil {
		info := &done.Info
		info.Provider, info.Codec, info.InputBytes = function.Namespace, function.Codec.String(), uint64(len(function.Input))
		out, err := function.Output()
		guestOutput = append(guestOutput, out.Logs...)
		info.OutputBytes = uint64(len(out.Output))
		info.Limits = shopify.Limits(function.ScaleFactor, info.InputBytes, info.OutputBytes)
		var werr error
		if done.Output, werr = shopify.WriteOutput(out, err, function.Codec, res.Trap != nil || res.ExitCode != 0, stdout, stderr); werr != nil {
			if job.Hooks.OutputError != nil {
				job.Hooks.OutputError(werr)
			}
			if done.ExitCode == 0 {
				done.ExitCode = 1
			}
		}
	}
	if sess == nil {
		return done, nil
	}
	// The guest has ended, however it ended. An interrupt that stopped
	// the guest has done its work: naming still runs. One that comes
	// after the guest ended skips it (and a second one ends jsprof).
	finishCtx := ctx
	if ctx.Err() != nil {
		finishCtx = context.WithoutCancel(ctx)
	}
	// The tables are for the reports and a function's summary.
	done.Outcome, err = sess.Finish(finishCtx, Run{Start: start, ExitCode: done.ExitCode, Trap: res.Trap, Info: done.Info,
		GuestOutput: guestOutput, ProfileOnly: job.ProfileOnly && function == nil})
	if err != nil {
		return nil, err
	}
	return done, nil
}

// Profile runs wasm profiled from start to end (Execute); ropts is the
// run as it would go unprofiled, its plugin linked already.
func Profile(ctx context.Context, wasm []byte, ropts runner.Options, opts Options) (*Outcome, runner.Result, error) {
	done, err := Execute(ctx, Job{Module: wasm, Guest: ropts, Profile: opts, NeedProfile: true})
	if err != nil {
		return nil, runner.Result{}, err
	}
	return done.Outcome, done.Guest, nil
}

// ReadProgram reads the job's module file into Module and Decoded, and
// its program's JS and source map (javy.ModuleProgram, sourcemap.FindMap
// with the map file given, --source-map) into Profile, before the run: a
// map that cannot be used is said before the guest runs, not after. The
// error is FindMap's warning; a module that cannot be read is left to
// Execute to say. When ctx is done first (the user's first signal),
// reading the map is abandoned part-way (FindMap looks at ctx every few
// thousand segments), the job left as it was, and Execute, given the same
// ctx, says the interruption.
func (j *Job) ReadProgram(ctx context.Context, sourceMap string) error {
	type read struct {
		wasm    []byte
		decoded *wasmcore.Module
		prog    sourcemap.Program
		smap    *sourcemap.Loaded
		err     error
	}
	done := make(chan read, 1)
	go func() {
		var r read
		var err error
		if r.wasm, r.decoded, err = link.ReadModule(j.ModulePath); err == nil {
			r.prog = javy.ModuleProgram(r.decoded, j.ModulePath, j.Profile.Source)
			r.smap, r.err = sourcemap.FindMap(ctx, sourceMap, r.prog)
		}
		done <- r
	}()
	select {
	case <-ctx.Done():
		return nil
	case r := <-done:
		if r.wasm != nil {
			j.Module, j.Decoded = r.wasm, r.decoded
			j.Profile.GeneratedText, j.Profile.SourceMap = r.prog.Text, r.smap
		}
		return r.err
	}
}
