package dispatch

import (
	"fmt"
	"slices"
	"sort"

	"github.com/jsprof/jsprof/wasmcore"
)

// A selection is the traced provenance of a br_table selector.
type selection struct {
	kind      string  // "direct", "lookup" or "other"
	add       int64   // index = opcode + add (direct) or table entry + add (lookup)
	byteLoads []int32 // load nodes reading the opcode byte
	lookup    *lookupInfo
	others    int // leaves not derived from a byte load
	mixed     bool
	expr      string
}

type lookupInfo struct {
	table    uint64 // address of entry 0
	width    int
	signed   bool
	indexAdd int64 // entry index = opcode + indexAdd
	guard    uint64
}

type leafKind uint8

const (
	leafByte leafKind = iota
	leafLookup
	leafConst
	leafOther
)

type leaf struct {
	kind leafKind
	node int32
	add  int64
	lk   lookupInfo
}

type walkState struct {
	fa          *funcAnalysis
	budget      int
	seen        map[int32]bool // phis and slots visited
	seenSlot    map[slotKey]bool
	leaves      []leaf
	allowLookup bool
}

const walkBudget = 4096

func (fa *funcAnalysis) newWalk(budget int, lookups bool) *walkState {
	return &walkState{fa: fa, budget: budget, seen: map[int32]bool{}, seenSlot: map[slotKey]bool{}, allowLookup: lookups}
}

// constValue returns the constant value of a node.
func (fa *funcAnalysis) constValue(n int32) (int64, bool) {
	nd := fa.nodes[n]
	if nd.kind == nConst {
		return nd.val, true
	}
	return 0, false
}

// slotKeyOf returns the memory place a load or store address designates.
func (fa *funcAnalysis) slotKeyOf(addr int32, off uint64) slotKey {
	nd := fa.nodes[addr]
	if nd.kind == nBin && (nd.op == wasmcore.OpI32Add || nd.op == wasmcore.OpI64Add) {
		if r := fa.nodes[nd.b]; r.kind == nConst && r.val >= 0 {
			return slotKey{nd.a, off + uint64(r.val)}
		}
	}
	return slotKey{addr, off}
}

// spillSlot reports whether a load reads a place the function stores to.
// The answer is kept per node: the tracing walks ask it of the same loads
// many times, and the map lookup dominated their cost.
func (fa *funcAnalysis) spillSlot(n int32) (slotKey, bool) {
	nd := fa.nodes[n]
	if nd.kind != nLoad {
		return slotKey{}, false
	}
	if fa.spill == nil {
		fa.spill = make([]int8, len(fa.nodes))
	}
	k := fa.slotKeyOf(nd.a, uint64(nd.val))
	switch fa.spill[n] {
	case spillYes:
		return k, true
	case spillNo:
		return slotKey{}, false
	}
	if len(fa.slotDefs[k]) == 0 {
		fa.spill[n] = spillNo
		return slotKey{}, false
	}
	fa.spill[n] = spillYes
	return k, true
}

// Values of funcAnalysis.spill.
const (
	spillUnknown int8 = iota
	spillNo
	spillYes
)

