package wasmcore

import (
	"fmt"
	"slices"
)

// CostModel says what each executed instruction adds to the count
// (docs/instruction-counting.md). Whatever the model, the count's segments,
// hoisting and checkpoints are placed by control flow alone: an
// instruction that costs nothing still ends its segment if it branches.
type CostModel int

const (
	// CostAll, the default, counts every instruction of a function body one
	// except the structure markers block, loop, else and end, which do no
	// work of their own. Everything else counts one, whatever its cost on a
	// real machine: an i32.add, a call, a br_table and a memory.copy each
	// count one.
	CostAll CostModel = iota
	// CostFuel counts wasmtime's fuel (wasmtime 39, which Shopify's
	// function-runner v9.2 uses): as CostAll, except that nop, drop,
	// unreachable and return cost nothing either, and that every entry
	// into a defined function costs one more (EntryCost), charged to the
	// function entered. memory.copy and memory.fill still cost one
	// whatever their length; host functions cost nothing beyond their call.
	CostFuel
	// CostFuelOps is CostFuel without the entry charge: the per-operator
	// rule alone, as jsprof counted fuel before it charged entries. It is
	// not wasmtime's count; it is kept as the negative control of the
	// wasmtime reference test (fixtures/wasmtimeref), which must tell the
	// two apart.
	CostFuelOps
)

// String returns the model's name: "all", "fuel" or "fuel-ops".
func (c CostModel) String() string {
	switch c {
	case CostAll:
		return "all"
	case CostFuel:
		return "fuel"
	case CostFuelOps:
		return "fuel-ops"
	}
	return fmt.Sprintf("CostModel(%d)", int(c))
}

// ParseCostModel returns the model String names s. Its error offers fuel
// and all only: fuel-ops is no model a user asks for.
func ParseCostModel(s string) (CostModel, error) {
	for _, c := range []CostModel{CostFuel, CostAll, CostFuelOps} {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%q: want %s or %s", s, CostFuel, CostAll)
}

// Meaning says in words what c counts, for a reader of its counts.
func (c CostModel) Meaning() string {
	switch c {
	case CostFuel:
		return "wasmtime's fuel, as function-runner counts"
	case CostFuelOps:
		return "wasmtime's fuel without its charge per function entered"
	}
	return "every instruction but block, loop, else and end"
}

// Cost returns what one execution of op adds to the count under c.
func (c CostModel) Cost(op Opcode) int64 {
	switch op {
	case OpBlock, OpLoop, OpElse, OpEnd:
		return 0
	case OpNop, OpDrop, OpUnreachable, OpReturn:
		// wasmtime's fuel_before_op (crates/cranelift/src/func_environ.rs):
		// nop and drop generate no code, and leaving the function is as
		// free as the other control markers.
		if c == CostFuel || c == CostFuelOps {
			return 0
		}
	}
	return 1
}

// EntryCost returns what each entry into a defined function adds under c,
// before any of its instructions: wasmtime charges one unit of fuel on
// entry to every Wasm function, whether called by Wasm or by the host
// (FIELD-NOTES §9: an empty exported function costs 1). It is charged with
// the function's first segment, so it costs no update of its own.
func (c CostModel) EntryCost() int64 {
	if c == CostFuel {
		return 1
	}
	return 0
}

// valid reports whether c is one of the models above.
func (c CostModel) valid() bool { return c == CostAll || c == CostFuel || c == CostFuelOps }

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
	// CountUnread says that the Before hooks neither read the counter nor
	// call anything that does, so that a function with its count in a local
	// (CountOptions.InLocal) need not store it in the global before them.
	CountUnread bool
}

