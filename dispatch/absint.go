package dispatch

import (
	"fmt"

	"github.com/jsprof/jsprof/wasmcore"
)

// The abstract interpreter runs once over a function body and turns every
// value into a node of an expression graph in SSA form: constants, the
// function's parameters, loads (with their address), arithmetic, calls,
// and phi nodes where control flow merges. Locals are tracked in an
// environment mapping each local to its current node; block ends merge the
// environments of the branches reaching them, and loop headers get a phi for
// every local the loop assigns, completed by the loop's back edges. So a
// local reused by the register allocator for unrelated values does not
// confuse the tracing, and a loop-carried value (the bytecode pc) is a loop
// phi whose back-edge operands derive from itself.
//
// Memory is tracked flow-insensitively: a load from a constant offset of a
// node, where stores to that same place exist (a stack-frame slot of
// unoptimized code, a field of a structure), stands for the values stored
// there.

type nodeKind uint8

const (
	nUnknown nodeKind = iota
	nConst
	nParam  // local = parameter index
	nLoad   // a = address, val = memarg offset, local = 1 + the local the address was just read from (0: none)
	nBin    // a op b
	nUn     // op a
	nSelect // a or b
	nGlobal // local = global index
	nCall   // local = function index
	nPhi    // a = index into phiOps, local = the local merged, b = owning frame
)

type node struct {
	kind  nodeKind
	op    wasmcore.Opcode
	a, b  int32
	local uint32
	val   int64
	at    uint32 // body offset of the instruction producing the value
}

type slotKey struct {
	base int32 // address node
	off  uint64
}

type frameKind byte

const (
	frameFunc frameKind = iota
	frameBlock
	frameLoop
	frameIf
)

type frameInfo struct {
	kind      frameKind
	start     uint32 // body offset of the block/loop/if instruction
	startNext uint32 // body offset of the instruction after it
	end       uint32 // body offset of its end instruction
	endNext   uint32
}

// brTableSite is one br_table of a function.
type brTableSite struct {
	offset   uint32   // body offset
	labels   []uint32 // default last
	selector int32    // node
	targets  []int32  // frame id per label
	loop     int32    // innermost enclosing loop frame, -1
}

// funcAnalysis is the abstract interpretation of one function.
type funcAnalysis struct {
	m       *wasmcore.Module
	index   uint32
	fn      *wasmcore.Function
	nParams int
	nLocals int

	nodes    []node
	phiOps   [][]int32
	slotDefs map[slotKey][]int32
	loads    []int32
	compares []int32
	frames   []frameInfo
	brTables []brTableSite
	selfCall int
	home     map[int32]uint32 // node -> first local it was assigned to
	readFrom map[int32]uint32 // node -> first local it was read from

	carriedCache map[int32]bool        // loop phi -> loopCarried
	chainMemo    map[int32]chainResult // node -> its complete load chains
	pcUseMemo    map[pcKey]*pcUseResult
	spill        []int8 // per node: spillSlot's answer, once known

	// The budget (budget.go): steps taken and allowed; exhausted once
	// they ran out, stopped once the budget or the analysis ended.
	meter       *meter
	steps       int64 // interpretation and tracing
	phase       int   // phaseInterpret, then phaseTrace
	phaseSteps  int64 // in the current phase
	interpSteps int64 // of the interpretation, once done
	limit       int64 // per phase
	exhausted   bool
	stopped     bool
	// widened: the budget ran out while interpreting; locals read as
	// unknown from there on.
	widened bool

	async asyncifyState
	// asyncDecided counts the reachable branches decided by the asyncify
	// state (asyncify.go).
	asyncDecided int
}

// maxLocals bounds the locals of an analysed function.
const maxLocals = 1 << 16

// maxLoopSetWords bounds the bit sets of locals assigned in loops (loops
// times locals/64; the real engines need a few thousand).
const maxLoopSetWords = 1 << 20

type ctlFrame struct {
	id          int32
	kind        frameKind
	height      int
	nParams     int
	nResults    int
	unreachable bool
	dead        bool    // entered in unreachable code
	elseDead    bool    // if: the asyncify state rules the else arm out
	merged      []int32 // environment at the block end, nil until a branch arrives
	elseEnv     []int32 // if: environment for the else arm
	loopPhis    []int32 // loop: phi per assigned local
	loopLocals  []uint32
}

