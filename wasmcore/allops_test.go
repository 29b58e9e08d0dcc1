package wasmcore

// allOpsBody returns a function body holding every opcode in the table
// (in table order) with plausible immediates, then end. It is not valid
// code, only decodable: it exercises every immediate shape.
func allOpsBody(skip map[Opcode]bool) []byte {
	var body []byte
	for _, op := range allOpcodes() {
		if skip[op] {
			continue
		}
		in := Instr{Op: op, Index: 1, Index2: 0, Labels: []uint32{0, 1, 2}, Block: BlockEmpty,
			Mem: MemArg{Align: 2, Offset: 8}, I32: -5, I64: 1234567890123, F32: 0x3FC00000,
			F64: 0x3FF8000000000000, Lane: 1, RefType: ValFuncRef, ValTypes: []ValType{ValI32}}
		for i := range in.V128 {
			in.V128[i] = byte(i)
		}
		switch op {
		case OpAtomicFence, OpMemorySize, OpMemoryGrow, OpMemoryFill, OpMemoryCopy:
			// Reserved bytes before multi-memory: tools expect 0.
			in.Index = 0
		}
		body = AppendInstr(body, in)
	}
	return append(body, byte(OpEnd))
}

// allOpcodes lists every opcode of the generated tables.
func allOpcodes() []Opcode {
	var ops []Opcode
	add := func(prefix Opcode, tab []opInfo) {
		for i, info := range tab {
			if info.name != "" {
				ops = append(ops, prefix<<24|Opcode(i))
			}
		}
	}
	add(0, opsSingle[:])
	add(0xFC, opsFC[:])
	add(0xFD, opsFD[:])
	add(0xFE, opsFE[:])
	return ops
}

// allOpsModule wraps allOpsBody in a module: one type, a memory, a table
// and the function.
func allOpsModule(skip map[Opcode]bool) *Module {
	two := uint32(2)
	return &Module{
		Types:     []FuncType{{}},
		Functions: []Function{{Type: 0, Body: allOpsBody(skip)}},
		Tables:    []TableType{{Elem: ValFuncRef, Limits: Limits{Min: 1}}},
		Memories:  []MemoryType{{Limits: Limits{Min: 1, Max: 1, HasMax: true, Shared: true}}},
		Elements:  []Element{{Mode: ElemPassive, Type: ValFuncRef, Funcs: []uint32{0}}, {Mode: ElemPassive, Type: ValFuncRef, Funcs: []uint32{0}}},
		DataCount: &two,
		Data:      []DataSegment{{Mode: DataPassive, Init: []byte("a")}, {Mode: DataPassive, Init: []byte("b")}},
	}
}