func (w *walkState) walk(n int32, add int64) {
	fa := w.fa
	if w.budget--; w.budget <= 0 || !fa.tick(1) {
		w.leaves = append(w.leaves, leaf{kind: leafOther, node: n})
		return
	}
	nd := fa.nodes[n]
	other := func() { w.leaves = append(w.leaves, leaf{kind: leafOther, node: n, add: add}) }
	switch nd.kind {
	case nConst:
		w.leaves = append(w.leaves, leaf{kind: leafConst, node: n, add: add + nd.val})
	case nPhi:
		if w.seen[n] {
			return
		}
		w.seen[n] = true
		for _, o := range fa.phiOps[nd.a] {
			w.walk(o, add)
		}
	case nBin:
		cb, okb := fa.constValue(nd.b)
		ca, oka := fa.constValue(nd.a)
		switch nd.op {
		case wasmcore.OpI32Add, wasmcore.OpI64Add:
			switch {
			case okb:
				w.walk(nd.a, add+int64(int32(cb)))
			case oka:
				w.walk(nd.b, add+int64(int32(ca)))
			default:
				other()
			}
		case wasmcore.OpI32Sub, wasmcore.OpI64Sub:
			if okb {
				w.walk(nd.a, add-int64(int32(cb)))
			} else {
				other()
			}
		case wasmcore.OpI32And, wasmcore.OpI64And:
			switch {
			case okb && cb&0xFF == 0xFF && add == 0:
				w.walk(nd.a, add)
			case oka && ca&0xFF == 0xFF && add == 0:
				w.walk(nd.b, add)
			default:
				other()
			}
		default:
			other()
		}
	case nUn:
		switch nd.op {
		case wasmcore.OpI32WrapI64, wasmcore.OpI64ExtendI32U, wasmcore.OpI64ExtendI32S, wasmcore.OpI32Extend8S:
			w.walk(nd.a, add)
		default:
			other()
		}
	case nSelect:
		w.walk(nd.a, add)
		w.walk(nd.b, add)
	case nLoad:
		width, _ := loadWidth(nd.op)
		if w.allowLookup {
			if lk, ok := fa.asLookup(n, w.budget); ok {
				w.leaves = append(w.leaves, leaf{kind: leafLookup, node: n, add: add, lk: lk})
				return
			}
		}
		if width == 1 {
			w.leaves = append(w.leaves, leaf{kind: leafByte, node: n, add: add})
			return
		}
		if k, ok := fa.spillSlot(n); ok {
			if w.seenSlot[k] {
				return
			}
			w.seenSlot[k] = true
			for _, v := range fa.slotDefs[k] {
				w.walk(v, add)
			}
			return
		}
		other()
	default:
		other()
	}
}

// splitConst splits an address into a constant part and the rest.
func (fa *funcAnalysis) splitConst(x int32) (int32, uint64) {
	var base uint64
	for range 4 {
		a := fa.nodes[x]
		if a.kind == nBin && (a.op == wasmcore.OpI32Add || a.op == wasmcore.OpI64Add) {
			if c, ok := fa.constValue(a.b); ok {
				base += uint64(uint32(c))
				x = a.a
				continue
			}
			if c, ok := fa.constValue(a.a); ok {
				base += uint64(uint32(c))
				x = a.b
				continue
			}
		}
		break
	}
	return x, base
}

// lookupParts splits a load address into table base + index * scale.
func (fa *funcAnalysis) lookupParts(n int32) (index int32, base uint64, scale int64) {
	nd := fa.nodes[n]
	x, base := fa.splitConst(nd.a)
	base += uint64(nd.val)
	scale = 1
	if a := fa.nodes[x]; a.kind == nBin {
		switch a.op {
		case wasmcore.OpI32Shl, wasmcore.OpI64Shl:
			if c, ok := fa.constValue(a.b); ok && c >= 0 && c < 4 {
				scale = 1 << c
				x = a.a
			}
		case wasmcore.OpI32Mul, wasmcore.OpI64Mul:
			if c, ok := fa.constValue(a.b); ok {
				scale = c
				x = a.a
			}
		}
	}
	return x, base, scale
}

// asLookup recognises a load from a constant table indexed by a byte:
// load(T + (byte+c) << log2(width)).
func (fa *funcAnalysis) asLookup(n int32, budget int) (lookupInfo, bool) {
	width, signed := loadWidth(fa.nodes[n].op)
	if width > 4 {
		return lookupInfo{}, false
	}
	x, base, scale := fa.lookupParts(n)
	if base == 0 || scale != int64(width) {
		return lookupInfo{}, false
	}
	sub := fa.newWalk(min(budget, 512), false)
	sub.walk(x, 0)
	var idxAdd int64
	bytes := 0
	for _, l := range sub.leaves {
		switch l.kind {
		case leafByte:
			if bytes > 0 && l.add != idxAdd {
				return lookupInfo{}, false
			}
			idxAdd = l.add
			bytes++
		case leafConst:
		default:
			return lookupInfo{}, false
		}
	}
	if bytes == 0 {
		return lookupInfo{}, false
	}
	return lookupInfo{table: base, width: width, signed: signed, indexAdd: idxAdd}, true
}