// CountOptions configures CountInstructions.
type CountOptions struct {
	// Cost says what each instruction counts; the zero value is CostAll.
	// Every mode below counts the same total under a given model.
	Cost CostModel
	// PerInstruction charges every instruction on its own: the slow, simple
	// mode that checks the per-segment mode in tests.
	PerInstruction bool
	// Hooks by function index.
	Hooks map[uint32]Hooks
	// Checkpoint, when set, compares the count with a global at the top of
	// every loop body and at the entry of the functions that head the call
	// graph's cycles (Module.RecursionHeads), and calls a function once the
	// count has reached it: a sampler's check against its next sample. No
	// code runs long without passing one, and straight-line code and small
	// functions do not pay for it.
	Checkpoint *Checkpoint
	// Hoist charges fewer segments (segmentPlan, docs/instruction-counting.md):
	// code that almost always follows other code is charged with it, and
	// the branches that skip it take its count back. The count then runs
	// ahead of the instructions executed by at most a function's hoisted
	// code, and every complete path is charged exactly.
	Hoist Hoisting
	// InLocal lists functions that keep the count in a local of their own
	// (a register) rather than adding to the global at every segment: the
	// global is set from the local before every call, hook, checkpoint and
	// return, and read back after every call. Only a trap loses the
	// instructions since the last of those.
	InLocal map[uint32]bool
}

// Hoisting says how far CountOptions.Hoist may move charges.
type Hoisting int

const (
	// HoistNone charges every segment where it starts.
	HoistNone Hoisting = iota
	// HoistLocal hoists only over constructs that contain no call and no
	// Before hook, so that the count is ahead only within a function's own
	// code between calls and hooks.
	HoistLocal
	// HoistAcrossCalls hoists over calls of defined functions as well (a
	// callee then sees a count that includes some of its caller's later
	// code), and charges the code after such a call with the code before
	// it. Calls of imports stay exact, since a host function may end the
	// run. For sampling, where a sample's weight may be off by a few
	// instructions but totals must stay exact.
	HoistAcrossCalls
)

// Checkpoint is a check of the count: when it is at least the i64 global
// Next, Call (a function of no parameters and no results, not counted) is
// called, with the global counter up to date.
type Checkpoint struct {
	Next, Call uint32
}

// InstructionCounterExport is the export name of the injected counter.
const InstructionCounterExport = "jsprof.instructions"

// Counter is what CountInstructions injected.
type Counter struct {
	Global uint32 // index of the mutable i64 global holding the count
	Export string // its export name
}

