package profiler

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// A run with no JS interpreter to instrument (a Shopify Function written
// against the Wasm API, in Rust or Zig) still has the count function-runner
// reports: the fuel its export call burns, in the function and in its
// provider alike. A count-only session instruments every module of the run
// with wasmcore's instruction counter alone, under the run's cost model,
// and measures the window Configure's does for JS: the counters are zeroed
// just before the function module is instantiated and read just after its
// export call.

// errCountOnly is why a session made by PrepareCount counts only.
var errCountOnly = errors.New("counting instructions only, as asked")

// counting is a count-only session's state.
type counting struct {
	// why the session counts only: a *NoInterpreterError, or errCountOnly.
	why error
	// instances are the run's instances that count, in the order they
	// were instantiated (the plugin, then the main module).
	instances []api.Module
	// call is the export call's count, once it returned; called says it
	// did (returned or trapped).
	call   uint64
	called bool
}

// PrepareCount prepares a run that counts the instructions of every module
// (main, and plugin when not nil) under opts.Cost, and makes no profile of
// JS, whatever the modules hold. Options.Meter, when set, gives the cost
// model and PerInstruction (tests compare the two ways of counting).
func PrepareCount(ctx context.Context, name string, main, plugin []byte, opts Options) (*Session, error) {
	s := &Session{name: name, opts: opts, main: main, plugin: plugin, done: make(chan struct{})}
	return s.prepareCount(errCountOnly)
}

// countInstead makes s a count-only session when its options ask for one
// where no interpreter was found; else it returns why not as the error.
func (s *Session) countInstead(none *NoInterpreterError) (*Session, error) {
	if !s.opts.CountWithoutInterpreter {
		return nil, none
	}
	return s.prepareCount(none)
}

func (s *Session) prepareCount(why error) (*Session, error) {
	per := s.opts.Meter != nil && s.opts.Meter.PerInstruction
	var err error
	if s.main, err = countOnly(s.name, s.main, s.costModel(), per); err != nil {
		return nil, err
	}
	if s.plugin != nil {
		if s.plugin, err = countOnly("plugin", s.plugin, s.costModel(), per); err != nil {
			return nil, err
		}
	}
	s.counting = &counting{why: why}
	return s, nil
}

// countOnly returns wasm with wasmcore's instruction counter in every
// function and nothing else; errors name the module.
func countOnly(what string, wasm []byte, cost wasmcore.CostModel, perInstruction bool) ([]byte, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := m.CountInstructions(wasmcore.CountOptions{Cost: cost, PerInstruction: perInstruction}); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := m.Encode()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// CountOnly is why the session counts instructions without profiling JS
// (PrepareCount, Options.CountWithoutInterpreter); nil when it profiles JS.
func (s *Session) CountOnly() error {
	if s.counting == nil {
		return nil
	}
	return s.counting.why
}

// configureCount hooks a count-only session into a run. Unlike the meter,
// it has no checkpoints to stop the guest at: a timeout or an interrupt is
// left to wazero, which closes the module when the run's context ends.
func (s *Session) configureCount(o *runner.Options) {
	c := s.counting
	c.instances, c.call, c.called = nil, 0, false
	o.Instantiated = composeInstantiated(func(_ context.Context, mod api.Module) error {
		if mod.ExportedGlobal(wasmcore.InstructionCounterExport) != nil {
			c.instances = append(c.instances, mod)
		}
		return nil
	}, o.Instantiated)
	o.BeforeMain = chainBeforeMain(o.BeforeMain, func() error {
		var err error
		s.startup, err = c.restart()
		return err
	})
	around := o.Around
	measured := func(ctx context.Context, call func(context.Context) error) error {
		callErr := call(ctx)
		c.call, c.called = c.sum(), true
		return callErr
	}
	o.Around = func(ctx context.Context, in runner.Instances, call func(context.Context) error) error {
		if around == nil {
			return measured(ctx, call)
		}
		return around(ctx, in, func(ctx context.Context) error { return measured(ctx, call) })
	}
}

// sum is the instructions the run's instances have counted.
func (c *counting) sum() uint64 {
	var n uint64
	for _, mod := range c.instances {
		if g := mod.ExportedGlobal(wasmcore.InstructionCounterExport); g != nil {
			n += g.Get()
		}
	}
	return n
}

// restart zeroes the counters, between calls into the instances, and
// returns what they had counted.
func (c *counting) restart() (uint64, error) {
	n := c.sum()
	for _, mod := range c.instances {
		g, ok := mod.ExportedGlobal(wasmcore.InstructionCounterExport).(api.MutableGlobal)
		if !ok {
			return 0, fmt.Errorf("the instruction counter of %s is not a mutable global", mod.Name())
		}
		g.Set(0)
	}
	return n, nil
}

// finishCount makes a count-only session's profile: one stack, the
// jsprofile.BucketWasm frame, holding the export call's count (or, when the guest
// never reached the call, all that ran).
func (s *Session) finishCount(run Run) (*Outcome, error) {
	c := s.counting
	total := c.sum()
	if c.called {
		run.Info.StartupInstructions = s.startup
		run.Info.FinishInstructions = total - c.call
		total = c.call
	}
	run.Info.Limits = overLimits(run.Info.Limits, total)
	meta := s.meta(run)
	meta.Mode, meta.TotalInstructions = jsprofile.ModeExact, total
	b := jsprofile.NewBuilder(meta)
	if total > 0 {
		b.Add([]jsprofile.Frame{jsprofile.BucketFrame(jsprofile.BucketWasm)}, int64(total), 0, 0)
	}
	prof, err := b.Profile()
	if err != nil {
		return nil, err
	}
	tables, err := report.FromProfile(prof)
	if err != nil {
		return nil, err
	}
	return &Outcome{Profile: prof, Tables: tables}, nil
}

// overLimits is limits (a copy: the caller's stays as it was) with the
// instructions flag set from the export call's count; nil for nil.
func overLimits(limits *jsprofile.Limits, instructions uint64) *jsprofile.Limits {
	if limits == nil {
		return nil
	}
	l := *limits
	l.InstructionsOver = instructions > l.Instructions
	return &l
}