// selectorOf traces a br_table selector.
func (fa *funcAnalysis) selectorOf(bt *brTableSite) *selection {
	w := fa.newWalk(walkBudget, true)
	w.walk(bt.selector, 0)
	s := &selection{kind: "other", expr: fa.render(bt.selector, 5)}
	type key struct {
		kind leafKind
		add  int64
		lk   lookupInfo
	}
	count := map[key]int{}
	var order []key
	for _, l := range w.leaves {
		switch l.kind {
		case leafByte, leafLookup:
			k := key{l.kind, l.add, l.lk}
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		case leafOther:
			s.others++
		}
	}
	if len(order) == 0 {
		return s
	}
	sort.SliceStable(order, func(a, b int) bool { return count[order[a]] > count[order[b]] })
	best := order[0]
	s.mixed = len(order) > 1
	s.add = best.add
	if best.kind == leafByte {
		s.kind = "direct"
	} else {
		s.kind = "lookup"
		lk := best.lk
		s.lookup = &lk
	}
	seen := map[int32]bool{}
	for _, l := range w.leaves {
		if l.kind != best.kind || l.add != best.add || l.lk != best.lk {
			continue
		}
		if l.kind == leafByte {
			if !seen[l.node] {
				seen[l.node] = true
				s.byteLoads = append(s.byteLoads, l.node)
			}
			continue
		}
		// The opcode loads of a lookup are the byte loads of its index.
		x, _, _ := fa.lookupParts(l.node)
		sub := fa.newWalk(512, false)
		sub.walk(x, 0)
		for _, sl := range sub.leaves {
			if sl.kind == leafByte && !seen[sl.node] {
				seen[sl.node] = true
				s.byteLoads = append(s.byteLoads, sl.node)
			}
		}
	}
	sort.Slice(s.byteLoads, func(a, b int) bool { return fa.nodes[s.byteLoads[a]].at < fa.nodes[s.byteLoads[b]].at })
	if s.lookup != nil {
		s.lookup.guard = fa.rangeGuard(s.lookup, s.byteLoads)
	}
	return s
}

// rangeGuard finds a comparison bounding the lookup index: the unsigned
// bound of (opcode + indexAdd) below which the table is read.
func (fa *funcAnalysis) rangeGuard(lk *lookupInfo, loads []int32) uint64 {
	isOp := map[int32]bool{}
	for _, l := range loads {
		isOp[l] = true
	}
	var bound uint64
	for _, c := range fa.compares {
		nd := fa.nodes[c]
		k, ok := fa.constValue(nd.b)
		x := nd.a
		op := nd.op
		if !ok {
			if k, ok = fa.constValue(nd.a); !ok {
				continue
			}
			x = nd.b
			switch op { // K op x  ==  x op' K
			case wasmcore.OpI32GtU:
				op = wasmcore.OpI32LtU
			case wasmcore.OpI32GeU:
				op = wasmcore.OpI32LeU
			case wasmcore.OpI32LtU:
				op = wasmcore.OpI32GtU
			case wasmcore.OpI32LeU:
				op = wasmcore.OpI32GeU
			}
		}
		var b uint64
		switch op {
		case wasmcore.OpI32GtU, wasmcore.OpI32LeU:
			b = uint64(uint32(k)) + 1
		case wasmcore.OpI32GeU, wasmcore.OpI32LtU:
			b = uint64(uint32(k))
		default:
			continue
		}
		w := fa.newWalk(256, false)
		w.walk(x, 0)
		for _, l := range w.leaves {
			if l.kind == leafByte && isOp[l.node] && l.add == lk.indexAdd && b > 0 && (bound == 0 || b < bound) {
				bound = b
			}
		}
	}
	return bound
}

