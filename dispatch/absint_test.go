package dispatch

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/wasmcore"
)

func body(ins ...wasmcore.Instr) []byte {
	var b []byte
	for _, in := range ins {
		b = wasmcore.AppendInstr(b, in)
	}
	return b
}

func op(o wasmcore.Opcode) wasmcore.Instr { return wasmcore.Instr{Op: o} }
func idx(o wasmcore.Opcode, i uint32) wasmcore.Instr {
	return wasmcore.Instr{Op: o, Index: i}
}
func i32(v int32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpI32Const, I32: v} }
func blk(o wasmcore.Opcode) wasmcore.Instr {
	return wasmcore.Instr{Op: o, Block: wasmcore.BlockEmpty}
}

// guardedLookupModule is a tiny interpreter dispatching through a table of
// 256 entries at 1024 after checking opcode <= 70; the entries past 70 are
// junk that would reach a handler.
func guardedLookupModule() *wasmcore.Module {
	code := body(
		blk(wasmcore.OpLoop),  // $L
		blk(wasmcore.OpBlock), // $d
		blk(wasmcore.OpBlock), // $h1
		blk(wasmcore.OpBlock), // $h0
		idx(wasmcore.OpLocalGet, 0),
		wasmcore.Instr{Op: wasmcore.OpI32Load8U},
		idx(wasmcore.OpLocalTee, 1),
		i32(70),
		op(wasmcore.OpI32GtU),
		idx(wasmcore.OpBrIf, 2),
		idx(wasmcore.OpLocalGet, 1),
		i32(2),
		op(wasmcore.OpI32Shl),
		i32(1024),
		op(wasmcore.OpI32Add),
		wasmcore.Instr{Op: wasmcore.OpI32Load, Mem: wasmcore.MemArg{Align: 2}},
		wasmcore.Instr{Op: wasmcore.OpBrTable, Labels: []uint32{0, 1, 2}},
		op(wasmcore.OpEnd),
		// h0: pc += 1
		idx(wasmcore.OpLocalGet, 0), i32(1), op(wasmcore.OpI32Add), idx(wasmcore.OpLocalSet, 0), idx(wasmcore.OpBr, 2),
		op(wasmcore.OpEnd),
		// h1: pc += 3
		idx(wasmcore.OpLocalGet, 0), i32(3), op(wasmcore.OpI32Add), idx(wasmcore.OpLocalSet, 0), idx(wasmcore.OpBr, 1),
		op(wasmcore.OpEnd),
		i32(0),
		op(wasmcore.OpReturn),
		op(wasmcore.OpEnd),
		op(wasmcore.OpUnreachable),
		op(wasmcore.OpEnd),
	)
	table := make([]byte, 256*4)
	for v := range 256 {
		e := uint32(v % 2)
		if v > 70 {
			e = 0 // junk: would be handler 0
		}
		binary.LittleEndian.PutUint32(table[4*v:], e)
	}
	return &wasmcore.Module{
		Types:     []wasmcore.FuncType{{Params: []wasmcore.ValType{wasmcore.ValI32}, Results: []wasmcore.ValType{wasmcore.ValI32}}},
		Functions: []wasmcore.Function{{Type: 0, Locals: []wasmcore.Local{{Count: 1, Type: wasmcore.ValI32}}, Body: code}},
		Memories:  []wasmcore.MemoryType{{Limits: wasmcore.Limits{Min: 1}}},
		Data:      []wasmcore.DataSegment{{Offset: wasmcore.ConstI32(1024), Init: table}},
	}
}

func TestLookupRangeGuard(t *testing.T) {
	m := guardedLookupModule()
	fa, err := analyzeFunction(m, 0, newMeter(context.Background(), len(m.Functions[0].Body), nil), asyncifyState{})
	require.NoError(t, err)
	require.Len(t, fa.brTables, 1)
	bt := &fa.brTables[0]
	sel := fa.selectorOf(bt)
	require.Equal(t, "lookup", sel.kind)
	require.NotNil(t, sel.lookup)
	assert.Equal(t, uint64(1024), sel.lookup.table)
	assert.Equal(t, 4, sel.lookup.width)
	assert.Equal(t, uint64(71), sel.lookup.guard)
	assert.Equal(t, int64(0), sel.add)
	require.Len(t, sel.byteLoads, 1)

	an := &analyzer{img: newMemImage(m.Data)}
	om := an.mapOpcodes(bt, sel)
	assert.Equal(t, 71, om.count)
	assert.Equal(t, 2, om.distinct)
	assert.Equal(t, uint32(0), om.targets[0])
	assert.Equal(t, uint32(1), om.targets[1])

	pc, ok := fa.findPC(sel)
	require.True(t, ok)
	assert.Equal(t, "local", pc.kind)
	assert.Equal(t, uint32(0), pc.local)
	strides, _ := fa.pcUse(pc, sel.byteLoads)
	assert.Equal(t, []int64{1, 3}, strides)
}

