package wasmcore

import (
	"fmt"
)

// What counts as one executed instruction (docs/instruction-counting.md):
// every instruction of a function body except the structure markers block,
// loop, else and end, which do no work of their own. Everything else counts
// one, whatever its cost on a real machine: an i32.add, a call, a br_table
// and a memory.copy each count one.
func countsAsWork(op Opcode) bool {
	switch op {
	case OpBlock, OpLoop, OpElse, OpEnd:
		return false
	}
	return true
}

// endsSegment reports whether the instruction after op may start executing
// without op's predecessors having run just before it (a branch target, the
// code after a possible branch), or whether op may run code elsewhere before
// the next instruction (a call). The count is charged at the start of each
// segment, so ending segments at calls keeps the counter exact at every
// point where other code can look at it: a callee, a hook, a host function.
func endsSegment(op Opcode) bool {
	switch op {
	case OpLoop, OpIf, OpElse, OpEnd,
		OpBr, OpBrIf, OpBrTable, OpReturn, OpUnreachable,
		OpCall, OpCallIndirect, OpReturnCall, OpReturnCallIndirect,
		OpTry, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow:
		return true
	}
	return false
}

// Hooks are instructions inserted into one function. They are not counted
// and must leave the operand stack as they found it.
type Hooks struct {
	// Entry runs on every call, before any of the function's instructions
	// is counted.
	Entry []byte
	// Exit runs whenever the function returns normally: by falling off its
	// end, by return, or by a branch to its outermost label (all three are
	// routed through one block that wraps the body). Return values are on
	// the stack when it runs.
	Exit []byte
	// Before maps a body offset to instructions that run just before the
	// original instruction at that offset, after every instruction up to and
	// including the end of that instruction's segment has been counted.
	Before map[uint32][]byte
}

// CountOptions configures CountInstructions.
type CountOptions struct {
	// PerInstruction charges every instruction on its own: the slow, simple
	// mode that checks the per-segment mode in tests.
	PerInstruction bool
	// Hooks by function index.
	Hooks map[uint32]Hooks
	// AfterCharge, when set, runs after the charges at function entry and at
	// the top of every loop body (uncounted, stack neutral): a sampler's
	// check of the counter against its next sample. No code runs long
	// without passing one, and straight-line code does not pay for it.
	AfterCharge []byte
}

// InstructionCounterExport is the export name of the injected counter.
const InstructionCounterExport = "jsprof.instructions"

// Counter is what CountInstructions injected.
type Counter struct {
	Global uint32 // index of the mutable i64 global holding the count
	Export string // its export name
}

// CountInstructions rewrites every defined function so that the mutable i64
// global it adds (exported as InstructionCounterExport) holds, at any
// segment boundary (every call, branch, branch target and hook), exactly
// the number of instructions executed so far. Each straight-line segment
// adds its length once, on entry, rather than once per instruction.
//
// Functions added after this call are not counted: that is how injected
// helpers stay out of the count.
func (m *Module) CountInstructions(opts CountOptions) (Counter, error) {
	ctr := Counter{Export: InstructionCounterExport}
	ctr.Global = m.AddGlobal(Global{Type: GlobalType{Type: ValI64, Mutable: true}, Init: ConstI64(0)})
	m.Exports = append(m.Exports, Export{Name: ctr.Export, Kind: ExternGlobal, Index: ctr.Global})
	base := m.NumImportedFuncs()
	for i := range m.Functions {
		idx := base + uint32(i)
		hooks, hooked := opts.Hooks[idx]
		var wrap int64 = BlockEmpty
		if hooked && hooks.Exit != nil {
			ft, err := m.FuncTypeOf(idx)
			if err != nil {
				return Counter{}, err
			}
			wrap = m.blockTypeOf(ft.Results)
		}
		body, err := countBody(m.Functions[i].Body, ctr.Global, opts, hooks, wrap)
		if err != nil {
			return Counter{}, fmt.Errorf("wasmcore: counting instructions: function %d: %w", idx, err)
		}
		m.Functions[i].Body = body
	}
	return ctr, nil
}