// opcodeIndex maps an opcode value to its br_table index; ok is false when
// the value cannot be mapped (outside the lookup table).
func (s *selection) opcodeIndex(v int, img *memImage) (int64, bool) {
	switch s.kind {
	case "direct":
		return int64(v) + s.add, true
	case "lookup":
		lk := s.lookup
		e := int64(v) + lk.indexAdd
		if e < 0 || (lk.guard > 0 && uint64(e) >= lk.guard) {
			return 0, false
		}
		raw, ok := img.readUint(lk.table+uint64(e)*uint64(lk.width), lk.width)
		if !ok {
			return 0, false
		}
		val := int64(raw)
		if lk.signed {
			shift := 64 - 8*lk.width
			val = int64(raw<<shift) >> shift
		}
		return int64(int32(val + s.add)), true
	}
	return 0, false
}

// pcVar is the variable holding the bytecode pointer: a loop phi (a local
// carried around the dispatch loop) or a memory slot.
type pcVar struct {
	kind      string // "local" or "memory"
	phi       int32  // the loop phi the opcode is read through
	carried   int32  // the loop phi advanced around the loop: phi itself, or one phi derives from
	local     uint32
	slot      slotKey
	slotLocal int32 // memory: the local the slot's base was read from at the pc load, -1 if unknown
}

// findPC returns the loop-carried pointer the opcode loads read through.
func (fa *funcAnalysis) findPC(s *selection) (pcVar, bool) {
	for _, ln := range s.byteLoads {
		ld := fa.nodes[ln]
		if pc, ok := fa.pcFrom(ld.a, 0, map[int32]bool{}); ok {
			// Report the local the opcode load reads, when it reads
			// the pc straight from one.
			if pc.kind == "local" && ld.a == pc.phi && ld.local > 0 {
				pc.local = ld.local - 1
			}
			return pc, true
		}
	}
	return pcVar{}, false
}

func (fa *funcAnalysis) pcFrom(x int32, depth int, seen map[int32]bool) (pcVar, bool) {
	if depth > 16 || seen[x] || !fa.tick(1) {
		return pcVar{}, false
	}
	seen[x] = true
	nd := fa.nodes[x]
	switch nd.kind {
	case nPhi:
		if fa.frames[nd.b].kind == frameLoop {
			if fa.loopCarried(x) {
				return pcVar{kind: "local", phi: x, carried: x, local: nd.local}, true
			}
			// The phi may be recomputed from another carried phi of
			// the same loop on every iteration (pc from pc+1).
			if c := fa.carrierOf(x); c > 0 {
				return pcVar{kind: "local", phi: x, carried: c, local: nd.local}, true
			}
		}
		for _, o := range fa.phiOps[nd.a] {
			if pc, ok := fa.pcFrom(o, depth+1, seen); ok {
				return pc, true
			}
		}
	case nBin:
		if nd.op == wasmcore.OpI32Add || nd.op == wasmcore.OpI64Add {
			if _, ok := fa.constValue(nd.b); ok {
				return fa.pcFrom(nd.a, depth+1, seen)
			}
			if _, ok := fa.constValue(nd.a); ok {
				return fa.pcFrom(nd.b, depth+1, seen)
			}
		}
	case nLoad:
		if k, ok := fa.spillSlot(x); ok && fa.slotLoopCarried(k) {
			sl := int32(-1)
			if nd.a == k.base {
				sl = int32(nd.local) - 1
			}
			return pcVar{kind: "memory", slot: k, slotLocal: sl}, true
		}
	}
	return pcVar{}, false
}

