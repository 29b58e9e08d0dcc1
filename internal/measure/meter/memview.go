package meter

import (
	"fmt"

	"github.com/jsprof/jsprof/wasmcore"
)

// The guest's view of its memory. The meter keeps its counters in the
// guest's own linear memory, in pages it grows it by. A guest that grows
// its memory itself would then get pages past the meter's rather than
// right after its own heap, and its allocator would take another path (a
// new heap segment) than in an unprofiled run: more instructions than
// wasmtime counts. So the instrumented module sees a memory of its own
// size: memory.size and memory.grow on memory 0 in its functions read and
// move a global (exportGuestPages), within a gap of pages the host leaves
// between the guest's memory and its first reservation
// (Meter.reserve). The pages of the gap are already there and were never
// written: zero, as grown pages are. Only a guest that outgrows the gap
// grows the real memory, past the meter's pages, as it would without the
// gap.
const (
	exportGuestPages = "jsprof.guest_pages"
	exportGuestLimit = "jsprof.guest_limit"
	// exportGuestHole counts the pages of the gap a guest left unused when
	// it outgrew it: from then on they sit inside its memory's size, with
	// the meter's pages, and are not its own.
	exportGuestHole = "jsprof.guest_hole"
)

// guestGapPages is how far the guest may grow before it outgrows the gap:
// 256 MiB of address space, committed but never touched (the runner
// reserves memories up to their maximum: growing is an mprotect).
const guestGapPages = 4096

// virtualizeMemory rewrites memory.size and memory.grow of memory 0 in the
// module's first funcs defined functions (its own, not the meter's) to use
// the guest's page count, and returns the index of the function that grows
// it. It adds the globals the host sets at Start.
func virtualizeMemory(m *wasmcore.Module, g *globals, funcs int) error {
	pages := g.add(exportGuestPages, wasmcore.ValI32)
	limit := g.add(exportGuestLimit, wasmcore.ValI32)
	hole := g.add(exportGuestHole, wasmcore.ValI32)
	// grow(n) -> old: within the gap, move the guest's count; past it, grow
	// the real memory and let the guest see all of it from then on.
	const n, old = 0, 1
	body := code(
		lget(n), gget(limit), gget(pages), op(wasmcore.OpI32Sub), op(wasmcore.OpI32GtU),
		ifThen(),
		lget(n), wasmcore.Instr{Op: wasmcore.OpMemoryGrow}, ltee(old),
		i32c(-1), op(wasmcore.OpI32Eq),
		ifThen(), i32c(-1), op(wasmcore.OpReturn), end(),
		gget(hole), gget(limit), gget(pages), op(wasmcore.OpI32Sub), op(wasmcore.OpI32Add), gset(hole),
		lget(old), lget(n), op(wasmcore.OpI32Add), gset(pages),
		gget(pages), gset(limit),
		lget(old), op(wasmcore.OpReturn),
		end(),
		gget(pages), ltee(old), lget(n), op(wasmcore.OpI32Add), gset(pages),
		lget(old),
		end(),
	)
	grow := m.AddFunction(wasmcore.Function{
		Type:   m.AddType(wasmcore.FuncType{Params: []wasmcore.ValType{wasmcore.ValI32}, Results: []wasmcore.ValType{wasmcore.ValI32}}),
		Locals: []wasmcore.Local{{Count: 1, Type: wasmcore.ValI32}},
		Body:   body,
	})
	for i := range funcs {
		f := &m.Functions[i]
		var edits []wasmcore.BodyEdit
		ir := wasmcore.NewInstrReader(f.Body)
		for {
			in, ok, err := ir.Next()
			if err != nil {
				return fmt.Errorf("meter: function %d: %w", m.NumImportedFuncs()+uint32(i), err)
			}
			if !ok {
				break
			}
			if in.Index != 0 {
				continue // another memory: not the meter's
			}
			switch in.Op {
			case wasmcore.OpMemorySize:
				edits = append(edits, wasmcore.BodyEdit{At: in.Offset, Remove: in.Len, Insert: code(gget(pages))})
			case wasmcore.OpMemoryGrow:
				edits = append(edits, wasmcore.BodyEdit{At: in.Offset, Remove: in.Len, Insert: code(call(grow))})
			}
		}
		if len(edits) == 0 {
			continue
		}
		var err error
		if f.Body, err = wasmcore.EditBody(f.Body, edits); err != nil {
			return fmt.Errorf("meter: function %d: %w", m.NumImportedFuncs()+uint32(i), err)
		}
	}
	return nil
}
