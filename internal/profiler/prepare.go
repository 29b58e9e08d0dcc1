package profiler

import (
	"context"
	"fmt"
	"time"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/name/bytecode"
	"github.com/jsprof/jsprof/internal/name/naming"
	"github.com/jsprof/jsprof/internal/profiler/enginecache"
	"github.com/jsprof/jsprof/wasmcore"
)

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
	var memo *enginecache.KeyMemo
	if isMain {
		memo = enginecache.NewKeyMemo(s.opts.CacheDir, s.opts.ModulePath, mopts, time.Now())
		if r, ok := memo.Load(); ok && r.Segment < len(m.Data) && (r.Segment < 0 || m.Data[r.Segment].Mode == wasmcore.DataPassive) {
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
			key, _ = enginecache.Key(wasm, dm, mopts)
		}
		if key != "" {
			r := enginecache.Remembered{Key: key, Segment: -1}
			if detached != nil {
				r.Segment = int(detached.Index)
			}
			memo.Store(r)
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
		if out, p, ok := enginecache.Load(s.opts.CacheDir, key); ok {
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
	facts := enginecache.FactsOf(pm, r)
	if key != "" {
		enginecache.Store(s.opts.CacheDir, key, out, r, plan, facts)
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

// addStartStops has an instrumented engine's start function call the
// meter's checkpoint first (meter.AddStartStops), which arms the
// engine's checkpoints: the instruction limit, a timeout or an interrupt
// then stop a loop anywhere in what the start function runs, which runs
// before the meter's Start.
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
	spec, err := s.engineFacts().SpecFound()
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

// engineFacts returns the engine's facts, found now if prepareEngine did
// not find them or read them back.
func (s *Session) engineFacts() *enginecache.Facts {
	if s.facts == nil {
		s.facts = enginecache.FactsOf(s.engine, s.analysis)
	}
	return s.facts
}