// blockTypeOf returns the block type of a block with these results.
func (m *Module) blockTypeOf(results []ValType) int64 {
	switch len(results) {
	case 0:
		return BlockEmpty
	case 1:
		return int64(int8(byte(results[0])<<1) >> 1) // the type byte as a negative s7
	}
	return int64(m.AddType(FuncType{Results: results}))
}

// countBody inserts the segment charges and hooks into one body.
func countBody(body []byte, counter uint32, opts CountOptions, hooks Hooks, wrap int64) ([]byte, error) {
	perInstruction := opts.PerInstruction
	var charges, inserts, replaces []BodyEdit
	// check: the charge starts the function or a loop body, so it also
	// runs AfterCharge.
	charge := func(at uint32, n int64, check bool) {
		check = check && opts.AfterCharge != nil
		if n == 0 && !check {
			return
		}
		var code []byte
		if n != 0 {
			code = AppendInstr(code, Instr{Op: OpGlobalGet, Index: counter})
			code = AppendInstr(code, Instr{Op: OpI64Const, I64: n})
			code = AppendInstr(code, Instr{Op: OpI64Add})
			code = AppendInstr(code, Instr{Op: OpGlobalSet, Index: counter})
		}
		if check {
			code = append(code, opts.AfterCharge...)
		}
		charges = append(charges, BodyEdit{At: at, Insert: code})
	}
	wrapped := hooks.Exit != nil
	if hooks.Entry != nil {
		inserts = append(inserts, BodyEdit{At: 0, Insert: hooks.Entry})
	}
	if wrapped {
		inserts = append(inserts, BodyEdit{At: 0, Insert: AppendInstr(nil, Instr{Op: OpBlock, Block: wrap})})
	}

	ir := NewInstrReader(body)
	segStart, n := uint32(0), int64(0)
	checkAt := map[uint32]bool{0: true} // function entry and loop-body starts
	depth := 0                          // open blocks inside the function
	for {
		in, ok, err := ir.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if code, ok := hooks.Before[in.Offset]; ok {
			inserts = append(inserts, BodyEdit{At: in.Offset, Insert: code})
		}
		switch in.Op {
		case OpLoop:
			depth++
			checkAt[in.Offset+in.Len] = true
		case OpBlock, OpIf, OpTry:
			depth++
		case OpEnd, OpDelegate:
			depth--
		case OpReturn:
			if wrapped { // through the wrapper, so that Exit runs
				replaces = append(replaces, BodyEdit{At: in.Offset, Remove: in.Len, Insert: AppendInstr(nil, Instr{Op: OpBr, Index: uint32(depth)})})
			}
		case OpReturnCall, OpReturnCallIndirect:
			if wrapped {
				inserts = append(inserts, BodyEdit{At: in.Offset, Insert: hooks.Exit})
			}
		}
		if depth < 0 { // the function's own end
			if wrapped {
				closeWrap := AppendInstr(nil, Instr{Op: OpEnd})
				inserts = append(inserts, BodyEdit{At: in.Offset, Insert: append(closeWrap, hooks.Exit...)})
			}
			if int(in.Offset+in.Len) != len(body) {
				return nil, fmt.Errorf("code after the function's end at body offset %d", in.Offset+in.Len)
			}
		}
		if countsAsWork(in.Op) {
			if perInstruction {
				charge(in.Offset, 1, checkAt[in.Offset])
			} else {
				n++
			}
		}
		if !perInstruction && endsSegment(in.Op) {
			charge(segStart, n, checkAt[segStart])
			segStart, n = in.Offset+in.Len, 0
		}
	}
	if !perInstruction {
		charge(segStart, n, checkAt[segStart])
	}
	// At one offset: the entry hook, the wrapper, the segment's charge, then
	// the instruction's hook; a replaced instruction comes last.
	edits := make([]BodyEdit, 0, len(charges)+len(inserts)+len(replaces))
	if hooks.Entry != nil || wrapped {
		edits = append(edits, inserts[0])
		inserts = inserts[1:]
		if hooks.Entry != nil && wrapped {
			edits = append(edits, inserts[0])
			inserts = inserts[1:]
		}
	}
	edits = append(edits, charges...)
	edits = append(edits, inserts...)
	edits = append(edits, replaces...)
	return EditBody(body, edits)
}
