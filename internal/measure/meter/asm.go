package meter

import (
	"github.com/jsprof/jsprof/wasmcore"
)

// globals are the injected accounting globals. The current activation's
// state (block, slot, flags, and the block's base and limit) is in globals;
// callers' states are on the shadow stack in guest memory.
type globals struct {
	count              uint32 // i64: wasmcore's instruction counter
	block, slot, flags uint32 // i32: the running (function block, slot) and activation flags; sampling: slot is the running opcode's address
	base, limit        uint32 // i32: the running block's bytecode address and pc slot count
	last               uint32 // i64: the count when (block, slot) was last charged
	sp, stackEnd       uint32 // i32: next shadow-stack frame, end of the stack's memory
	hashBase, hashMask uint32 // i32: address → block table
	native             uint32 // i32: the bucket of activations that never dispatch
	next               uint32 // i64: the counter value of the next sample (sampling)
	funcObj, entry     uint32 // sampling: the running activation's function object (i64) and first opcode's address
	exported           map[string]uint32
	m                  *wasmcore.Module
}

func newGlobals(m *wasmcore.Module) *globals {
	g := &globals{exported: map[string]uint32{}, m: m}
	add := g.add
	g.block = add(exportBlock, wasmcore.ValI32)
	g.slot = add(exportSlot, wasmcore.ValI32)
	g.base = add(exportBase, wasmcore.ValI32)
	g.limit = add(exportLimit, wasmcore.ValI32)
	g.flags = add(exportFlags, wasmcore.ValI32)
	g.last = add(exportLast, wasmcore.ValI64)
	g.sp = add(exportSP, wasmcore.ValI32)
	g.stackEnd = add(exportStackEnd, wasmcore.ValI32)
	g.hashBase = add(exportHashBase, wasmcore.ValI32)
	g.hashMask = add(exportHashMask, wasmcore.ValI32)
	g.native = add(exportNative, wasmcore.ValI32)
	return g
}

// add adds an exported mutable global of type t, zero initially.
func (g *globals) add(name string, t wasmcore.ValType) uint32 {
	init := wasmcore.ConstI32(0)
	if t == wasmcore.ValI64 {
		init = wasmcore.ConstI64(0)
	}
	idx := g.m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: t, Mutable: true}, Init: init})
	g.m.Exports = append(g.m.Exports, wasmcore.Export{Name: name, Kind: wasmcore.ExternGlobal, Index: idx})
	g.exported[name] = idx
	return idx
}

// Instruction shorthands for the injected functions.
type ops []wasmcore.Instr

func i32c(v int32) wasmcore.Instr  { return wasmcore.Instr{Op: wasmcore.OpI32Const, I32: v} }
func u32c(v uint32) wasmcore.Instr { return i32c(int32(v)) }
func i64c(v int64) wasmcore.Instr  { return wasmcore.Instr{Op: wasmcore.OpI64Const, I64: v} }
func lget(i uint32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpLocalGet, Index: i} }
func lset(i uint32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpLocalSet, Index: i} }
func ltee(i uint32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpLocalTee, Index: i} }
func gget(i uint32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpGlobalGet, Index: i} }
func gset(i uint32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpGlobalSet, Index: i} }
func call(f uint32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpCall, Index: f} }
func op(o wasmcore.Opcode) wasmcore.Instr {
	return wasmcore.Instr{Op: o}
}
func load32(off uint64) wasmcore.Instr {
	return wasmcore.Instr{Op: wasmcore.OpI32Load, Mem: wasmcore.MemArg{Align: 2, Offset: off}}
}
func store32(off uint64) wasmcore.Instr {
	return wasmcore.Instr{Op: wasmcore.OpI32Store, Mem: wasmcore.MemArg{Align: 2, Offset: off}}
}
func load64(off uint64) wasmcore.Instr {
	return wasmcore.Instr{Op: wasmcore.OpI64Load, Mem: wasmcore.MemArg{Align: 3, Offset: off}}
}
func store64(off uint64) wasmcore.Instr {
	return wasmcore.Instr{Op: wasmcore.OpI64Store, Mem: wasmcore.MemArg{Align: 3, Offset: off}}
}
func ifThen() wasmcore.Instr {
	return wasmcore.Instr{Op: wasmcore.OpIf, Block: wasmcore.BlockEmpty}
}
func ifI64() wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpIf, Block: wasmcore.BlockI64} }
func ifI32() wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpIf, Block: wasmcore.BlockI32} }
func end() wasmcore.Instr   { return op(wasmcore.OpEnd) }