// loopCarried reports whether a loop phi's back-edge operands derive from
// the phi itself.
func (fa *funcAnalysis) loopCarried(phi int32) bool {
	if c, ok := fa.carriedCache[phi]; ok {
		return c
	}
	c := false
	ops := fa.phiOps[fa.nodes[phi].a]
	for _, o := range ops[1:] {
		if fa.refers(o, func(_ node, id int32) bool { return id == phi }) {
			c = true
			break
		}
	}
	if fa.carriedCache == nil {
		fa.carriedCache = map[int32]bool{}
	}
	fa.carriedCache[phi] = c
	return c
}

// carrierOf returns a loop-carried phi of the same loop from which all the
// back-edge operands of phi derive by constant offsets, 0 if none.
func (fa *funcAnalysis) carrierOf(phi int32) int32 {
	owner := fa.nodes[phi].b
	ops := fa.phiOps[fa.nodes[phi].a]
	if len(ops) < 2 {
		return 0
	}
	votes := map[int32]int{}
	for _, o := range ops[1:] {
		found := int32(0)
		fa.refers(o, func(nd node, id int32) bool {
			if nd.kind != nPhi || nd.b != owner || id == phi || !fa.loopCarried(id) {
				return false
			}
			found = id
			return true
		})
		if found != 0 {
			votes[found]++
		}
	}
	var carrier int32
	for id, v := range votes {
		if 2*v >= len(ops)-1 && (carrier == 0 || v > votes[carrier] || v == votes[carrier] && id < carrier) {
			carrier = id
		}
	}
	return carrier
}

func (fa *funcAnalysis) slotLoopCarried(k slotKey) bool {
	for _, v := range fa.slotDefs[k] {
		if fa.refers(v, func(nd node, id int32) bool {
			if nd.kind != nLoad {
				return false
			}
			k2, ok := fa.spillSlot(id)
			return ok && k2 == k
		}) {
			return true
		}
	}
	return false
}

// refers reports whether the expression reaches a node satisfying pred.
func (fa *funcAnalysis) refers(n int32, pred func(node, int32) bool) bool {
	seen := map[int32]bool{}
	budget := 4096
	var dfs func(n int32) bool
	dfs = func(n int32) bool {
		if budget--; budget <= 0 || n <= 0 || seen[n] || !fa.tick(1) {
			return false
		}
		seen[n] = true
		nd := fa.nodes[n]
		if pred(nd, n) {
			return true
		}
		switch nd.kind {
		case nPhi:
			for _, o := range fa.phiOps[nd.a] {
				if dfs(o) {
					return true
				}
			}
		case nBin, nSelect:
			return dfs(nd.a) || dfs(nd.b)
		case nUn, nLoad:
			return dfs(nd.a)
		}
		return false
	}
	return dfs(n)
}

// isPCRead reports whether a node reads the pc variable itself.
func (fa *funcAnalysis) isPCRead(x int32, pc pcVar) bool {
	if pc.kind == "local" {
		return x == pc.carried
	}
	k, ok := fa.spillSlot(x)
	return ok && k == pc.slot
}

// offsetsFrom returns the constant offsets k such that x = pc + k along
// some path, following additions of constants and merges.
func (fa *funcAnalysis) offsetsFrom(x int32, pc pcVar, out map[int64]bool) {
	seen := map[int32]bool{}
	budget := 4096
	var rec func(x int32, k int64)
	rec = func(x int32, k int64) {
		if budget--; budget <= 0 || !fa.tick(1) {
			return
		}
		if fa.isPCRead(x, pc) {
			out[k] = true
			return
		}
		nd := fa.nodes[x]
		switch nd.kind {
		case nBin:
			switch nd.op {
			case wasmcore.OpI32Add, wasmcore.OpI64Add:
				if c, ok := fa.constValue(nd.b); ok {
					rec(nd.a, k+c)
				} else if c, ok := fa.constValue(nd.a); ok {
					rec(nd.b, k+c)
				}
			case wasmcore.OpI32Sub, wasmcore.OpI64Sub:
				if c, ok := fa.constValue(nd.b); ok {
					rec(nd.a, k-c)
				}
			}
		case nPhi:
			if seen[x] {
				return
			}
			seen[x] = true
			for _, o := range fa.phiOps[nd.a] {
				rec(o, k)
			}
		case nLoad:
			// A copy through a spill slot of unoptimized code.
			if pc.kind == "memory" {
				return
			}
			if sk, ok := fa.spillSlot(x); ok && !seen[x] {
				seen[x] = true
				for _, v := range fa.slotDefs[sk] {
					rec(v, k)
				}
			}
		}
	}
	rec(x, 0)
}