// analyzeFunction interprets one function, taking its steps from mt (its
// budget is functionBudget of its size); async is the module's asyncify
// state global, if any.
func analyzeFunction(m *wasmcore.Module, index uint32, mt *meter, async asyncifyState) (*funcAnalysis, error) {
	fn := m.Function(index)
	if fn == nil {
		return nil, fmt.Errorf("function %d is not defined in the module", index)
	}
	ft, err := m.FuncTypeOf(index)
	if err != nil {
		return nil, err
	}
	n := uint64(len(ft.Params))
	for _, l := range fn.Locals {
		n += uint64(l.Count)
	}
	if n > maxLocals {
		return nil, fmt.Errorf("function %d: %d locals, more than %d", index, n, maxLocals)
	}
	fa := &funcAnalysis{m: m, index: index, fn: fn, nParams: len(ft.Params), nLocals: int(n),
		slotDefs: map[slotKey][]int32{}, home: map[int32]uint32{}, readFrom: map[int32]uint32{},
		meter: mt, limit: functionBudget(len(fn.Body)), async: async}
	fa.nodes = make([]node, 1, len(fn.Body)/2+16) // node 0: unknown
	if err := fa.run(); err != nil {
		return fa, fmt.Errorf("function %d: %w", index, err)
	}
	fa.startTracing()
	return fa, nil
}

func (fa *funcAnalysis) add(nd node) int32 {
	fa.nodes = append(fa.nodes, nd)
	return int32(len(fa.nodes) - 1)
}

func (fa *funcAnalysis) blockArity(bt int64) (params, results int) {
	switch {
	case bt == wasmcore.BlockEmpty:
		return 0, 0
	case bt < 0:
		return 0, 1
	case bt < int64(len(fa.m.Types)):
		t := fa.m.Types[bt]
		return len(t.Params), len(t.Results)
	}
	return 0, 0
}

// loopAssigned returns, per loop in order of appearance, the locals assigned
// inside it, and the locals assigned at more than one place.
func (fa *funcAnalysis) loopAssigned() ([][]uint32, []uint32, error) {
	words := (fa.nLocals + 63) / 64
	var sets [][]uint64
	var open []int // loop ordinal per open block, -1 for non-loops
	var openLoops []int
	assigned := make([]uint64, words)
	once := make([]uint64, words)
	ir := wasmcore.NewInstrReader(fa.fn.Body)
	for {
		in, ok, err := ir.Next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		switch in.Op {
		case wasmcore.OpBlock, wasmcore.OpIf, wasmcore.OpTry:
			open = append(open, -1)
		case wasmcore.OpLoop:
			if (len(sets)+1)*words > maxLoopSetWords {
				return nil, nil, fmt.Errorf("too many loops for its %d locals to analyse", fa.nLocals)
			}
			sets = append(sets, make([]uint64, words))
			open = append(open, len(sets)-1)
			openLoops = append(openLoops, len(sets)-1)
		case wasmcore.OpEnd, wasmcore.OpDelegate:
			if n := len(open); n > 0 {
				if open[n-1] >= 0 {
					openLoops = openLoops[:len(openLoops)-1]
				}
				open = open[:n-1]
			}
		case wasmcore.OpLocalSet, wasmcore.OpLocalTee:
			l := in.Index
			if int(l) >= fa.nLocals {
				continue
			}
			w, bit := l/64, uint64(1)<<(l%64)
			if once[w]&bit != 0 {
				assigned[w] |= bit
			}
			once[w] |= bit
			for _, lp := range openLoops {
				sets[lp][w] |= bit
			}
		}
	}
	toList := func(bs []uint64) []uint32 {
		var out []uint32
		for w, x := range bs {
			for b := 0; x != 0; b++ {
				if x&1 != 0 {
					out = append(out, uint32(w*64+b))
				}
				x >>= 1
			}
		}
		return out
	}
	lists := make([][]uint32, len(sets))
	for i, s := range sets {
		for w := range s {
			s[w] &= assigned[w]
		}
		lists[i] = toList(s)
	}
	return lists, toList(assigned), nil
}