// CountInstructions rewrites every defined function so that the mutable i64
// global it adds (exported as InstructionCounterExport) holds the cost
// (CountOptions.Cost) of the instructions executed so far: without
// hoisting, exactly so at any segment boundary (every call, branch, branch
// target and hook); with it, exactly so when the outermost call returns (or
// a host function is called), and ahead by some of the running functions'
// hoisted code elsewhere. Each straight-line segment adds its cost once, on
// entry, rather than once per instruction.
//
// Functions added after this call are not counted: that is how injected
// helpers stay out of the count.
func (m *Module) CountInstructions(opts CountOptions) (Counter, error) {
	if !opts.Cost.valid() {
		return Counter{}, fmt.Errorf("wasmcore: counting instructions: unknown cost model %d", int(opts.Cost))
	}
	ctr := Counter{Export: InstructionCounterExport}
	ctr.Global = m.AddGlobal(Global{Type: GlobalType{Type: ValI64, Mutable: true}, Init: ConstI64(0)})
	m.Exports = append(m.Exports, Export{Name: ctr.Export, Kind: ExternGlobal, Index: ctr.Global})
	base := m.NumImportedFuncs()
	// Only the heads of the call graph's cycles need the checkpoint at
	// their entry: without them, code runs a bounded number of
	// instructions before it reaches a loop's checkpoint, a head's or its
	// return. Most calls are of small functions, where the check would cost
	// a tenth of the run.
	var recursive map[uint32]bool
	if opts.Checkpoint != nil {
		var err error
		if recursive, err = m.RecursionHeads(); err != nil {
			return Counter{}, fmt.Errorf("wasmcore: counting instructions: %w", err)
		}
	}
	for i := range m.Functions {
		idx := base + uint32(i)
		hooks, hooked := opts.Hooks[idx]
		var wrap int64 = BlockEmpty
		local := int64(-1)
		if opts.InLocal[idx] {
			ft, err := m.FuncTypeOf(idx)
			if err != nil {
				return Counter{}, err
			}
			local = int64(len(ft.Params))
			for _, l := range m.Functions[i].Locals {
				local += int64(l.Count)
			}
			m.Functions[i].Locals = append(m.Functions[i].Locals, Local{Count: 1, Type: ValI64})
		}
		if (hooked && hooks.Exit != nil) || local >= 0 {
			ft, err := m.FuncTypeOf(idx)
			if err != nil {
				return Counter{}, err
			}
			wrap = m.blockTypeOf(ft.Results)
		}
		ft, err := m.FuncTypeOf(idx)
		if err != nil {
			return Counter{}, err
		}
		body, err := countBody(m.Functions[i].Body, ctr.Global, base, local, len(ft.Results) > 0, recursive == nil || recursive[idx], opts, hooks, wrap)
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

// countBody inserts the segment charges and hooks into one body. local is
// the index of the local that holds the count, or -1; funcTyped says that
// the function returns values.
func countBody(body []byte, counter, imported uint32, local int64, funcTyped, checkEntry bool, opts CountOptions, hooks Hooks, wrap int64) ([]byte, error) {
	perInstruction := opts.PerInstruction
	var pre, reloads, charges, inserts, replaces []BodyEdit
	// With the count in a local, flush sets the global from it, and the
	// global is read back where a callee may have moved it.
	var flush, reload []byte
	if local >= 0 {
		flush = AppendInstr(AppendInstr(nil, Instr{Op: OpLocalGet, Index: uint32(local)}), Instr{Op: OpGlobalSet, Index: counter})
		reload = AppendInstr(AppendInstr(nil, Instr{Op: OpGlobalGet, Index: counter}), Instr{Op: OpLocalSet, Index: uint32(local)})
		pre = append(pre, BodyEdit{At: 0, Insert: reload})
		hooks.Exit = append(slices.Clip(flush), hooks.Exit...)
		if !hooks.CountUnread {
			before := make(map[uint32][]byte, len(hooks.Before))
			for off, code := range hooks.Before {
				before[off] = append(slices.Clip(flush), code...)
			}
			hooks.Before = before
		}
	}
	// add adds n to the count.
	add := func(code []byte, n int64) []byte {
		if local >= 0 {
			code = AppendInstr(code, Instr{Op: OpLocalGet, Index: uint32(local)})
			code = AppendInstr(code, Instr{Op: OpI64Const, I64: n})
			code = AppendInstr(code, Instr{Op: OpI64Add})
			return AppendInstr(code, Instr{Op: OpLocalSet, Index: uint32(local)})
		}
		code = AppendInstr(code, Instr{Op: OpGlobalGet, Index: counter})
		code = AppendInstr(code, Instr{Op: OpI64Const, I64: n})
		code = AppendInstr(code, Instr{Op: OpI64Add})
		return AppendInstr(code, Instr{Op: OpGlobalSet, Index: counter})
	}
	// check: the charge starts the function or a loop body, so it also
	// runs the checkpoint.
	charge := func(at uint32, n int64, check bool) {
		check = check && opts.Checkpoint != nil
		if n == 0 && !check {
			return
		}
		var code []byte
		if n != 0 {
			code = add(code, n)
		}
		if check {
			if local >= 0 {
				code = AppendInstr(code, Instr{Op: OpLocalGet, Index: uint32(local)})
			} else {
				code = AppendInstr(code, Instr{Op: OpGlobalGet, Index: counter})
			}
			code = AppendInstr(code, Instr{Op: OpGlobalGet, Index: opts.Checkpoint.Next})
			code = AppendInstr(code, Instr{Op: OpI64GeU})
			code = AppendInstr(code, Instr{Op: OpIf, Block: BlockEmpty})
			code = append(code, flush...)
			code = AppendInstr(code, Instr{Op: OpCall, Index: opts.Checkpoint.Call})
			code = AppendInstr(code, Instr{Op: OpEnd})
		}
		charges = append(charges, BodyEdit{At: at, Insert: code})
	}
	wrapped := hooks.Exit != nil
	if hooks.Entry != nil {
		pre = append(pre, BodyEdit{At: 0, Insert: hooks.Entry})
	}
	if wrapped {
		pre = append(pre, BodyEdit{At: 0, Insert: AppendInstr(nil, Instr{Op: OpBlock, Block: wrap})})
	}

	plan := newSegmentPlan(opts.Hoist, imported, funcTyped)
	// The entry charge goes with the first segment, which runs once per
	// entry and is never a branch target (a loop starts a segment after
	// it). Per instruction, it is a charge of its own at the entry, after
	// the entry hook, so that hooks see it charged to the function entered.
	if entry := opts.Cost.EntryCost(); entry != 0 {
		if perInstruction {
			charge(0, entry, false)
		} else {
			plan.work(entry)
		}
	}
	checkAt := map[uint32]bool{0: checkEntry} // function entry and loop-body starts
	depth := 0                                // open blocks inside the function
	err := forEachInstr(body, func(in Instr) error {
		code, hooked := hooks.Before[in.Offset]
		if hooked {
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
		case OpCall, OpCallIndirect:
			if local >= 0 {
				inserts = append(inserts, BodyEdit{At: in.Offset, Insert: flush})
				reloads = append(reloads, BodyEdit{At: in.Offset + in.Len, Insert: reload})
			}
		}
		if depth < 0 { // the function's own end
			if wrapped {
				closeWrap := AppendInstr(nil, Instr{Op: OpEnd})
				inserts = append(inserts, BodyEdit{At: in.Offset, Insert: append(closeWrap, hooks.Exit...)})
			}
			if int(in.Offset+in.Len) != len(body) {
				return fmt.Errorf("code after the function's end at body offset %d", in.Offset+in.Len)
			}
		}
		cost := opts.Cost.Cost(in.Op)
		if perInstruction {
			// An instruction that CostAll counts carries the checkpoint of
			// the loop top or entry it starts even when it costs nothing
			// here, so that checkpoints sit in the same places under every
			// model. (A body that starts with block, loop or end gets none
			// in this mode; that is left as it was, to keep CostAll's code.)
			if cost != 0 || CostAll.Cost(in.Op) != 0 {
				charge(in.Offset, cost, checkAt[in.Offset])
			}
			return nil
		}
		plan.instr(in, hooked)
		plan.work(cost)
		if endsSegment(in.Op) {
			plan.next(in.Offset + in.Len)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !perInstruction {
		conds, elses := plan.finish()
		for _, c := range elses {
			inserts = append(inserts, BodyEdit{At: c.at, Insert: add(AppendInstr(nil, Instr{Op: OpElse}), -c.comp)})
		}
		for _, c := range conds {
			// br_if L, taken back on its taken edge: if; count -= comp; br L+1; end
			code := AppendInstr(nil, Instr{Op: OpIf, Block: BlockEmpty})
			code = add(code, -c.comp)
			code = AppendInstr(code, Instr{Op: OpBr, Index: c.label + 1})
			code = AppendInstr(code, Instr{Op: OpEnd})
			replaces = append(replaces, BodyEdit{At: c.at, Remove: c.len, Insert: code})
		}
		for _, sg := range plan.segs {
			charge(sg.start, sg.n, checkAt[sg.start])
		}
	}
	// At one offset: the local's load, the entry hook and the wrapper (at
	// 0), the local's reload after a call, the segment's charge, then the
	// instruction's hook; a replaced instruction comes last.
	edits := slices.Concat(pre, reloads)
	edits = append(edits, charges...)
	edits = append(edits, inserts...)
	edits = append(edits, replaces...)
	return EditBody(body, edits)
}