// addSlot adds value (pushed by push) to the u64 at block+slot*16+field, with
// the slot address in local p.
func addToSlot(blockAndSlot ops, field uint64, p uint32, push ops) ops {
	out := append(ops{}, blockAndSlot...)
	out = append(out, i32c(4), op(wasmcore.OpI32Shl), op(wasmcore.OpI32Add), ltee(p), lget(p), load64(blockHeader+field))
	out = append(out, push...)
	return append(out, op(wasmcore.OpI64Add), store64(blockHeader+field))
}

// sinceLast pushes count - last.
func (g *globals) sinceLast() ops {
	return ops{gget(g.count), gget(g.last), op(wasmcore.OpI64Sub)}
}

// closeOps charges what ran since the last charge to (block, slot). p is a
// scratch local.
func (g *globals) closeOps(p uint32) ops {
	out := addToSlot(ops{gget(g.block), gget(g.slot)}, slotInstrs, p, g.sinceLast())
	return append(out, gget(g.count), gset(g.last))
}

// startedBlock opens a block that the rest of the code is skipped from
// while the host has not set up the accounting state (block 0): code that
// runs before Start, such as a start section, is not charged, and nothing
// is written at address 0.
func (g *globals) startedBlock() ops {
	return ops{
		wasmcore.Instr{Op: wasmcore.OpBlock, Block: wasmcore.BlockEmpty},
		gget(g.block), op(wasmcore.OpI32Eqz), wasmcore.Instr{Op: wasmcore.OpBrIf, Index: 0},
	}
}