// pcKey identifies a pc variable for what offsetsFrom reads of it.
type pcKey struct {
	kind    string
	carried int32
	slot    slotKey
}

// pcUseResult is what pcUse finds of a pc, whatever the opcode loads.
type pcUseResult struct {
	strides []int64
	operand []bool // per fa.loads: read at a small constant offset from the pc
}

// pcUse returns the distinct constant increments of the pc around the loop
// and the number of loads at a non-zero constant offset from it. The
// tracing is done once per pc, which several br_tables of a function may
// share.
func (fa *funcAnalysis) pcUse(pc pcVar, opLoads []int32) (strides []int64, operandReads int) {
	key := pcKey{pc.kind, pc.carried, pc.slot}
	r, ok := fa.pcUseMemo[key]
	if !ok {
		r = fa.tracePCUse(pc)
		if fa.pcUseMemo == nil {
			fa.pcUseMemo = map[pcKey]*pcUseResult{}
		}
		fa.pcUseMemo[key] = r
	}
	isOp := map[int32]bool{}
	for _, l := range opLoads {
		isOp[l] = true
	}
	for i, l := range fa.loads {
		if r.operand[i] && !isOp[l] {
			operandReads++
		}
	}
	return append([]int64(nil), r.strides...), operandReads
}

func (fa *funcAnalysis) tracePCUse(pc pcVar) *pcUseResult {
	r := &pcUseResult{operand: make([]bool, len(fa.loads))}
	var vals []int32
	if pc.kind == "local" {
		vals = fa.phiOps[fa.nodes[pc.carried].a][1:]
	} else {
		vals = fa.slotDefs[pc.slot]
	}
	ks := map[int64]bool{}
	for _, v := range vals {
		fa.offsetsFrom(v, pc, ks)
	}
	for k := range ks {
		if k != 0 {
			r.strides = append(r.strides, k)
		}
	}
	sort.Slice(r.strides, func(a, b int) bool { return r.strides[a] < r.strides[b] })
	for i, l := range fa.loads {
		nd := fa.nodes[l]
		offs := map[int64]bool{}
		fa.offsetsFrom(nd.a, pc, offs)
		for k := range offs {
			if k+nd.val >= -8 && k+nd.val <= 16 {
				r.operand[i] = true
				break
			}
		}
	}
	return r
}

