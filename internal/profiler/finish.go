package profiler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/merge/stacks"
	"github.com/jsprof/jsprof/internal/name/bytecode"
	"github.com/jsprof/jsprof/internal/name/naming"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/name/throw"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

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
		if out.Throw = throw.Find(out.Profile, run.GuestOutput); out.Throw != nil {
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
		m.Engine.Code, m.Program = bytecode.Identities(s.engine, s.program, s.programReport)
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