// enterCode is inlined at the dispatch function's entry: charge the caller,
// push its state with this activation's start count and function object
// (pushed by funcObj), and run as the native bucket's call setup until the
// first dispatch says which function this is. Inlined, as exitCode and
// dispatchCode are, because it runs on every JS call and a call to an
// injected function costs as much as the work. fGrow is a function that has
// the host grow a full stack.
func (g *globals) enterCode(funcObj []byte, fGrow uint32, l dispatchLocals) []byte {
	f, p := l.f, l.p
	out := g.startedBlock()
	out = append(out, g.closeOps(p)...)
	out = append(out,
		// a full stack: the host moves it to a larger region, or leaves it
		// full, and then deeper activations charge the native bucket
		gget(g.sp), gget(g.stackEnd), op(wasmcore.OpI32GeU), ifThen(), call(fGrow), end(),
		gget(g.sp), ltee(f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifThen(),
		lget(f), gget(g.block), store32(frameBlock),
		lget(f), gget(g.slot), store32(frameSlot),
		lget(f), gget(g.flags), store32(frameFlags),
		lget(f), gget(g.count), store64(frameEntry),
		lget(f),
	)
	b := code(out...)
	b = append(b, funcObj...)
	b = append(b, code(
		store64(frameFuncObj),
		end(),
		lget(f), i32c(frameSize), op(wasmcore.OpI32Add), gset(g.sp),
		gget(g.native), gset(g.block),
		i32c(0), gset(g.slot),
		i32c(0), gset(g.base),
		i32c(0), gset(g.limit),
		i32c(flagFresh), gset(g.flags),
		end(),
	)...)
	return b
}

// exitCode is inlined where the dispatch function returns: charge it,
// settle its function's inclusive cost if it was the outermost activation
// of that function, and pop the caller's state (the native bucket if the
// stack overflowed).
func (g *globals) exitCode(l dispatchLocals) []byte {
	f, b, p := l.f, l.b, l.p
	out := g.startedBlock()
	out = append(out, g.closeOps(p)...)
	out = append(out,
		gget(g.sp), i32c(frameSize), op(wasmcore.OpI32Sub), ltee(f), gset(g.sp),
		gget(g.flags), i32c(flagIdentified), op(wasmcore.OpI32And), ifThen(),
		// active--
		gget(g.block), ltee(b), lget(b), load32(blockActive), i32c(1), op(wasmcore.OpI32Sub), store32(blockActive),
		gget(g.flags), i32c(flagOuter), op(wasmcore.OpI32And), op(wasmcore.OpI32Eqz), op(wasmcore.OpI32Eqz),
		lget(f), gget(g.stackEnd), op(wasmcore.OpI32LtU), op(wasmcore.OpI32And),
		ifThen(),
		// total += count - frame.entry
		lget(b), lget(b), load64(blockTotal), gget(g.count), lget(f), load64(frameEntry), op(wasmcore.OpI64Sub), op(wasmcore.OpI64Add), store64(blockTotal),
		end(),
		end(),
		lget(f), gget(g.stackEnd), op(wasmcore.OpI32LtU),
		wasmcore.Instr{Op: wasmcore.OpIf, Block: wasmcore.BlockEmpty},
		lget(f), load32(frameBlock), gset(g.block),
		lget(f), load32(frameSlot), gset(g.slot),
		lget(f), load32(frameFlags), gset(g.flags),
		op(wasmcore.OpElse),
		gget(g.native), gset(g.block),
		i32c(0), gset(g.slot),
		i32c(0), gset(g.flags),
		end(),
		gget(g.block), ltee(b), load32(blockBase), gset(g.base),
		lget(b), load32(blockLimit), gset(g.limit),
		end(),
	)
	return code(out...)
}

// dispatchLocals are the dispatch function's locals the inlined dispatch
// accounting uses: the opcode's address and value, captured at its byte
// load, and four scratch locals.
type dispatchLocals struct{ addr, opcode, b, p, f, i uint32 }

// dispatchCode is inlined before the dispatch br_table: an opcode is
// dispatched. On an activation's first dispatch its bytecode address names
// its function: look up (or have the host create) the function's block,
// count a call, and charge what ran so far to its call-setup slot. Then
// charge what ran since the last charge to the running slot, and count one
// execution at the new pc, recording the opcode dispatched there. Inlined rather than called: it runs once per JS
// opcode, where a call costs as much as the accounting.
func (g *globals) dispatchCode(fLookup uint32, l dispatchLocals) []byte {
	addr, opcode, b, p, f, i := l.addr, l.opcode, l.b, l.p, l.f, l.i
	out := append(g.startedBlock(),
		gget(g.flags), i32c(flagFresh), op(wasmcore.OpI32And), ifThen(),
		lget(addr),
		// the function object saved by enter, and the caller's block and
		// slot (its calling context and call site), if the frame fit on
		// the stack
		gget(g.sp), i32c(frameSize), op(wasmcore.OpI32Sub), ltee(f), gget(g.stackEnd), op(wasmcore.OpI32LtU),
		ifI64(), lget(f), load64(frameFuncObj), op(wasmcore.OpElse), i64c(0), end(),
		lget(f), gget(g.stackEnd), op(wasmcore.OpI32LtU),
		ifI32(), lget(f), load32(frameBlock), op(wasmcore.OpElse), i32c(0), end(),
		lget(f), gget(g.stackEnd), op(wasmcore.OpI32LtU),
		ifI32(), lget(f), load32(frameSlot), op(wasmcore.OpElse), i32c(0), end(),
		call(fLookup), ltee(b), gset(g.block),
		// calls++, unless this is a generator or async function resuming
		// mid-buffer: a call starts at byte 0 (or is unknown: base 0)
		lget(b), lget(b), load64(blockCalls),
		lget(addr), lget(b), load32(blockBase), op(wasmcore.OpI32Eq), lget(b), load32(blockBase), op(wasmcore.OpI32Eqz), op(wasmcore.OpI32Or),
		op(wasmcore.OpI64ExtendI32U), op(wasmcore.OpI64Add), store64(blockCalls),
		// flags = identified | (active == 0 ? outer : 0); active++
		lget(b), load32(blockActive), op(wasmcore.OpI32Eqz), i32c(2), op(wasmcore.OpI32Shl), i32c(flagIdentified), op(wasmcore.OpI32Or), gset(g.flags),
		lget(b), lget(b), load32(blockActive), i32c(1), op(wasmcore.OpI32Add), store32(blockActive),
		// base, limit; the running slot is the call setup
		lget(b), load32(blockBase), gset(g.base),
		lget(b), load32(blockLimit), ltee(i), gset(g.limit),
		lget(i), gset(g.slot),
		end(),
	)
	out = append(out, addToSlot(ops{gget(g.block), gget(g.slot)}, slotInstrs, p, g.sinceLast())...)
	out = append(out, gget(g.count), gset(g.last))
	// i = base == 0 ? opcode : addr - base; i = i < limit ? i : limit
	out = append(out,
		lget(opcode), lget(addr), gget(g.base), op(wasmcore.OpI32Sub), gget(g.base), op(wasmcore.OpI32Eqz), op(wasmcore.OpSelect), ltee(i),
		gget(g.limit), lget(i), gget(g.limit), op(wasmcore.OpI32LtU), op(wasmcore.OpSelect), ltee(i), gset(g.slot),
	)
	out = append(out, addToSlot(ops{gget(g.block), lget(i)}, slotExecs, p, ops{i64c(1)})...)
	// the opcode dispatched, in the executions' top byte (p: the slot)
	out = append(out, lget(p), lget(opcode), wasmcore.Instr{Op: wasmcore.OpI32Store8, Mem: wasmcore.MemArg{Offset: blockHeader + slotOpcode}})
	out = append(out, end())
	return code(out...)
}

// lookupBody finds the block of a bytecode address called from a calling
// context (the caller's block) at a call site (the caller's slot) in the
// open-addressing table the host maintains; on a miss the host creates the
// function or context, enters it in the table and returns its block.
//
// It probes at most every entry once, then asks the host: the table lives
// in guest memory, and a guest that filled it leaves no free entry to end
// the search. This function's instructions are not counted, so a loop here
// would never reach a checkpoint, and neither an instruction limit nor a
// timeout could stop it.
//
//	(param $addr i32) (param $fobj i64) (param $parent i32) (param $site i32) (result i32)
//	(local $h i32) (local $e i32) (local $k i32) (local $n i32)
func (g *globals) lookupBody(fHost uint32, stackAfter *uint32) []byte {
	const addr, fobj, parent, site, h, e, k, n = 0, 1, 2, 3, 4, 5, 6, 7
	callHost := ops{lget(addr), lget(fobj), lget(parent), lget(site), call(fHost), op(wasmcore.OpReturn)}
	if stackAfter != nil {
		// the block stays on the operand stack across the void call
		callHost = ops{lget(addr), lget(fobj), lget(parent), lget(site), call(fHost), call(*stackAfter), op(wasmcore.OpReturn)}
	}
	out := ops{
		// h = mix(addr ^ parent*K1 ^ site*K2) & mask, as Meter.hashInsert
		lget(addr), lget(parent), i32c(hashParentMul), op(wasmcore.OpI32Mul), op(wasmcore.OpI32Xor),
		lget(site), i32c(hashSiteMul), op(wasmcore.OpI32Mul), op(wasmcore.OpI32Xor),
		i32c(-1640531535), op(wasmcore.OpI32Mul), ltee(h), lget(h), i32c(15), op(wasmcore.OpI32ShrU), op(wasmcore.OpI32Xor),
		gget(g.hashMask), op(wasmcore.OpI32And), lset(h),
		wasmcore.Instr{Op: wasmcore.OpLoop, Block: wasmcore.BlockEmpty},
		gget(g.hashBase), lget(h), i32c(4), op(wasmcore.OpI32Shl), op(wasmcore.OpI32Add), ltee(e),
		load32(hashKeyAddr), ltee(k), lget(addr), op(wasmcore.OpI32Eq),
		lget(e), load32(hashKeyParent), lget(parent), op(wasmcore.OpI32Eq), op(wasmcore.OpI32And),
		lget(e), load32(hashKeySite), lget(site), op(wasmcore.OpI32Eq), op(wasmcore.OpI32And),
		ifThen(),
		lget(e), load32(hashValueBlock), op(wasmcore.OpReturn),
		end(),
		lget(k), op(wasmcore.OpI32Eqz), ifThen(),
	}
	out = append(out, callHost...)
	out = append(out,
		end(),
		// n++ > mask: every entry seen
		lget(n), i32c(1), op(wasmcore.OpI32Add), ltee(n), gget(g.hashMask), op(wasmcore.OpI32GtU), ifThen(),
	)
	out = append(out, callHost...)
	out = append(out,
		end(),
		lget(h), i32c(1), op(wasmcore.OpI32Add), gget(g.hashMask), op(wasmcore.OpI32And), lset(h),
		wasmcore.Instr{Op: wasmcore.OpBr, Index: 0},
		end(),
		op(wasmcore.OpUnreachable),
		end(),
	)
	return code(out...)
}

// sampleEnterCode is enterCode for sampling: push the caller's function
// object, first and current opcode addresses, and start this activation
// with no opcode yet. Nothing is looked up or charged: the host names the
// functions on the stack when it samples.
//
// It runs at every JS call, so the common case (room on the stack) is one
// test: the stack's end is 0 until the host starts the meter, so that sp
// < end fails then too, and the rare paths (not started, full) are behind
// it.
//
// withEntry: the activations' first opcode addresses are kept too (see
// sampleDispatchCode).
func (g *globals) sampleEnterCode(funcObj []byte, fGrow uint32, l dispatchLocals, withEntry bool) []byte {
	f := l.f
	push := ops{
		lget(f), gget(g.funcObj), store64(sampleFrameFuncObj),
		lget(f), gget(g.slot), store32(sampleFramePC),
	}
	if withEntry {
		push = append(push, lget(f), gget(g.entry), store32(sampleFrameEntry))
	}
	next := ops{lget(f), i32c(sampleFrameSize), op(wasmcore.OpI32Add), gset(g.sp)}
	ins := ops{gget(g.sp), ltee(f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifThen()}
	ins = append(ins, push...)
	ins = append(ins, next...)
	ins = append(ins, op(wasmcore.OpElse),
		// not started (sp 0: nothing to do), or full: grow the stack, then
		// push if it has room now, and count the activation either way
		lget(f), ifThen(),
		call(fGrow),
		gget(g.sp), ltee(f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifThen(),
	)
	ins = append(ins, push...)
	ins = append(ins, end())
	ins = append(ins, next...)
	ins = append(ins, end(), end())
	b := code(ins...)
	b = append(b, funcObj...)
	return append(b, code(gset(g.funcObj), i32c(0), gset(g.slot))...)
}

// sampleExitCode pops the caller's state (none, past a full stack). Like
// the entry, the common case is one test: the popped frame below the
// stack's end (which fails before the host starts the meter: sp is 0, the
// frame's address wraps around).
func (g *globals) sampleExitCode(l dispatchLocals, withEntry bool) []byte {
	f := l.f
	pop := ops{
		lget(f), load64(sampleFrameFuncObj), gset(g.funcObj),
		lget(f), load32(sampleFramePC), gset(g.slot),
	}
	none := ops{i64c(0), gset(g.funcObj), i32c(0), gset(g.slot)}
	if withEntry {
		pop = append(pop, lget(f), load32(sampleFrameEntry), gset(g.entry))
		none = append(none, i32c(0), gset(g.entry))
	}
	ins := ops{
		gget(g.sp), i32c(sampleFrameSize), op(wasmcore.OpI32Sub), ltee(f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifThen(),
	}
	ins = append(ins, pop...)
	ins = append(ins, lget(f), gset(g.sp), op(wasmcore.OpElse),
		gget(g.sp), ifThen(), // started, past a full stack
		lget(f), gset(g.sp),
	)
	ins = append(ins, none...)
	ins = append(ins, end(), end())
	return code(ins...)
}

// sampleDispatchCode records the dispatched opcode's address: one global
// store per opcode. When the host cannot find a function's bytecode from
// its function object (no pointer chain: withEntry), the activation's
// first address is kept as well, to name the function by.
func (g *globals) sampleDispatchCode(l dispatchLocals, withEntry bool) []byte {
	if !withEntry {
		return code(lget(l.addr), gset(g.slot))
	}
	return code(
		gget(g.slot), op(wasmcore.OpI32Eqz), ifThen(), lget(l.addr), gset(g.entry), end(),
		lget(l.addr), gset(g.slot),
	)
}

// callerKey pushes the parent and site of an activation's key: the block
// and slot of its caller, from the frame below sp (f holds its address),
// or 0 and 0 when that frame did not fit on the stack; the site with tag
// or'ed in.
func (g *globals) callerKey(f uint32, tag uint32) ops {
	return ops{
		gget(g.sp), i32c(frameSize), op(wasmcore.OpI32Sub), ltee(f), gget(g.stackEnd), op(wasmcore.OpI32LtU),
		ifI32(), lget(f), load32(frameBlock), op(wasmcore.OpElse), i32c(0), end(),
		lget(f), gget(g.stackEnd), op(wasmcore.OpI32LtU),
		ifI32(), lget(f), load32(frameSlot), op(wasmcore.OpElse), i32c(0), end(),
		u32c(tag), op(wasmcore.OpI32Or),
	}
}

// identifyNative makes the running activation the native whose key key
// pushes (addr i32, function object i64, parent i32, site i32): look up
// (or have the host create) its block, count a call, and mark the
// activation identified, outer if no other activation of the block is
// running, with extra flags. What ran since the last charge (the
// interpreter's entry) goes to the native's block at the next charge.
func (g *globals) identifyNative(fLookup uint32, key ops, b uint32, extra int32) ops {
	out := append(ops{}, key...)
	return append(out,
		call(fLookup), ltee(b), gset(g.block),
		lget(b), lget(b), load64(blockCalls), i64c(1), op(wasmcore.OpI64Add), store64(blockCalls),
		lget(b), load32(blockActive), op(wasmcore.OpI32Eqz), i32c(2), op(wasmcore.OpI32Shl), i32c(flagIdentified|extra), op(wasmcore.OpI32Or), gset(g.flags),
		lget(b), lget(b), load32(blockActive), i32c(1), op(wasmcore.OpI32Add), store32(blockActive),
	)
}

// classCallCode is inlined before the interpreter's call through the class
// table (the callee's table index on the stack): a fresh activation
// calling anything but js_call_c_function (cfunc, which identifies its
// natives itself) is a call of a function that is neither bytecode nor C
// — a host function, a bound function, an async function's start —: it is
// counted as the unidentified native in its caller's context rather than
// in the native bucket at the root, so that its caller's inclusive cost
// holds it and its callees keep their context. Runs once per such call,
// never per opcode.
func (g *globals) classCallCode(fLookup uint32, funcObj []byte, cfunc uint32, l dispatchLocals) []byte {
	b := code(
		ltee(l.i), // the callee, left on the stack
		wasmcore.Instr{Op: wasmcore.OpBlock, Block: wasmcore.BlockEmpty},
		gget(g.flags), i32c(flagFresh), op(wasmcore.OpI32Ne), wasmcore.Instr{Op: wasmcore.OpBrIf, Index: 0},
		lget(l.i), i32c(int32(cfunc)), op(wasmcore.OpI32Eq), wasmcore.Instr{Op: wasmcore.OpBrIf, Index: 0},
		i32c(unidentifiedAddr),
	)
	b = append(b, funcObj...)
	b = append(b, code(g.identifyNative(fLookup, g.callerKey(l.f, siteUnknown), l.b, 0)...)...)
	return append(b, code(end())...)
}

// nativeLocals are the scratch locals of js_call_c_function's hooks.
type nativeLocals struct{ f, b, p, k uint32 }

// nativeHooks instruments js_call_c_function (n.Func). At its entry, the
// native it calls is identified by the table index and magic its function
// object holds: in place, when the innermost activation is the fresh one
// the interpreter entered to call it (the usual way, a call from JS or
// JS_Call from C); otherwise (a constructor called through
// JS_CallConstructorInternal, which runs no interpreter activation) as an
// activation of its own, pushed here and popped at its exit (flagPushed).
// Per native call, never per opcode.
func (g *globals) nativeHooks(m *wasmcore.Module, n *NativeCalls, fLookup, fGrow uint32) wasmcore.Hooks {
	fn := m.Function(n.Func)
	ft, _ := m.FuncTypeOf(n.Func)
	first := uint32(len(ft.Params))
	for _, loc := range fn.Locals {
		first += loc.Count
	}
	fn.Locals = append(fn.Locals, wasmcore.Local{Count: 4, Type: wasmcore.ValI32})
	l := nativeLocals{f: first, b: first + 1, p: first + 2, k: first + 3}
	const funcObj = 1 // the function object parameter

	// key pushes addr (the table index | magic << 16, or unidentifiedAddr
	// for index 0, which no function has, or one past maxNativeTableIndex)
	// and the function object, leaving in k whether the index was out of
	// that range. An address is never 0: that marks a free table entry.
	key := ops{
		lget(funcObj), op(wasmcore.OpI32WrapI64), ltee(l.p), load32(uint64(n.FuncOffset)), ltee(l.b),
		i32c(1), op(wasmcore.OpI32Sub), i32c(maxNativeTableIndex - 1), op(wasmcore.OpI32GtU), ltee(l.k),
		ifI32(), i32c(unidentifiedAddr), op(wasmcore.OpElse), lget(l.b),
	}
	if n.HasMagic {
		key = append(key, lget(l.p), wasmcore.Instr{Op: wasmcore.OpI32Load16U, Mem: wasmcore.MemArg{Align: 1, Offset: uint64(n.MagicOffset)}},
			i32c(16), op(wasmcore.OpI32Shl), op(wasmcore.OpI32Or))
	}
	key = append(key, end(), lget(funcObj))
	// tag or's the site's tag: siteUnknown for a table index out of range.
	tag := ops{u32c(siteUnknown), u32c(siteNative), lget(l.k), op(wasmcore.OpSelect), op(wasmcore.OpI32Or)}

	inPlace := append(append(append(ops{}, key...), g.callerKey(l.f, 0)...), tag...)
	// Pushed: the caller is the running activation, at its running slot
	// (0 and 0 past a full stack, as for a JS call).
	pushedKey := append(ops{}, key...)
	pushedKey = append(pushedKey,
		lget(l.f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifI32(), gget(g.block), op(wasmcore.OpElse), i32c(0), end(),
		lget(l.f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifI32(), gget(g.slot), op(wasmcore.OpElse), i32c(0), end(),
	)
	pushedKey = append(pushedKey, tag...)

	entry := g.startedBlock()
	entry = append(entry, gget(g.flags), i32c(flagFresh), op(wasmcore.OpI32Eq), ifThen())
	entry = append(entry, g.identifyNative(fLookup, inPlace, l.b, 0)...)
	entry = append(entry, op(wasmcore.OpElse))
	entry = append(entry, g.closeOps(l.p)...)
	entry = append(entry,
		gget(g.sp), gget(g.stackEnd), op(wasmcore.OpI32GeU), ifThen(), call(fGrow), end(),
		gget(g.sp), ltee(l.f), gget(g.stackEnd), op(wasmcore.OpI32LtU), ifThen(),
		lget(l.f), gget(g.block), store32(frameBlock),
		lget(l.f), gget(g.slot), store32(frameSlot),
		lget(l.f), gget(g.flags), store32(frameFlags),
		lget(l.f), gget(g.count), store64(frameEntry),
		lget(l.f), lget(funcObj), store64(frameFuncObj),
		end(),
		lget(l.f), i32c(frameSize), op(wasmcore.OpI32Add), gset(g.sp),
	)
	entry = append(entry, g.identifyNative(fLookup, pushedKey, l.b, flagPushed)...)
	entry = append(entry,
		i32c(0), gset(g.slot),
		i32c(0), gset(g.base),
		i32c(0), gset(g.limit),
		end(), // if
		end(), // started
	)
	exit := code(gget(g.flags), i32c(flagPushed), op(wasmcore.OpI32And), ifThen())
	exit = append(exit, g.exitCode(dispatchLocals{f: l.f, b: l.b, p: l.p})...)
	exit = append(exit, code(end())...)
	return wasmcore.Hooks{Entry: code(entry...), Exit: exit}
}