// render prints an expression.
func (fa *funcAnalysis) render(n int32, depth int) string {
	nd := fa.nodes[n]
	if depth <= 0 {
		return "…"
	}
	switch nd.kind {
	case nUnknown:
		return "?"
	case nConst:
		return fmt.Sprint(nd.val)
	case nParam:
		return fmt.Sprintf("param %d", nd.local)
	case nPhi:
		return fmt.Sprintf("local %d", nd.local)
	case nLoad:
		addr := fa.render(nd.a, depth-1)
		if nd.val != 0 {
			addr += fmt.Sprintf(" + %d", nd.val)
		}
		return fmt.Sprintf("%v(%s)", nd.op, addr)
	case nBin:
		if c, ok := fa.constValue(nd.b); ok {
			switch nd.op {
			case wasmcore.OpI32Add, wasmcore.OpI64Add:
				if c < 0 {
					return fmt.Sprintf("%s - %d", fa.render(nd.a, depth-1), -c)
				}
				return fmt.Sprintf("%s + %d", fa.render(nd.a, depth-1), c)
			case wasmcore.OpI32Sub, wasmcore.OpI64Sub:
				return fmt.Sprintf("%s - %d", fa.render(nd.a, depth-1), c)
			}
		}
		return fmt.Sprintf("%v(%s, %s)", nd.op, fa.render(nd.a, depth-1), fa.render(nd.b, depth-1))
	case nUn:
		return fmt.Sprintf("%v(%s)", nd.op, fa.render(nd.a, depth-1))
	case nSelect:
		return fmt.Sprintf("select(%s, %s)", fa.render(nd.a, depth-1), fa.render(nd.b, depth-1))
	case nGlobal:
		return fmt.Sprintf("global %d", nd.local)
	case nCall:
		return fmt.Sprintf("call %d", nd.local)
	}
	return "?"
}

// bytecodePointer traces the initial value of the pc to a chain of loads
// from a parameter.
func (fa *funcAnalysis) bytecodePointer(pc pcVar) *BytecodePointer {
	var vals []int32
	if pc.kind == "local" {
		vals = append(fa.phiOps[fa.nodes[pc.phi].a][:1:1], fa.phiOps[fa.nodes[pc.carried].a][0])
	} else {
		for _, v := range fa.slotDefs[pc.slot] {
			if !fa.refers(v, func(_ node, id int32) bool { return fa.isPCRead(id, pc) }) {
				vals = append(vals, v)
			}
		}
	}
	var best *BytecodePointer
	for _, v := range vals {
		for _, c := range fa.chains(v, 0, map[int32]bool{}) {
			if len(c.path) == 0 {
				continue
			}
			if best == nil || len(c.path) > len(best.Path) {
				best = &BytecodePointer{Param: c.param, Wrapped: c.wrapped, Path: c.path}
			}
		}
	}
	if best == nil {
		return nil
	}
	best.Expr = fmt.Sprintf("param %d", best.Param)
	if best.Wrapped {
		best.Expr = "i32.wrap_i64(" + best.Expr + ")"
	}
	for _, o := range best.Path {
		best.Expr = fmt.Sprintf("*(%s + %d)", best.Expr, o)
	}
	// A 16-bit field of the object compared with a constant: class_id.
	for _, c := range fa.compares {
		nd := fa.nodes[c]
		if nd.op != wasmcore.OpI32Eq && nd.op != wasmcore.OpI32Ne {
			continue
		}
		for _, pair := range [][2]int32{{nd.a, nd.b}, {nd.b, nd.a}} {
			k, ok := fa.constValue(pair[1])
			if x := fa.nodes[pair[0]]; x.kind == nBin && x.op == wasmcore.OpI32And {
				if m, ok := fa.constValue(x.b); ok && m == 0xFFFF {
					pair[0] = x.a
				}
			}
			ld := fa.nodes[pair[0]]
			if !ok || ld.kind != nLoad || ld.op != wasmcore.OpI32Load16U {
				continue
			}
			for _, ch := range fa.chains(pair[0], 0, map[int32]bool{}) {
				if ch.param == best.Param && ch.wrapped == best.Wrapped && len(ch.path) == 1 {
					off, id := ch.path[0], k
					best.ClassIDOffset, best.ClassID = &off, &id
					return best
				}
			}
		}
	}
	return best
}

type loadChain struct {
	param   int
	wrapped bool
	path    []uint64
}

func (c loadChain) equal(o loadChain) bool {
	return c.param == o.param && c.wrapped == o.wrapped && slices.Equal(c.path, o.path)
}

// Bounds of the load-chain search: the nodes a chain may pass through,
// and the distinct chains kept per node (the dispatch has one or two).
const (
	maxChainDepth = 24
	maxChains     = 32
)