// TestSpillSlots: unoptimized code keeps the pc and the opcode in a stack
// frame; the selector is traced through both.
func TestSpillSlots(t *testing.T) {
	// fp = global0 - 32; [fp+8] = *(param 0 + 12); loop { t = [fp+8];
	// [fp+8] = t + 1; [fp+4] = load8_u(t); br_table([fp+4]) }
	code := body(
		wasmcore.Instr{Op: wasmcore.OpGlobalGet, Index: 0}, i32(32), op(wasmcore.OpI32Sub), idx(wasmcore.OpLocalSet, 1),
		idx(wasmcore.OpLocalGet, 1), idx(wasmcore.OpLocalGet, 0), wasmcore.Instr{Op: wasmcore.OpI32Load, Mem: wasmcore.MemArg{Offset: 12}},
		wasmcore.Instr{Op: wasmcore.OpI32Store, Mem: wasmcore.MemArg{Offset: 8}},
		blk(wasmcore.OpLoop),
		blk(wasmcore.OpBlock),
		blk(wasmcore.OpBlock),
		idx(wasmcore.OpLocalGet, 1), wasmcore.Instr{Op: wasmcore.OpI32Load, Mem: wasmcore.MemArg{Offset: 8}}, idx(wasmcore.OpLocalSet, 2),
		idx(wasmcore.OpLocalGet, 1), idx(wasmcore.OpLocalGet, 2), i32(1), op(wasmcore.OpI32Add), wasmcore.Instr{Op: wasmcore.OpI32Store, Mem: wasmcore.MemArg{Offset: 8}},
		idx(wasmcore.OpLocalGet, 1), idx(wasmcore.OpLocalGet, 2), wasmcore.Instr{Op: wasmcore.OpI32Load8U}, wasmcore.Instr{Op: wasmcore.OpI32Store, Mem: wasmcore.MemArg{Offset: 4}},
		idx(wasmcore.OpLocalGet, 1), wasmcore.Instr{Op: wasmcore.OpI32Load, Mem: wasmcore.MemArg{Offset: 4}}, idx(wasmcore.OpLocalSet, 3),
		idx(wasmcore.OpLocalGet, 3),
		wasmcore.Instr{Op: wasmcore.OpBrTable, Labels: []uint32{0, 1, 2}},
		op(wasmcore.OpEnd),
		idx(wasmcore.OpBr, 1),
		op(wasmcore.OpEnd),
		idx(wasmcore.OpBr, 0),
		op(wasmcore.OpEnd),
		op(wasmcore.OpEnd),
	)
	m := &wasmcore.Module{
		Types:     []wasmcore.FuncType{{Params: []wasmcore.ValType{wasmcore.ValI32}}},
		Functions: []wasmcore.Function{{Type: 0, Locals: []wasmcore.Local{{Count: 3, Type: wasmcore.ValI32}}, Body: code}},
		Globals:   []wasmcore.Global{{Type: wasmcore.GlobalType{Type: wasmcore.ValI32, Mutable: true}, Init: wasmcore.ConstI32(4096)}},
	}
	fa, err := analyzeFunction(m, 0, newMeter(context.Background(), len(m.Functions[0].Body), nil), asyncifyState{})
	require.NoError(t, err)
	require.Len(t, fa.brTables, 1)
	sel := fa.selectorOf(&fa.brTables[0])
	assert.Equal(t, "direct", sel.kind)
	assert.Equal(t, int64(0), sel.add)
	pc, ok := fa.findPC(sel)
	require.True(t, ok)
	assert.Equal(t, "memory", pc.kind)
	assert.Equal(t, uint64(8), pc.slot.off)
	assert.Equal(t, uint32(1), fa.slotBaseLocal(pc))
	bp := fa.bytecodePointer(pc)
	require.NotNil(t, bp)
	assert.Equal(t, 0, bp.Param)
	assert.Equal(t, []uint64{12}, bp.Path)
	strides, _ := fa.pcUse(pc, sel.byteLoads)
	assert.Equal(t, []int64{1}, strides)
}
