package profiler

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/merge/stacks"
	"github.com/jsprof/jsprof/internal/name/naming"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/profiler/enginecache"
	"github.com/jsprof/jsprof/internal/run/javy"
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
	// Off runs the module as it is, unprofiled (a Job's mode only).
	Off Mode = jsprofile.ModeOff
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
	return fmt.Sprintf("%s holds no JS interpreter to profile (%s)", e.Module, strings.ReplaceAll(e.Reason, "no interpreter: ", ""))
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
	facts *enginecache.Facts
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
