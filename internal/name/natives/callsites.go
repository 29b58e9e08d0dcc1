package natives

import (
	"errors"
	"fmt"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/wasmcore"
)

// CallSite is one call_indirect instruction.
type CallSite struct {
	// Offset is the file offset of the instruction (the address
	// wasm-objdump -d prints), BodyOffset its offset in the body.
	Offset     uint32
	BodyOffset uint32
	Type       uint32 // the call's type index
}

// CFunctionCalls is where the engine calls natives, for a profiler to
// instrument: QuickJS calls every C function object through one function,
// js_call_c_function, which the interpreter (JS_CallInternal) reaches
// through the class table (rt->class_array[JS_CLASS_C_FUNCTION].call) and
// which calls the native with call_indirect on the table index the object
// holds, dispatching on its calling convention (cproto).
type CFunctionCalls struct {
	// Func is js_call_c_function; TableIndex its own table index, the
	// target of the interpreter's class call.
	Func       uint32
	TableIndex uint32
	// FuncOffset, CProtoOffset and MagicOffset locate the native's table
	// index (i32), calling convention (u8) and magic (i16) in the function
	// object (JSObject.u.cfunc), relative to the object pointer, the low
	// 32 bits of js_call_c_function's second parameter.
	FuncOffset   uint32
	CProtoOffset uint32
	MagicOffset  uint32
	// Sites are js_call_c_function's calls of the native, one per calling
	// convention.
	Sites []CallSite
	// ClassCalls are the interpreter's call_indirect instructions with
	// js_call_c_function's signature (when a dispatch.Report says which
	// function the interpreter is): calls through the class table, which
	// reach js_call_c_function for C functions.
	ClassCalls []CallSite
}

// ErrNoCFunctionCall is returned when no function has
// js_call_c_function's shape.
var ErrNoCFunctionCall = errors.New("no js_call_c_function")

