package natives

import "github.com/jsprof/jsprof/wasmcore"

// funcTable resolves indices of table 0 — what a C function pointer is in
// wasm32 — to function indices, through the active element segments with
// constant offsets, applied in order as instantiation does (a later
// segment overwrites an earlier one). It holds one map entry per element
// item, so its size follows the module's.
type funcTable struct {
	size  uint64 // the table's initial size
	funcs map[uint32]uint32
}

const noFunc = ^uint32(0)

func newFuncTable(m *wasmcore.Module) funcTable {
	t := funcTable{funcs: map[uint32]uint32{}}
	imported := false
	for _, im := range m.Imports {
		if im.Kind == wasmcore.ExternTable {
			t.size, imported = im.Table.Limits.Min, true
			break
		}
	}
	if !imported && len(m.Tables) > 0 {
		t.size = m.Tables[0].Limits.Min
	}
	for _, e := range m.Elements {
		if e.Mode != wasmcore.ElemActive || e.Table != 0 {
			continue
		}
		off, ok := e.Offset.I32()
		if !ok {
			continue
		}
		n := len(e.Funcs)
		if e.Exprs != nil {
			n = len(e.Exprs)
		}
		for i := 0; i < n; i++ {
			idx := uint64(uint32(off)) + uint64(i)
			if idx >= t.size {
				break // out of bounds: instantiation would fail
			}
			f := noFunc
			if e.Exprs != nil {
				if g, ok := e.Exprs[i].RefFunc(); ok {
					f = g
				}
			} else {
				f = e.Funcs[i]
			}
			t.funcs[uint32(idx)] = f
		}
	}
	return t
}

// resolve returns the function at table index i. Index 0 is never a
// function here: it is what C's NULL becomes, and LLVM leaves it empty.
func (t *funcTable) resolve(i uint32) (uint32, bool) {
	if i == 0 {
		return 0, false
	}
	f, ok := t.funcs[i]
	return f, ok && f != noFunc
}