// chainResult is the memoized outcome of chains for a node: its distinct
// chains, first found first, and how many nodes deep the search went
// below it.
type chainResult struct {
	chains []loadChain
	height int
}

// chains follows loads back to parameters: value = *(...*(param + p0)... + pn).
// Its results are the chains along the acyclic paths of at most
// maxChainDepth nodes from n, first found first, without repeats. The
// caller must not modify them.
func (fa *funcAnalysis) chains(n int32, depth int, seen map[int32]bool) []loadChain {
	cs, _, _ := fa.chainsOf(n, depth, seen)
	return cs
}

// chainsOf is chains with what memoization needs: the height of the search
// below n and whether it is complete, that is, met neither a node already
// on the path nor the depth limit nor the budget. A complete result does
// not depend on the path that led to n (no node below n leads back to it),
// so it is kept and reused wherever depth+height stays within the limit.
// Without this, the paths through the phis asyncify puts at every call
// site were enumerated one by one: exponentially many.
func (fa *funcAnalysis) chainsOf(n int32, depth int, onPath map[int32]bool) (cs []loadChain, height int, complete bool) {
	if depth > maxChainDepth || onPath[n] {
		return nil, 0, false
	}
	if r, ok := fa.chainMemo[n]; ok && depth+r.height <= maxChainDepth {
		return r.chains, r.height, true
	}
	if !fa.tick(1) {
		return nil, 0, false
	}
	onPath[n] = true
	defer delete(onPath, n)
	complete = true
	// sub searches an operand, folding its height and completeness in.
	sub := func(x int32) []loadChain {
		c, h, ok := fa.chainsOf(x, depth+1, onPath)
		height = max(height, h+1)
		complete = complete && ok
		return c
	}
	add := func(c loadChain) {
		for _, have := range cs {
			if have.equal(c) {
				return
			}
		}
		if len(cs) < maxChains {
			cs = append(cs, c)
		}
	}
	nd := fa.nodes[n]
	switch nd.kind {
	case nParam:
		cs = []loadChain{{param: int(nd.local)}}
	case nPhi:
		for _, o := range fa.phiOps[nd.a] {
			for _, c := range sub(o) {
				add(c)
			}
		}
	case nUn:
		if nd.op == wasmcore.OpI32WrapI64 {
			for _, c := range sub(nd.a) {
				c.wrapped = true
				add(c)
			}
		}
	case nLoad:
		done := false
		if k, isSlot := fa.spillSlot(n); isSlot && len(fa.slotDefs[k]) <= 4 {
			for _, v := range fa.slotDefs[k] {
				for _, c := range sub(v) {
					add(c)
				}
			}
			done = len(cs) > 0
		}
		if !done {
			x, off := fa.splitConst(nd.a)
			off += uint64(nd.val)
			for _, c := range sub(x) {
				c.path = append(append([]uint64(nil), c.path...), off)
				add(c)
			}
		}
	}
	if complete {
		if fa.chainMemo == nil {
			fa.chainMemo = map[int32]chainResult{}
		}
		fa.chainMemo[n] = chainResult{cs, height}
	}
	return cs, height, complete
}

// homeLocal returns a local holding a node's value (for reports): the
// first one it was read from, else the first it was assigned to.
func (fa *funcAnalysis) homeLocal(n int32) uint32 {
	if l, ok := fa.readFrom[n]; ok {
		return l
	}
	if l, ok := fa.home[n]; ok {
		return l
	}
	if nd := fa.nodes[n]; nd.kind == nPhi || nd.kind == nParam {
		return nd.local
	}
	return 0
}

// slotBaseLocal returns the local holding the base of a memory pc.
func (fa *funcAnalysis) slotBaseLocal(pc pcVar) uint32 {
	if pc.slotLocal >= 0 {
		return uint32(pc.slotLocal)
	}
	return fa.homeLocal(pc.slot.base)
}