func (fa *funcAnalysis) newPhi(local uint32, owner int32, ops ...int32) int32 {
	fa.phiOps = append(fa.phiOps, ops)
	return fa.add(node{kind: nPhi, local: local, a: int32(len(fa.phiOps) - 1), b: owner})
}

func (fa *funcAnalysis) run() error {
	loopSets, assigned, err := fa.loopAssigned()
	if err != nil {
		return err
	}
	loopOrdinal := 0
	// emptyEnv stands for the environment of a frame once the function
	// is widened: non-nil (the frame is reached) but holding nothing.
	emptyEnv := []int32{}
	// charge takes n steps of merging from the budget; when they run
	// out, the function is widened and the merge is skipped.
	charge := func(n int) bool {
		if fa.widened {
			return false
		}
		if !fa.tick(n) {
			fa.widened = true
			return false
		}
		return true
	}

	// Locals assigned at one place only never need a phi: their value is
	// that assignment's (or the initial one before it). The others live
	// in env, densely numbered.
	dense := make([]int32, fa.nLocals)
	for l := range dense {
		dense[l] = -1
	}
	for k, l := range assigned {
		dense[l] = int32(k)
	}
	single := make([]int32, fa.nLocals)
	env := make([]int32, len(assigned))
	for l := range fa.nLocals {
		var v int32
		if l < fa.nParams {
			v = fa.add(node{kind: nParam, local: uint32(l)})
		} else {
			v = fa.add(node{kind: nConst, val: 0})
		}
		single[l] = v
		if k := dense[l]; k >= 0 {
			env[k] = v
		}
	}
	var (
		stack []int32
		ctl   []ctlFrame
	)
	pop := func() int32 {
		f := &ctl[len(ctl)-1]
		if len(stack) > f.height {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			return v
		}
		return 0
	}
	push := func(v int32) { stack = append(stack, v) }
	unknowns := func(k int) {
		for range k {
			push(0)
		}
	}
	setUnreachable := func() {
		f := &ctl[len(ctl)-1]
		stack = stack[:f.height]
		f.unreachable = true
	}
	// mergeInto adds the current environment to a frame's merged one.
	mergeInto := func(f *ctlFrame, e []int32) {
		if !charge(len(e)) {
			if f.merged == nil {
				f.merged = emptyEnv
			}
			return
		}
		if f.merged == nil {
			f.merged = append([]int32(nil), e...)
			return
		}
		for k, v := range e {
			have := f.merged[k]
			if have == v {
				continue
			}
			if nd := &fa.nodes[have]; nd.kind == nPhi && nd.b == f.id {
				fa.phiOps[nd.a] = append(fa.phiOps[nd.a], v)
				continue
			}
			f.merged[k] = fa.newPhi(assigned[k], f.id, have, v)
		}
	}
	branch := func(depth uint32) {
		if int(depth) >= len(ctl) {
			return
		}
		f := &ctl[len(ctl)-1-int(depth)]
		switch f.kind {
		case frameLoop:
			if !charge(len(f.loopLocals)) {
				return
			}
			for i, l := range f.loopLocals {
				phi := f.loopPhis[i]
				if v := env[dense[l]]; v != phi {
					ops := &fa.phiOps[fa.nodes[phi].a]
					*ops = append(*ops, v)
				}
			}
		default:
			mergeInto(f, env)
		}
	}
	targetID := func(depth uint32) int32 {
		if int(depth) >= len(ctl) {
			return -1
		}
		return ctl[len(ctl)-1-int(depth)].id
	}
	slotOf := func(addr int32, off uint64) slotKey {
		nd := fa.nodes[addr]
		if nd.kind == nBin && (nd.op == wasmcore.OpI32Add || nd.op == wasmcore.OpI64Add) {
			if r := fa.nodes[nd.b]; r.kind == nConst && r.val >= 0 {
				return slotKey{nd.a, off + uint64(r.val)}
			}
		}
		return slotKey{addr, off}
	}

	fa.frames = append(fa.frames, frameInfo{kind: frameFunc})
	ctl = append(ctl, ctlFrame{id: 0, kind: frameFunc})
	ir := wasmcore.NewInstrReader(fa.fn.Body)
	var prev wasmcore.Instr
	for count := 0; ; count++ {
		// One step per instruction; once widened, the budget is spent
		// but the context is still watched.
		if !fa.widened && !fa.tick(1) {
			fa.widened = true
		}
		if fa.widened && count%checkEvery == 0 {
			fa.meter.check()
		}
		if err := fa.meter.cancelled(); err != nil {
			return err
		}
		in, ok, err := ir.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		op := in.Op
		cur := &ctl[len(ctl)-1]
		lastGet := uint32(0)
		if prev.Op == wasmcore.OpLocalGet {
			lastGet = prev.Index + 1
		}
		prev = in
		switch op {
		case wasmcore.OpBlock, wasmcore.OpLoop, wasmcore.OpIf, wasmcore.OpTry:
			truth, decided := false, false
			if op == wasmcore.OpIf {
				truth, decided = fa.stateCondition(pop())
				if decided && !cur.unreachable {
					fa.asyncDecided++
				}
			}
			p, r := fa.blockArity(in.Block)
			kind := frameBlock
			switch op {
			case wasmcore.OpLoop:
				kind = frameLoop
			case wasmcore.OpIf:
				kind = frameIf
			}
			fa.frames = append(fa.frames, frameInfo{kind: kind, start: in.Offset, startNext: in.Offset + in.Len})
			h := max(len(stack)-p, cur.height)
			f := ctlFrame{id: int32(len(fa.frames) - 1), kind: kind, height: h, nParams: p, nResults: r, unreachable: cur.unreachable, dead: cur.unreachable}
			switch kind {
			case frameLoop:
				if loopOrdinal < len(loopSets) {
					f.loopLocals = loopSets[loopOrdinal]
				}
				loopOrdinal++
				if !charge(len(f.loopLocals)) {
					f.loopLocals = nil
				}
				for _, l := range f.loopLocals {
					phi := fa.newPhi(l, f.id, env[dense[l]])
					f.loopPhis = append(f.loopPhis, phi)
					env[dense[l]] = phi
				}
			case frameIf:
				switch {
				case decided && truth:
					// Only the then arm runs: no else
					// environment to merge.
					f.elseDead = true
				case charge(len(env)):
					f.elseEnv = append([]int32(nil), env...)
				default:
					f.elseEnv = emptyEnv
				}
				if decided && !truth {
					f.unreachable = true
				}
			}
			ctl = append(ctl, f)
		case wasmcore.OpElse, wasmcore.OpCatch, wasmcore.OpCatchAll:
			if !cur.unreachable {
				mergeInto(cur, env)
			}
			stack = stack[:cur.height]
			cur.unreachable = cur.dead || cur.elseDead
			if cur.elseEnv != nil {
				copy(env, cur.elseEnv)
				cur.elseEnv = nil
			}
			if op == wasmcore.OpElse {
				unknowns(cur.nParams)
			} else {
				unknowns(1)
			}
		case wasmcore.OpEnd, wasmcore.OpDelegate:
			f := ctl[len(ctl)-1]
			fi := &fa.frames[f.id]
			fi.end, fi.endNext = in.Offset, in.Offset+in.Len
			onlyFall := f.merged == nil && f.elseEnv == nil && !f.unreachable
			var res []int32
			if onlyFall && len(stack)-f.height >= f.nResults {
				res = append(res, stack[len(stack)-f.nResults:]...)
			}
			if !f.unreachable && f.kind != frameLoop {
				mergeInto(&f, env)
			}
			if f.elseEnv != nil && !f.dead {
				mergeInto(&f, f.elseEnv)
			}
			stack = stack[:f.height]
			ctl = ctl[:len(ctl)-1]
			if len(ctl) == 0 {
				break
			}
			if f.kind != frameLoop && f.merged != nil {
				copy(env, f.merged)
			}
			if f.kind != frameLoop {
				ctl[len(ctl)-1].unreachable = f.merged == nil
			} else {
				ctl[len(ctl)-1].unreachable = f.unreachable
			}
			if res != nil {
				stack = append(stack, res...)
			} else {
				unknowns(f.nResults)
			}
		case wasmcore.OpBr:
			if !cur.unreachable {
				branch(in.Index)
			}
			setUnreachable()
		case wasmcore.OpBrIf:
			truth, decided := fa.stateCondition(pop())
			if decided && !cur.unreachable {
				fa.asyncDecided++
			}
			if !cur.unreachable && (!decided || truth) {
				branch(in.Index)
			}
			if decided && truth {
				setUnreachable()
			}
		case wasmcore.OpBrTable:
			sel := pop()
			site := brTableSite{offset: in.Offset, labels: in.Labels, selector: sel, loop: -1}
			seen := map[uint32]bool{}
			for _, l := range in.Labels {
				site.targets = append(site.targets, targetID(l))
				if !seen[l] && !cur.unreachable {
					seen[l] = true
					branch(l)
				}
			}
			for i := len(ctl) - 1; i >= 0; i-- {
				if ctl[i].kind == frameLoop {
					site.loop = ctl[i].id
					break
				}
			}
			fa.brTables = append(fa.brTables, site)
			setUnreachable()
		case wasmcore.OpReturn, wasmcore.OpUnreachable, wasmcore.OpThrow, wasmcore.OpRethrow, wasmcore.OpThrowRef:
			setUnreachable()
		case wasmcore.OpCall, wasmcore.OpReturnCall:
			p, r := 0, 0
			if ft, err := fa.m.FuncTypeOf(in.Index); err == nil {
				p, r = len(ft.Params), len(ft.Results)
			}
			if in.Index == fa.index {
				fa.selfCall++
			}
			for range p {
				pop()
			}
			if op == wasmcore.OpReturnCall {
				setUnreachable()
				break
			}
			for range r {
				push(fa.add(node{kind: nCall, local: in.Index, at: in.Offset}))
			}
		case wasmcore.OpCallIndirect, wasmcore.OpReturnCallIndirect:
			pop()
			p, r := 0, 0
			if in.Index < uint32(len(fa.m.Types)) {
				p, r = len(fa.m.Types[in.Index].Params), len(fa.m.Types[in.Index].Results)
			}
			for range p {
				pop()
			}
			if op == wasmcore.OpReturnCallIndirect {
				setUnreachable()
				break
			}
			unknowns(r)
		case wasmcore.OpLocalGet:
			if int(in.Index) >= fa.nLocals {
				return fmt.Errorf("local.get %d at %#x: only %d locals", in.Index, in.Offset, fa.nLocals)
			}
			if fa.widened {
				push(0)
				break
			}
			v := single[in.Index]
			if k := dense[in.Index]; k >= 0 {
				v = env[k]
			}
			if _, ok := fa.readFrom[v]; !ok {
				fa.readFrom[v] = in.Index
			}
			push(v)
		case wasmcore.OpLocalSet, wasmcore.OpLocalTee:
			if int(in.Index) >= fa.nLocals {
				return fmt.Errorf("%v %d at %#x: only %d locals", op, in.Index, in.Offset, fa.nLocals)
			}
			v := pop()
			switch k := dense[in.Index]; {
			case fa.widened:
			case k >= 0:
				env[k] = v
			default:
				single[in.Index] = v
			}
			if _, ok := fa.home[v]; !ok {
				fa.home[v] = in.Index
			}
			if op == wasmcore.OpLocalTee {
				push(v)
			}
		case wasmcore.OpGlobalGet:
			push(fa.add(node{kind: nGlobal, local: in.Index, at: in.Offset}))
		case wasmcore.OpGlobalSet:
			pop()
		case wasmcore.OpI32Const:
			push(fa.add(node{kind: nConst, op: op, val: int64(in.I32), at: in.Offset}))
		case wasmcore.OpI64Const:
			push(fa.add(node{kind: nConst, op: op, val: in.I64, at: in.Offset}))
		case wasmcore.OpSelect, wasmcore.Opcode(0x1C): // select, typed select
			pop()
			b := pop()
			a := pop()
			push(fa.add(node{kind: nSelect, a: a, b: b, at: in.Offset}))
		default:
			switch {
			case isLoad(op):
				addr := pop()
				id := fa.add(node{kind: nLoad, op: op, a: addr, val: int64(in.Mem.Offset), at: in.Offset, local: lastGet})
				fa.loads = append(fa.loads, id)
				push(id)
			case isStore(op):
				v := pop()
				addr := pop()
				k := slotOf(addr, in.Mem.Offset)
				fa.slotDefs[k] = append(fa.slotDefs[k], v)
			default:
				pops, pushes, known := stackEffect(op)
				if !known {
					// Unknown stack effect: forget the operands of
					// this block; later pops read unknown values.
					stack = stack[:cur.height]
					break
				}
				switch {
				case pops == 2 && pushes == 1:
					b := pop()
					a := pop()
					id := fa.add(node{kind: nBin, op: op, a: a, b: b, at: in.Offset})
					if isCompare(op) {
						fa.compares = append(fa.compares, id)
					}
					push(id)
				case pops == 1 && pushes == 1:
					a := pop()
					push(fa.add(node{kind: nUn, op: op, a: a, at: in.Offset}))
				default:
					for range pops {
						pop()
					}
					unknowns(pushes)
				}
			}
		}
		if len(ctl) == 0 {
			if int(in.Offset+in.Len) != len(fa.fn.Body) {
				return fmt.Errorf("instructions after the function's end at %#x", in.Offset)
			}
			return nil
		}
	}
	return fmt.Errorf("body ends inside a block")
}

