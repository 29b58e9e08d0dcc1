package profiler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/merge/stacks"
	"github.com/jsprof/jsprof/internal/name/bytecode"
	"github.com/jsprof/jsprof/internal/name/naming"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// Mode is how a run is profiled.
type Mode string

// The profiling modes.
const (
	// Exact counts every executed Wasm instruction and charges it to the
	// JS function, its callers and the bytecode pc running at the time.
	Exact Mode = jsprofile.ModeExact
	// Sample records the full Wasm and JS stack every SampleEvery
	// instructions.
	Sample Mode = jsprofile.ModeSample
)

// DefaultSampleEvery is the default sampling period: about 10,000 samples
// per second of guest time (wazero runs QuickJS at roughly 10^10 Wasm
// instructions a second), a hundred times pprof's CPU rate, and few enough
// that walking deep stacks stays a small part of the cost
// (docs/performance.md).
const DefaultSampleEvery = 1_000_000

// DefaultWasmStackEvery is how often, at first, exact mode takes a Wasm
// stack to apportion its exact counts to Wasm frames (every new calling
// context also gets one); later the period grows with the count
// (meter.SetWasmStacks): about 6 stacks for a 120k-instruction Shopify
// Function, 50 for a million instructions, 190 for 17 million, 410 for
// 1.3 billion. A stack costs 1-2µs, most of it wazero's (a listener call
// and an unwind of the whole stack): at this rate the Wasm frames cost
// exact mode 0-15% on the fixture programs (docs/performance.md); run
// --wasm-stack-every takes them more often, for a finer split of a short
// run.
const DefaultWasmStackEvery = 20000

// Options configure a profiled run.
type Options struct {
	Mode        Mode
	SampleEvery uint64 // Sample mode; 0: DefaultSampleEvery
	// MaxInstructions stops the guest after that many Wasm instructions
	// (0: no limit); the run then ends with a *meter.LimitError trap.
	MaxInstructions uint64
	// Source is the JS file the program came from, shown in place of the
	// name Javy compiles every program as; "" reads it from the module
	// (jsprof build records it).
	Source string
	// SourceMap, when set, names the program's JS positions after the
	// files it was bundled from (sourcemap.Apply) in the profile written;
	// GeneratedText is the program's JS (the bundle), which the caller
	// checked the map against (sourcemap.Loaded.Check).
	SourceMap     *sourcemap.Loaded
	GeneratedText []byte
	// Warn hears what the profile will lack and why (an engine jsprof
	// cannot read the bytecode of, say); nil discards it.
	Warn func(error)
	// Cost is what one executed instruction costs: wasmcore.CostFuel
	// (wasmtime's fuel, as function-runner counts) or CostAll.
	Cost wasmcore.CostModel
	// Meter, when set, replaces the meter options the mode implies (tests
	// compare counting modes with it).
	Meter *meter.Options
	// CacheDir, when set, keeps each engine's analysis and instrumented
	// module there (prepared.go), beside wazero's compiled modules, so that
	// later runs of the same engine skip both.
	CacheDir string
	// NoWasmFrames leaves exact mode's profile without Wasm frames: no Wasm
	// stacks are taken (benchmarks measure what they cost with it).
	NoWasmFrames bool
	// WasmStackEvery is exact mode's first period between Wasm stacks
	// (0: DefaultWasmStackEvery); it grows with the run (meter.SetWasmStacks).
	WasmStackEvery uint64
	// ModulePath, when set, is the file the main module was read from: the
	// key of its prepared entry is remembered by the file's identity
	// (keymemo.go).
	ModulePath string
	// Decoded, when set, is the main module already decoded from the bytes
	// given (the command reads its imports first), so that it is not
	// decoded again. It is only read.
	Decoded *wasmcore.Module
	// CountWithoutInterpreter makes a run in which no module holds a JS
	// interpreter a count-only session (countonly.go) rather than a
	// *NoInterpreterError: a Shopify Function not written in JS still has
	// its export call counted, as function-runner counts it.
	CountWithoutInterpreter bool
	// CountOnly makes the run count the instructions of every module
	// (PrepareCount), whatever they hold: tests compare the two ways of
	// counting with it.
	CountOnly bool
}

// NoInterpreterError says that no module of the run holds a JS interpreter:
// the run can go on without a profile.
type NoInterpreterError struct {
	Module string
	Reason string
}

func (e *NoInterpreterError) Error() string {
	return fmt.Sprintf("%s: no JS interpreter found to profile: %s", e.Module, e.Reason)
}

