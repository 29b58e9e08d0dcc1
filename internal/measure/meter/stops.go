package meter

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/wasmcore"
)

// HostStop is the host function that AddStops calls at every loop head of
// a module the meter does not count: it stops the guest once the run's
// context is done.
const HostStop = "stop"

// AddStops rewrites a module that runs beside the instrumented engine
// without being counted (a dynamic Javy module, which imports its
// plugin) so that every loop calls HostStop at its head: a timeout or an
// interrupt then stops the guest there too. Nothing else would. The
// meter's checkpoints are in the engine's code, and wazero, told not to
// close the module on a done context (closing would lose the counters),
// compiles no checks of its own: a module that loops in its own code, on
// nothing or on host calls that return at once (a stdin at its end, one
// that returns an error once the run is stopped), would outlive
// --timeout and the first SIGINT. Javy's own dynamic modules have no
// loop: they are returned as they are, with changed false.
//
// m is the decoded module, which is rewritten; errors name the function.
func AddStops(m *wasmcore.Module) (changed bool, err error) {
	var looping []int
	for i := range m.Functions {
		at, err := loopHeads(m, i)
		if err != nil {
			return false, err
		}
		if len(at) > 0 {
			looping = append(looping, i)
		}
	}
	if len(looping) == 0 {
		return false, nil
	}
	stop := m.AddImportFunc(HostModule, HostStop, m.AddType(wasmcore.FuncType{}))
	for _, i := range looping {
		// Read again: AddImportFunc renumbered the calls, which may have
		// moved offsets where an index grew by a byte.
		if err := callAtLoopHeads(m, i, stop); err != nil {
			return false, err
		}
	}
	return true, nil
}

// AddStartStops rewrites an instrumented engine (Instrument's output)
// whose module has a start function so that the start function calls the
// meter's checkpoint first. The start function runs while the module is
// instantiated, before anything else of it and before Start makes the
// meter's state: until then the engine's checkpoints (at every loop head
// and recursion head, Instrument) are disarmed, their next checkpoint at
// the counter's maximum. That first call arms them (Meter's checkpoint
// before Start, armEarly): from the start function's first instruction,
// every loop it runs, in its own body or in the functions it calls, is
// stopped by the instruction limit, a timeout or an interrupt as the
// export call's are. It costs one host call per instantiation, and
// nothing is counted differently: the checkpoints are not counted. The
// checkpoint is one of the engine's imports already: no index changes,
// and the meter's plan still holds. changed is false for a module
// without a start function of its own (none, or an imported one).
func AddStartStops(m *wasmcore.Module) (changed bool, err error) {
	imported := m.NumImportedFuncs()
	if m.Start == nil || *m.Start < imported {
		return false, nil
	}
	checkpoint, found, fn := uint32(0), false, uint32(0)
	for _, im := range m.Imports {
		if im.Kind != wasmcore.ExternFunc {
			continue
		}
		if im.Module == HostModule && im.Name == HostCheckpoint {
			checkpoint, found = fn, true
		}
		fn++
	}
	if !found {
		return false, errors.New("meter: the module is not instrumented: it imports no checkpoint")
	}
	i := int(*m.Start - imported)
	call := wasmcore.AppendInstr(nil, wasmcore.Instr{Op: wasmcore.OpCall, Index: checkpoint})
	if m.Functions[i].Body, err = wasmcore.EditBody(m.Functions[i].Body, []wasmcore.BodyEdit{{At: 0, Insert: call}}); err != nil {
		return false, fmt.Errorf("meter: start function %d: %w", *m.Start, err)
	}
	return true, nil
}

// loopHeads are the offsets in defined function i's body just after each
// loop instruction.
func loopHeads(m *wasmcore.Module, i int) ([]uint32, error) {
	var at []uint32
	ir := wasmcore.NewInstrReader(m.Functions[i].Body)
	for {
		in, ok, err := ir.Next()
		if err != nil {
			return nil, fmt.Errorf("meter: function %d: %w", m.NumImportedFuncs()+uint32(i), err)
		}
		if !ok {
			return at, nil
		}
		if in.Op == wasmcore.OpLoop {
			at = append(at, in.Offset+in.Len)
		}
	}
}

// callAtLoopHeads inserts a call of function fn at every loop head of
// defined function i.
func callAtLoopHeads(m *wasmcore.Module, i int, fn uint32) error {
	at, err := loopHeads(m, i)
	if err != nil {
		return err
	}
	call := wasmcore.AppendInstr(nil, wasmcore.Instr{Op: wasmcore.OpCall, Index: fn})
	edits := make([]wasmcore.BodyEdit, len(at))
	for k, a := range at {
		edits[k] = wasmcore.BodyEdit{At: a, Insert: call}
	}
	if m.Functions[i].Body, err = wasmcore.EditBody(m.Functions[i].Body, edits); err != nil {
		return fmt.Errorf("meter: function %d: %w", m.NumImportedFuncs()+uint32(i), err)
	}
	return nil
}

// stop is HostStop: it ends the guest's call with the context's cause once
// the context is done, as a checkpoint does, leaving the modules readable,
// and with a *LimitError at the instruction limit (SetLimit), which counts
// here what the engine and the calling module, by its own counter
// (wasmcore.InstructionCounterExport, a dynamic module's), have run.
func (mt *Meter) stop(ctx context.Context, caller api.Module, _ []uint64) {
	if ctx.Err() != nil {
		panic(context.Cause(ctx))
	}
	if mt.limit == 0 {
		return
	}
	var count uint64
	if g := caller.ExportedGlobal(wasmcore.InstructionCounterExport); g != nil {
		count = g.Get()
	}
	if mt.mod != nil {
		count += mt.mod.ExportedGlobal(mt.plan.Counter).Get()
	}
	if count >= mt.limit {
		panic(&LimitError{Limit: mt.limit})
	}
}