func isLoad(op wasmcore.Opcode) bool { return op >= 0x28 && op <= 0x35 }

func isStore(op wasmcore.Opcode) bool { return op >= 0x36 && op <= 0x3E }

func isCompare(op wasmcore.Opcode) bool {
	return op >= 0x46 && op <= 0x4F || op >= 0x51 && op <= 0x5A
}

// loadWidth returns the bytes a load reads and whether it sign-extends.
func loadWidth(op wasmcore.Opcode) (int, bool) {
	switch op {
	case wasmcore.OpI32Load8U, wasmcore.OpI64Load8U:
		return 1, false
	case wasmcore.OpI32Load8S, wasmcore.OpI64Load8S:
		return 1, true
	case wasmcore.OpI32Load16U, wasmcore.OpI64Load16U:
		return 2, false
	case wasmcore.OpI32Load16S, wasmcore.OpI64Load16S:
		return 2, true
	case wasmcore.OpI32Load, wasmcore.OpF32Load, wasmcore.OpI64Load32U:
		return 4, false
	case wasmcore.OpI64Load32S:
		return 4, true
	}
	return 8, false
}

// stackEffect returns the operands popped and results pushed by the
// instructions run handles generically. known is false for instructions
// whose effect it does not model (SIMD, atomics, unknown ones).
func stackEffect(op wasmcore.Opcode) (pops, pushes int, known bool) {
	if op>>24 == 0xFC {
		switch sub := op & 0xFFFFFF; {
		case sub <= 7:
			return 1, 1, true
		case sub == 8, sub == 10, sub == 11, sub == 12, sub == 14, sub == 17:
			return 3, 0, true
		case sub == 9, sub == 13:
			return 0, 0, true
		case sub == 15:
			return 2, 1, true
		case sub == 16:
			return 0, 1, true
		}
		return 0, 0, false
	}
	if op>>24 != 0 {
		return 0, 0, false
	}
	switch {
	case op == wasmcore.OpNop:
		return 0, 0, true
	case op == wasmcore.OpDrop:
		return 1, 0, true
	case op == 0x25: // table.get
		return 1, 1, true
	case op == 0x26: // table.set
		return 2, 0, true
	case op == 0x3F: // memory.size
		return 0, 1, true
	case op == 0x40: // memory.grow
		return 1, 1, true
	case op == 0x43 || op == 0x44: // f32.const, f64.const
		return 0, 1, true
	case op == 0x45 || op == 0x50: // eqz
		return 1, 1, true
	case op >= 0x46 && op <= 0x4F, op >= 0x51 && op <= 0x66:
		return 2, 1, true
	case op >= 0x67 && op <= 0x69, op >= 0x79 && op <= 0x7B, op >= 0x8B && op <= 0x91, op >= 0x99 && op <= 0x9F:
		return 1, 1, true
	case op >= 0x6A && op <= 0x78, op >= 0x7C && op <= 0x8A, op >= 0x92 && op <= 0x98, op >= 0xA0 && op <= 0xA6:
		return 2, 1, true
	case op >= 0xA7 && op <= 0xC4:
		return 1, 1, true
	case op == 0xD0 || op == 0xD2: // ref.null, ref.func
		return 0, 1, true
	case op == 0xD1: // ref.is_null
		return 1, 1, true
	}
	return 0, 0, false
}