// Session is one profiled run: the instrumented module, the meter's host
// side, and what naming needs. It serves one run.
type Session struct {
	name   string // the profiled module's file name
	opts   Options
	main   []byte // the main module to run (instrumented unless the plugin is)
	plugin []byte // the plugin to run, nil for a static module

	// engine and analysis are the module that holds the interpreter, as it
	// was, and its analysis; program and programReport the module that
	// carries the program's bytecode (the same for a static module; for a
	// dynamic one, the small module that imports the plugin).
	engine        *wasmcore.Module
	analysis      *dispatch.Report
	program       *wasmcore.Module
	programReport *dispatch.Report

	// plan is how the engine was instrumented: each run's meter is made
	// from it (arm).
	plan  *meter.Plan
	meter *meter.Meter
	// The measurement window (Configure's BeforeMain and Around): the
	// counts discarded before the main module's instantiation, the
	// results collected right after the entry call, and the sampled
	// profile of the window (sample mode).
	startup   uint64
	windowed  *costs.Results
	windowErr error
	window    func(jsprofile.Meta, stacks.Identity) (*profile.Profile, error)
	namer     *naming.Namer      // nil: functions named by address
	natives   *natives.Catalogue // nil: natives named by table index
	sampler   *stacks.Sampler    // Sample mode only
	// sym and wasmNames name the engine's Wasm functions (sampling, or
	// exact mode's Wasm frames).
	sym       *wasmcore.Symbolizer
	wasmNames map[uint32]string
	source    string
	// detached is the program taken out of the main module to prepare
	// and compile it (detach.go), put back into the instance before it
	// runs; nil when the module runs as it is. detachedBytes is how much
	// the memory grew for it.
	detached      *wasmcore.DetachedSegment
	detachedBytes uint64
	// counting is set when the session counts instructions only
	// (countonly.go): then there is no meter, analysis or naming.
	counting *counting
	done     chan struct{} // closed when the guest has ended
	// moduleCode counts a dynamic module's own code in exact mode; nil
	// for a static module, or sampling.
	moduleCode *moduleCode
	// facts are the engine's, found with its analysis or read back with
	// it from the prepared engine cache (prepared.go).
	facts *engineFacts
}

// Prepare instruments whichever of the main module and the plugin holds the
// interpreter (the main module first) and prepares naming. A module with no
// interpreter gives a *NoInterpreterError, or, with
// Options.CountWithoutInterpreter, a count-only session.
func Prepare(ctx context.Context, name string, main, plugin []byte, opts Options) (*Session, error) {
	if opts.CountOnly {
		return PrepareCount(ctx, name, main, plugin, opts)
	}
	if opts.Mode == "" {
		opts.Mode = Exact
	}
	if opts.Mode != Exact && opts.Mode != Sample {
		return nil, fmt.Errorf("profiling mode %q: want %s or %s", opts.Mode, Exact, Sample)
	}
	if opts.SampleEvery == 0 {
		opts.SampleEvery = DefaultSampleEvery
	}
	if opts.WasmStackEvery == 0 {
		opts.WasmStackEvery = DefaultWasmStackEvery
	}
	mopts := meter.Options{Sample: opts.Mode == Sample, Checkpoints: true, WasmStacks: opts.Mode == Exact && !opts.NoWasmFrames, Cost: opts.Cost}
	if opts.Meter != nil {
		mopts = *opts.Meter
	}
	s := &Session{name: name, opts: opts, main: main, plugin: plugin, done: make(chan struct{})}

	mainMod, mainReport, plan, err := s.prepareEngine(ctx, name, main, opts.Decoded, true, mopts)
	if err != nil {
		return nil, err
	}
	s.program, s.programReport = mainMod, mainReport
	switch {
	case mainReport.Dispatch != nil:
		s.engine, s.analysis = mainMod, mainReport
	case plugin != nil:
		pluginMod, pluginReport, pplan, err := s.prepareEngine(ctx, "plugin", plugin, nil, false, mopts)
		if err != nil {
			return nil, err
		}
		if pluginReport.Dispatch == nil {
			return s.countInstead(&NoInterpreterError{Module: name, Reason: mainReport.Reason + "; in the plugin: " + pluginReport.Reason})
		}
		s.engine, s.analysis, plan = pluginMod, pluginReport, pplan
		// The dynamic module's own code runs in the measured call too, and
		// function-runner counts it: both modes count it with wasmcore's
		// counter and add it as a bucket (moduleCode). The stops come
		// after, uncounted: they are jsprof's, not the guest's.
		per := s.opts.Meter != nil && s.opts.Meter.PerInstruction
		if s.main, err = countOnly(name, s.main, s.costModel(), per); err != nil {
			return nil, err
		}
		s.moduleCode = &moduleCode{}
		if s.main, err = addStops(name, s.main); err != nil {
			return nil, err
		}
	default:
		return s.countInstead(&NoInterpreterError{Module: name, Reason: mainReport.Reason})
	}
	s.plan = plan
	if plan.Sample || plan.WasmStacks {
		if s.sym, err = wasmcore.NewSymbolizer(s.engine); err != nil {
			return nil, err
		}
	}
	s.prepareNatives(plan)
	s.source = opts.Source
	if s.source == "" {
		s.source = javy.SourceOf(s.program)
	}
	s.arm()
	return s, nil
}

