package profiler

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

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