// FindCFunctionCalls finds js_call_c_function by its shape in optimized
// builds: the signature (ctx i32, func_obj i64, this_obj i64, argc i32,
// argv i32, flags i32) → i64, a br_table of at least 13 cases on a byte
// of the object (cproto), and at least 8 call_indirect instructions whose
// callee is one 32-bit field of the object. Unoptimized (-O0) builds keep
// those values in stack slots and are not recognized. report may be nil.
func FindCFunctionCalls(m *wasmcore.Module, report *dispatch.Report) (*CFunctionCalls, error) {
	if m == nil {
		return nil, errors.New("natives: FindCFunctionCalls: nil module")
	}
	var found []*CFunctionCalls
	nImp := m.NumImportedFuncs()
	for i := range m.Functions {
		fi := nImp + uint32(i)
		ft, err := m.FuncTypeOf(fi)
		if err != nil || !isCallSignature(ft) {
			continue
		}
		if c := matchCFunctionCall(m, fi); c != nil {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("natives: %w: no function has its shape", ErrNoCFunctionCall)
	case 1:
	default:
		return nil, fmt.Errorf("natives: %w: %d functions have its shape", ErrNoCFunctionCall, len(found))
	}
	c := found[0]
	table := newFuncTable(m)
	for _, idx := range sortedTableIndices(table.funcs) {
		if table.funcs[idx] == c.Func {
			c.TableIndex = idx
			break
		}
	}
	if report != nil && report.Dispatch != nil {
		c.ClassCalls = classCalls(m, report.Dispatch.FunctionIndex)
	}
	return c, nil
}

func sortedTableIndices(m map[uint32]uint32) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for a := 1; a < len(out); a++ {
		for b := a; b > 0 && out[b] < out[b-1]; b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

func isCallSignature(ft wasmcore.FuncType) bool {
	want := []wasmcore.ValType{wasmcore.ValI32, wasmcore.ValI64, wasmcore.ValI64, wasmcore.ValI32, wasmcore.ValI32, wasmcore.ValI32}
	if len(ft.Params) != len(want) || len(ft.Results) != 1 || ft.Results[0] != wasmcore.ValI64 {
		return false
	}
	for i := range want {
		if ft.Params[i] != want[i] {
			return false
		}
	}
	return true
}

// field is a load from the function object: load op at object + offset.
type field struct {
	op     wasmcore.Opcode
	offset uint32
}

func matchCFunctionCall(m *wasmcore.Module, fi uint32) *CFunctionCalls {
	fn := m.Function(fi)
	ins, err := wasmcore.DecodeInstructions(fn.Body)
	if err != nil {
		return nil
	}
	// Locals holding the object pointer: local.get 1; i32.wrap_i64; local.set/tee.
	obj := map[uint32]bool{}
	for k := 2; k < len(ins); k++ {
		if isSet(ins[k]) && ins[k-1].Op == wasmcore.OpI32WrapI64 && ins[k-2].Op == wasmcore.OpLocalGet && ins[k-2].Index == 1 {
			obj[ins[k].Index] = true
		}
	}
	if len(obj) == 0 {
		return nil
	}
	// Loads from the object, and the locals they are stored in.
	loadAt := func(k int) (field, bool) {
		in := ins[k]
		switch in.Op {
		case wasmcore.OpI32Load, wasmcore.OpI32Load8U, wasmcore.OpI32Load16S:
		default:
			return field{}, false
		}
		if in.Mem.Offset > 1<<20 {
			return field{}, false
		}
		off := uint32(in.Mem.Offset)
		// The pointer comes from local.get, or local.tee where it is
		// first stored.
		isObj := func(j int) bool {
			return j >= 0 && (ins[j].Op == wasmcore.OpLocalGet || ins[j].Op == wasmcore.OpLocalTee) && obj[ins[j].Index]
		}
		switch {
		case isObj(k - 1):
			return field{in.Op, off}, true
		case k >= 3 && ins[k-1].Op == wasmcore.OpI32Add && ins[k-2].Op == wasmcore.OpI32Const &&
			isObj(k-3) && ins[k-2].I32 >= 0 && ins[k-2].I32 < 1<<20:
			return field{in.Op, off + uint32(ins[k-2].I32)}, true
		}
		return field{}, false
	}
	defs := map[uint32][]field{} // local → object fields stored in it
	var magic []uint32
	for k := range ins {
		f, ok := loadAt(k)
		if !ok {
			continue
		}
		if f.op == wasmcore.OpI32Load16S {
			magic = append(magic, f.offset)
		}
		if k+1 < len(ins) && isSet(ins[k+1]) {
			defs[ins[k+1].Index] = append(defs[ins[k+1].Index], f)
		}
	}
	fieldOf := func(local uint32, op wasmcore.Opcode) (uint32, bool) {
		var off uint32
		n := 0
		for _, f := range defs[local] {
			if f.op == op && (n == 0 || f.offset != off) {
				off = f.offset
				n++
			}
		}
		return off, n == 1
	}
	c := &CFunctionCalls{Func: fi}
	funcOff, cprotoOff := int64(-1), int64(-1)
	for k, in := range ins {
		switch in.Op {
		case wasmcore.OpCallIndirect:
			if k == 0 || ins[k-1].Op != wasmcore.OpLocalGet {
				continue
			}
			off, ok := fieldOf(ins[k-1].Index, wasmcore.OpI32Load)
			if !ok || funcOff >= 0 && int64(off) != funcOff {
				continue
			}
			funcOff = int64(off)
			c.Sites = append(c.Sites, CallSite{Offset: fn.BodyOffset + in.Offset, BodyOffset: in.Offset, Type: in.Index})
		case wasmcore.OpBrTable:
			if len(in.Labels) < 14 || k == 0 || ins[k-1].Op != wasmcore.OpLocalGet {
				continue
			}
			if off, ok := fieldOf(ins[k-1].Index, wasmcore.OpI32Load8U); ok {
				cprotoOff = int64(off)
			}
		}
	}
	if len(c.Sites) < 8 || cprotoOff < 0 {
		return nil
	}
	c.FuncOffset, c.CProtoOffset = uint32(funcOff), uint32(cprotoOff)
	for _, off := range magic {
		c.MagicOffset = off // the generic_magic, getter_magic, setter_magic calls all pass it
	}
	return c
}

func isSet(in wasmcore.Instr) bool {
	return in.Op == wasmcore.OpLocalSet || in.Op == wasmcore.OpLocalTee
}

// classCalls returns the call_indirect instructions of function fi whose
// type has js_call_c_function's signature.
func classCalls(m *wasmcore.Module, fi uint32) []CallSite {
	fn := m.Function(fi)
	if fn == nil {
		return nil
	}
	ins, err := wasmcore.DecodeInstructions(fn.Body)
	if err != nil {
		return nil
	}
	var out []CallSite
	for _, in := range ins {
		if in.Op != wasmcore.OpCallIndirect || uint64(in.Index) >= uint64(len(m.Types)) || !isCallSignature(m.Types[in.Index]) {
			continue
		}
		out = append(out, CallSite{Offset: fn.BodyOffset + in.Offset, BodyOffset: in.Offset, Type: in.Index})
	}
	return out
}