// arm makes what one run of the prepared module measures with: the meter
// (with its sampler when sampling) from the plan, and the namer.
func (s *Session) arm() {
	s.meter = meter.New(s.plan)
	s.meter.SetLimit(s.opts.MaxInstructions)
	switch {
	case s.plan.Sample:
		s.sampler = stacks.NewSampler(s.analysis.Dispatch.FunctionIndex, s.sym, s.opcodeNames())
		s.meter.SetSampling(s.opts.SampleEvery, s.sampler.Add)
		if s.plan.Natives != nil {
			s.sampler.SetNatives(s.plan.Natives.Func, s.wasmNames)
		} else {
			s.sampler.SetWasmNames(s.wasmNames)
		}
	case s.plan.WasmStacks:
		s.meter.SetWasmStacks(s.opts.WasmStackEvery)
	}
	s.prepareNamer()
}

// Fork is a session for another run of the same prepared module, in an
// instance of its own: what preparing found (the modules to run, the
// analysis, the engine's facts and names) is shared, read only; what a
// run measures with (the meter, sampler and namer) is new. Forks of one
// session may run at once. Prepare's warnings are not said again.
func (s *Session) Fork() *Session {
	c := &Session{name: s.name, opts: s.opts, main: s.main, plugin: s.plugin, engine: s.engine, analysis: s.analysis,
		program: s.program, programReport: s.programReport, plan: s.plan, natives: s.natives, sym: s.sym,
		wasmNames: s.wasmNames, source: s.source, detached: s.detached, facts: s.facts, done: make(chan struct{})}
	if s.counting != nil {
		c.counting = &counting{why: s.counting.why}
		return c
	}
	if s.moduleCode != nil {
		c.moduleCode = &moduleCode{}
	}
	c.opts.Warn = nil
	c.arm()
	c.opts.Warn = s.opts.Warn
	return c
}

// prepareEngine analyses a module (decoded already, unless decoded is
// nil) and, if it holds the interpreter, instruments it: into s.main when
// isMain, else s.plugin; plan is nil when it holds none. With
// Options.CacheDir, an engine prepared before by this jsprof with these
// options is read back instead (prepared.go); errors name the module.
func (s *Session) prepareEngine(ctx context.Context, what string, wasm []byte, decoded *wasmcore.Module, isMain bool, mopts meter.Options) (*wasmcore.Module, *dispatch.Report, *meter.Plan, error) {
	m := decoded
	if m == nil {
		var err error
		if m, err = wasmcore.Decode(wasm); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	// What is analysed, instrumented and compiled: the module, or the
	// module without its program (detach.go). m, as it was, is returned
	// for naming, which reads the program.
	prep := wasm
	var dm *wasmcore.Module // m without its program, when detached
	var detached *wasmcore.DetachedSegment
	key := "" // "": no cache
	var memo *keyMemo
	if isMain {
		memo = newKeyMemo(s.opts.CacheDir, s.opts.ModulePath, mopts, time.Now())
		if r, ok := memo.load(); ok && r.Segment < len(m.Data) && (r.Segment < 0 || m.Data[r.Segment].Mode == wasmcore.DataPassive) {
			key = r.Key
			if r.Segment >= 0 {
				detached = &wasmcore.DetachedSegment{Index: uint32(r.Segment), Bytes: m.Data[r.Segment].Init}
			}
		}
	}
	if key == "" {
		if isMain {
			dm, detached = detachProgram(m)
		}
		if s.opts.CacheDir != "" {
			key, _ = preparedKey(wasm, dm, mopts)
		}
		if key != "" {
			r := rememberedKey{Key: key, Segment: -1}
			if detached != nil {
				r.Segment = int(detached.Index)
			}
			memo.store(r)
		}
	}
	set := func(out []byte) error {
		if m.Start != nil {
			// Not cached so: a start function is rare in an engine.
			var err error
			if out, err = addStartStops(what, out); err != nil {
				return err
			}
		}
		if isMain {
			s.main, s.detached = out, detached
		} else {
			s.plugin = out
		}
		return nil
	}
	if key != "" {
		if out, p, ok := loadPrepared(s.opts.CacheDir, key); ok {
			if err := set(out); err != nil {
				return nil, nil, nil, err
			}
			s.facts = p.Facts
			return m, p.Report, p.Plan, nil
		}
	}
	if detached != nil && dm == nil {
		// The key was remembered, and the entry is gone: make the module
		// without its program after all.
		dm, detached = detachProgram(m)
	}
	pm := m
	if detached != nil {
		b, err := dm.Encode()
		if err != nil {
			detached = nil // prepared as it is, as when nothing is detached
		} else if pm, err = wasmcore.Decode(b); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", what, err)
		} else {
			prep = b
		}
	}
	_, r, err := analyze(ctx, what, prep, pm)
	if err != nil || r.Dispatch == nil {
		return m, r, nil, err
	}
	out, plan, err := instrument(what, prep, r, mopts)
	if err != nil {
		return nil, nil, nil, err
	}
	facts := factsOf(pm, r)
	if key != "" {
		storePrepared(s.opts.CacheDir, key, out, r, plan, facts)
	}
	if err := set(out); err != nil {
		return nil, nil, nil, err
	}
	s.facts = facts
	return m, r, plan, nil
}

// analyze decodes a module, unless decoded already, and finds its
// interpreter; errors name it.
func analyze(ctx context.Context, what string, wasm []byte, decoded *wasmcore.Module) (*wasmcore.Module, *dispatch.Report, error) {
	m := decoded
	if m == nil {
		var err error
		if m, err = wasmcore.Decode(wasm); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	r, err := dispatch.Analyze(ctx, m)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return m, r, nil
}

// instrument rewrites a copy of the module that holds the interpreter: the
// analysed module stays as it was, for naming and symbols, which refer to
// the original function indices.
func instrument(what string, wasm []byte, r *dispatch.Report, opts meter.Options) ([]byte, *meter.Plan, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	makeRoomForCounters(m)
	plan, err := meter.Instrument(m, r.Dispatch, withNatives(m, r, opts))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := m.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, plan, nil
}

// addStops gives the loops of a main module that is not the engine (a
// dynamic module: the meter counts its plugin) a stop when the run's
// context is done (meter.AddStops): without one, a loop of its own would
// outlive a timeout or an interrupt. A module without loops is returned
// as it is.
func addStops(what string, wasm []byte) ([]byte, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	changed, err := meter.AddStops(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !changed {
		return wasm, nil
	}
	out, err := m.Encode()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// addStartStops gives the loops of an instrumented engine's start
// function a checkpoint (meter.AddStartStops), so that a timeout or an
// interrupt stops it: it runs before the engine's own checkpoints can.
func addStartStops(what string, wasm []byte) ([]byte, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if changed, err := meter.AddStartStops(m); err != nil || !changed {
		return wasm, err
	}
	out, err := m.Encode()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// makeRoomForCounters lifts the maximum of a memory the module defines, so
// that the meter can grow it for its counters even when the module fixed
// its size (maximum = minimum): such a module could not be profiled at all.
// A 32-bit memory may then grow to 4 GiB; the guest sees the difference
// only if it relied on memory.grow failing at its maximum
// (docs/instruction-counting.md).
func makeRoomForCounters(m *wasmcore.Module) {
	const maxPages = 65536 // 4 GiB of 64 KiB pages
	for i := range m.Memories {
		l := &m.Memories[i].Limits
		if l.HasMax && !l.Is64 && !l.Shared && l.Max < maxPages {
			l.Max = maxPages
		}
	}
}

// prepareNamer parses the program's serialized bytecode for the engine.
// Where that fails (an engine or a format jsprof does not read), it warns
// once and functions are named by address.
func (s *Session) prepareNamer() {
	spec, err := s.engineFacts().spec()
	if err != nil {
		s.warn(fmt.Errorf("naming JS functions: %w", err))
		return
	}
	prog, err := bytecode.ProgramWithSpec(s.program, s.programReport, spec)
	if err != nil {
		s.warn(fmt.Errorf("naming JS functions: %w", err))
	}
	s.namer = naming.NewNamer(prog, spec)
}

func (s *Session) warn(err error) {
	if s.opts.Warn != nil {
		s.opts.Warn(err)
	}
}

// Main is the main module to run in place of the one given.
func (s *Session) Main() []byte { return s.main }

// Meter is the run's meter; nil when the session counts only.
func (s *Session) Meter() *meter.Meter { return s.meter }

// Configure hooks the session into a run: the plugin to load, the meter's
// host functions and start, composed with the hooks o has already (the
// session's run first, then the caller's). The meter stops the guest
// itself, at its checkpoints, on a limit, a timeout or an interrupt, so
// that its counters stay readable: wazero must not close the module first.
func (s *Session) Configure(o *runner.Options) {
	if o.Plugin != nil && s.plugin != nil {
		p := *o.Plugin
		p.Wasm = s.plugin
		o.Plugin = &p
	}
	if s.counting != nil {
		s.configureCount(o)
		return
	}
	o.Link = composeLink(s.meter.Link, o.Link)
	o.Context = composeContext(s.meter.Context, o.Context)
	o.Instantiated = composeInstantiated(s.Start, o.Instantiated)
	o.KeepOnContextDone = true
	// The profile covers what function-runner counts of a function: its
	// module's instantiation (a start section) and its entry call. What
	// ran before (instantiating and initializing the engine, a provider's
	// initialize and input) is discarded by Restart, and the results are
	// collected as soon as the call returns, before a provider's output is
	// read. Both are reported as phases beside the profile.
	restarted := false
	o.BeforeMain = chainBeforeMain(o.BeforeMain, func() error {
		if s.meter.Started() {
			var err error
			if s.startup, err = s.meter.Restart(); err != nil {
				return err
			}
			restarted = true
		}
		if s.sampler != nil {
			s.window = s.sampler.Window()
		}
		return nil
	})
	around := o.Around
	measured := func(ctx context.Context, call func(context.Context) error) error {
		// A static module is the instrumented one: the window starts
		// here, after what its own provider exports set up (a static
		// build of an in-memory provider's input).
		if !restarted {
			var err error
			if s.startup, err = s.meter.Restart(); err != nil {
				return err
			}
			if s.sampler != nil {
				s.window = s.sampler.Window()
			}
		}
		callErr := call(ctx)
		if s.sampler == nil {
			res, err := s.meter.Collect()
			if res == nil {
				return errors.Join(callErr, fmt.Errorf("collecting the measurements: %w", err))
			}
			s.moduleCode.add(res)
			s.windowed, s.windowErr = res, err
		} else {
			s.windowed, s.windowErr = s.meter.Collect()
			if s.windowed != nil {
				// Counted exactly, never sampled: its own sample, so that
				// the total is exact mode's.
				s.moduleCode.add(s.windowed)
				s.sampler.AddBucket(jsprofile.BucketModuleCode, s.moduleCode.counted())
			}
		}
		return callErr
	}
	o.Around = func(ctx context.Context, in runner.Instances, call func(context.Context) error) error {
		if around == nil {
			return measured(ctx, call)
		}
		return around(ctx, in, func(ctx context.Context) error { return measured(ctx, call) })
	}
}

// chainBeforeMain runs first (a provider's input, when set), then start
// (the measurement window's start): runner.Options.BeforeMain.
func chainBeforeMain(first func(context.Context, api.Module) error, start func() error) func(context.Context, api.Module) error {
	return func(ctx context.Context, plugin api.Module) error {
		if first != nil {
			if err := first(ctx, plugin); err != nil {
				return err
			}
		}
		return start()
	}
}

// composeLink links first's host modules, then then's (nil: none).
func composeLink(first, then func(context.Context, wazero.Runtime) ([]string, error)) func(context.Context, wazero.Runtime) ([]string, error) {
	if then == nil {
		return first
	}
	return func(ctx context.Context, rt wazero.Runtime) ([]string, error) {
		a, err := first(ctx, rt)
		if err != nil {
			return nil, err
		}
		b, err := then(ctx, rt)
		return append(a, b...), err
	}
}

// composeContext derives the run's context with first, then then (nil:
// none).
func composeContext(first, then func(context.Context) context.Context) func(context.Context) context.Context {
	if then == nil {
		return first
	}
	return func(ctx context.Context) context.Context { return then(first(ctx)) }
}

// composeInstantiated readies each instance with first, then then (nil:
// none).
func composeInstantiated(first, then func(context.Context, api.Module) error) func(context.Context, api.Module) error {
	if then == nil {
		return first
	}
	return func(ctx context.Context, mod api.Module) error {
		if err := first(ctx, mod); err != nil {
			return err
		}
		return then(ctx, mod)
	}
}

// Start readies an instance before anything of it runs (it fits
// runner.Options.Instantiated): a detached program is put back, and the
// meter's accounting state made. Instances other than the profiled module
// are left alone.
func (s *Session) Start(ctx context.Context, mod api.Module) error {
	if s.moduleCode != nil && !meter.Instrumented(mod) {
		if g, ok := mod.ExportedGlobal(wasmcore.InstructionCounterExport).(api.MutableGlobal); ok {
			s.moduleCode.counter = g
		}
	}
	// The meter first: it fixes the guest's view of its memory, so that
	// the pages the program is put back in are past it, as the meter's
	// own are (meter/memview.go), and the guest allocates as unprofiled.
	if err := s.meter.Start(ctx, mod); err != nil {
		return err
	}
	if s.detached != nil {
		addr, grew, err := runner.RestoreDetached(mod, s.detached)
		if err != nil {
			return err
		}
		s.detachedBytes += grew
		if s.meter != nil && grew > 0 {
			s.meter.HostPages(addr, addr+uint32(grew))
		}
	}
	return nil
}

// GuestMemory is the part of an instance's linear memory of total bytes
// the guest used: what the meter reserved for its counters and what a
// detached program took are the profiler's. (function-runner reports the
// memory of an unprofiled run: this is it.)
func (s *Session) GuestMemory(total uint64) uint64 {
	if s.counting != nil {
		return total // a counter is a global: it takes no memory
	}
	if guest := s.meter.GuestBytes(); guest > 0 {
		// The guest's own view of its memory (meter/memview.go): the
		// meter's pages and the gap before them are not in it.
		return min(total, guest)
	}
	own := s.meter.ReservedBytes() + s.detachedBytes
	if own > total {
		return 0
	}
	return total - own
}

// Instructions is the count at the meter's last checkpoint, for progress;
// 0 when counting only, whose counters are not read while the guest runs.
func (s *Session) Instructions() uint64 {
	if s.counting != nil {
		return 0
	}
	return s.meter.Instructions()
}

// Finished says the guest has ended: requests waiting on Serve answer.
func (s *Session) Finished() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// Run describes how the guest's run went, for the profile's comments.
type Run struct {
	Start time.Time
	// ExitCode is jsprof's exit code for the run.
	ExitCode int
	Trap     error // nil when the guest did not trap
	// Info is what the caller knows of the run beside the profile (the
	// export run, memory, a Shopify Function's provider and sizes);
	// Finish adds the phases it measured.
	Info jsprofile.RunInfo
	// GuestOutput is the last of what the guest wrote on stderr (a Tail's)
	// and a provider's logs: where an engine that trapped on an uncaught
	// JS error told it (Outcome.Throw).
	GuestOutput []byte
	// ProfileOnly leaves Outcome.Tables nil: the caller writes the
	// profile alone. The tables read the whole profile again (0.5 s of a
	// million-stack profile's post-run work, 2-3 ms of a sampled fib(30)'s).
	ProfileOnly bool
}

// Outcome is what a profiled run produced.
type Outcome struct {
	Profile *profile.Profile
	Tables  *report.Tables // nil with Run.ProfileOnly
	Results *costs.Results // nil when the session counted only
	// Warnings say what the profile lacks (unreadable counters, a run too
	// short for a sample).
	Warnings []error
	// Throw is the uncaught JS error the guest trapped on, with the JS
	// stack at the throw from the profile's own stacks; nil when the run
	// did not trap, or its output told no error. The profile carries it.
	Throw *jsprofile.Throw
}

// Finish collects the measurements once the guest has ended and builds
// the profile and its tables. However the guest ended, what was measured
// is kept; what could not be read is said in Warnings. When ctx is done
// (the user interrupted the run), before naming or while it runs, naming,
// the one step whose cost is not bounded by the measurements' size, is
// skipped or abandoned: functions keep their addresses, and the profile
// is written at once. Counters the guest wrote over (meter.ErrTampered)
// leave a profile that still adds up, with a warning: what they cannot
// place is charged to jsprofile.BucketTampered.
func (s *Session) Finish(ctx context.Context, run Run) (*Outcome, error) {
	s.Finished()
	if s.counting != nil {
		return s.finishCount(run)
	}
	results, err := s.windowed, s.windowErr
	if results == nil {
		// The guest never reached its entry call (or ended in its
		// instantiation): what ran is all there is.
		if results, err = s.meter.Collect(); errors.Is(err, meter.ErrNotStarted) {
			// Stopped in a start function, before the engine's own code:
			// an empty profile says how the run ended.
			results, err = &costs.Results{}, errors.New("the guest was stopped before its engine started: nothing was measured")
		} else if results == nil {
			return nil, fmt.Errorf("collecting the measurements: %w", err)
		}
	} else {
		// What ran after the call (a provider's output) is counted on top
		// of it.
		run.Info.FinishInstructions = s.meter.Count() - (results.TotalInstructions - s.moduleCode.counted())
		run.Info.StartupInstructions = s.startup
	}
	run.Info.Limits = overLimits(run.Info.Limits, results.TotalInstructions)
	out := &Outcome{Results: results}
	if err != nil {
		out.Warnings = append(out.Warnings, err)
	}
	if namer := s.namer; namer != nil {
		if mem := s.meter.Memory(); mem != nil {
			namer.UseMemory(mem)
		}
		if !learn(ctx, namer, results.Functions) {
			out.Warnings = append(out.Warnings, errors.New("interrupted: JS functions are named by their bytecode address"))
			s.namer = nil
		}
	}
	meta := s.meta(run)
	if s.sampler != nil {
		meta.TotalInstructions = results.TotalInstructions
		meta.SampleEvery = s.opts.SampleEvery
		if w := fewSamples(s.sampler.Taken(), results.TotalInstructions, s.opts.SampleEvery); w != nil {
			out.Warnings = append(out.Warnings, w)
		}
		if s.window != nil {
			out.Profile, err = s.window(meta, s.identity())
		} else {
			out.Profile, err = s.sampler.Profile(meta, s.identity())
		}
	} else {
		id := s.identity()
		if s.namer != nil {
			if w := s.selfCheck(results, id, &meta); w != nil {
				out.Warnings = append(out.Warnings, w)
			}
		}
		out.Profile, err = stacks.ExactProfile(results, meta, s.opcodeNames(), id, stacks.WasmNames{Sym: s.sym, Extra: s.wasmNames})
	}
	if err != nil {
		return nil, err
	}
	if err := s.mapPositions(out.Profile); err != nil {
		return nil, err
	}
	if run.Trap != nil {
		if out.Throw = throwOf(out.Profile, run.GuestOutput); out.Throw != nil {
			jsprofile.SetThrow(out.Profile, out.Throw)
		}
	}
	if run.ProfileOnly {
		return out, nil
	}
	if out.Tables, err = report.FromProfile(out.Profile); err != nil {
		return nil, err
	}
	return out, nil
}

// minRankSamples is how many samples a sampled run needs before its
// functions can be ranked by their samples: with n samples, a share's
// error is about 1/sqrt(n) of the run, 10% at 100.
const minRankSamples = 100

// fewSamples is the warning for a sampled run with no samples, or too few
// to rank functions (minRankSamples): how many it took, and the
// --sample-every that takes 1,000 to 2,000, and how many it takes.
func fewSamples(taken int, total, every uint64) error {
	if taken >= minRankSamples {
		return nil
	}
	rate := suggestedEvery(total)
	if taken == 0 {
		return fmt.Errorf("no samples: the guest ran only %d Wasm instructions, and a sample comes about every %d (--sample-every); --sample-every %d takes about %d, --mode exact measures short runs exactly",
			total, every, rate, total/rate)
	}
	return fmt.Errorf("only %d samples (one about every %d Wasm instructions, --sample-every): too few to rank functions, one sample can make a function look like %.1f%% of the run; --sample-every %d takes about %d, --mode exact counts every instruction",
		taken, every, 100/float64(taken), rate, total/rate)
}

// suggestedEvery is a round sampling period giving 1,000 to 2,000 samples
// of a run of total instructions (fewer when it has fewer than 1,000
// instructions): one significant digit, at least 1.
func suggestedEvery(total uint64) uint64 {
	n := total / 1000
	if n < 1 {
		return 1
	}
	p := uint64(1)
	for n >= 10 {
		n, p = n/10, p*10
	}
	return n * p
}

// selfCheck verifies the measured functions against the engine's own
// data (naming.Namer.Check) and writes the outcome into meta, for the
// profile's comments and the reports' marked rows; it returns the warning
// to give when some function fails, nil otherwise.
func (s *Session) selfCheck(results *costs.Results, id stacks.Identity, meta *jsprofile.Meta) error {
	failed, checked := s.namer.Check(results.Functions)
	meta.Checked = checked
	if len(failed) == 0 {
		return nil
	}
	var names []string
	for _, d := range failed {
		f := results.Functions[d.Function]
		name, file, line, col := id.Function(f)
		meta.CheckFailures = append(meta.CheckFailures, jsprofile.CheckFailure{
			Function: jsprofile.JSFrameAt(name, file, line, col, line, col, f.Address, 0).SystemName, Why: d.Why})
		if len(names) < 3 {
			names = append(names, fmt.Sprintf("%s (%s)", name, d.Why))
		}
	}
	if len(failed) > len(names) {
		names = append(names, fmt.Sprintf("%d more", len(failed)-len(names)))
	}
	return fmt.Errorf("self-check: the engine contradicts the measurement of %d of %d JS functions, whose opcodes and lines are not to be trusted (marked ! in reports): %s",
		len(failed), checked, strings.Join(names, "; "))
}

// learn has namer learn the run's functions (naming.Namer.Learn), unless
// ctx is done first, before or while it does: then it returns false at
// once, and the Learn under way goes on, abandoned, with a namer nothing
// uses any more. Learn's cost grows with the program, not only with the
// measurements, so an interrupt while it runs must not wait for it.
func learn(ctx context.Context, namer *naming.Namer, fs []costs.FunctionCost) bool {
	if ctx.Err() != nil {
		return false
	}
	if ctx.Done() == nil {
		namer.Learn(fs)
		return true
	}
	learned := make(chan struct{})
	go func() {
		defer close(learned)
		namer.Learn(fs)
	}()
	select {
	case <-learned:
		return true
	case <-ctx.Done():
		return false
	}
}

// meta describes the run for the profile's comments (the engine's part
// only when an analysis found one: not when counting only).
func (s *Session) meta(run Run) jsprofile.Meta {
	m := jsprofile.Meta{
		Module:    s.name,
		ExitCode:  &run.ExitCode,
		Start:     run.Start,
		CostModel: s.costModel().String(),
		Run:       run.Info,
	}
	if !run.Start.IsZero() {
		m.Duration = time.Since(run.Start)
	}
	if s.analysis != nil {
		m.Engine = s.engineInfo()
		for _, u := range s.analysis.Engine.UncertainOpcodes {
			m.UncertainOpcodes = append(m.UncertainOpcodes, u.Opcode)
		}
	}
	if run.Trap != nil {
		m.Trap = strings.TrimSuffix(cli.FirstLine(run.Trap.Error()), " (recovered by wazero)")
	}
	return m
}

func (s *Session) costModel() wasmcore.CostModel {
	if s.opts.Meter != nil {
		return s.opts.Meter.Cost
	}
	return s.opts.Cost
}

func (s *Session) engineInfo() jsprofile.EngineInfo {
	e := s.analysis.Engine
	info := jsprofile.EngineInfo{Family: e.Family, Releases: e.Releases}
	if len(e.OpcodeNames) > 0 {
		info.OpcodeNamesSource = e.OpcodeNamesSource
	}
	return info
}

func (s *Session) opcodeNames() stacks.OpcodeNamer {
	return stacks.OpcodeNamer(s.analysis.Engine.OpcodeNames)
}

// mapPositions names the profile's JS positions of the program after its
// source map, when there is one.
func (s *Session) mapPositions(p *profile.Profile) error {
	if s.opts.SourceMap == nil {
		return nil
	}
	name := s.source
	if name == "" {
		name = javy.CompiledName
	}
	if _, err := sourcemap.Apply(p, *s.opts.SourceMap, sourcemap.NewGenerated(name, s.opts.GeneratedText)); err != nil {
		return fmt.Errorf("source map %s: %w", s.opts.SourceMap.From, err)
	}
	return nil
}

// identity names the measured functions.
func (s *Session) identity() stacks.Identity {
	if s.namer == nil {
		return s.nativeIdentity(stacks.AddressIdentity{})
	}
	var id stacks.Identity = s.namer.Identity()
	if s.source != "" {
		id = stacks.RenameFile(id, javy.CompiledName, s.source)
	}
	return s.nativeIdentity(id)
}

// Serve serves the running guest's sampled profile at
// /debug/pprof/profile?seconds=N, as net/http/pprof serves a CPU profile:
// the samples of the next N seconds (default 30), or until the guest ends.
// It returns the address listened on (a port 0 chosen).
func (s *Session) Serve(addr string) (listening string, stop func(), err error) {
	if s.counting != nil {
		return "", nil, errors.New("serving a profile needs a JS interpreter to sample: this run counts its instructions only")
	}
	if s.sampler == nil {
		return "", nil, errors.New("serving a profile needs sample mode")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		seconds := 30
		if v := r.URL.Query().Get("seconds"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				http.Error(w, "seconds: want a positive integer", http.StatusBadRequest)
				return
			}
			seconds = n
		}
		window := s.sampler.Window()
		began := time.Now()
		select {
		case <-time.After(time.Duration(seconds) * time.Second):
		case <-s.done:
		case <-r.Context().Done():
		}
		meta := s.meta(Run{Start: began})
		meta.ExitCode = nil // still running
		meta.SampleEvery = s.opts.SampleEvery
		prof, err := window(meta, s.identity())
		if err == nil {
			err = s.mapPositions(prof)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="profile"`)
		jsprofile.Write(w, prof)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return ln.Addr().String(), func() {
		// Let requests waiting for the guest's end write their profile.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
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

// moduleCode is the count of a dynamic module's own instructions in the
// measured window: its instantiation and export, around the plugin's code
// the meter counts.
type moduleCode struct {
	counter api.MutableGlobal // wasmcore's counter in the module's instance
	count   uint64            // what the call ran, once added
}

// add charges what the module's own code ran, from its instantiation
// (its counter starts at 0 there, as function-runner's window does) to
// the call's return, to jsprofile.BucketModuleCode, on top of the meter's
// results. A nil moduleCode (a static module) does nothing, as do its
// other methods.
func (c *moduleCode) add(res *costs.Results) {
	if c == nil || c.counter == nil {
		return
	}
	c.count = c.counter.Get()
	if c.count == 0 {
		return
	}
	res.TotalInstructions += c.count
	res.Buckets = append(res.Buckets, costs.BucketCost{Name: jsprofile.BucketModuleCode, Instructions: c.count})
}

// counted is what add added.
func (c *moduleCode) counted() uint64 {
	if c == nil {
		return 0
	}
	return c.count
}
