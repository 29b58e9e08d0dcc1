package dispatch

import (
	"fmt"
	"math"
	"sort"
)

const jsCallInternal = "JS_CallInternal"

// opcodeMap is what a selector does with every byte value.
type opcodeMap struct {
	count    int      // largest handled opcode + 1
	targets  []uint32 // label per opcode < count
	distinct int
}

func (an *analyzer) mapOpcodes(bt *brTableSite, sel *selection) opcodeMap {
	var om opcodeMap
	if sel.kind == "other" {
		return om
	}
	n := int64(len(bt.labels) - 1)
	def := bt.labels[n]
	var target [256]uint32
	for v := range 256 {
		target[v] = def
		if idx, good := sel.opcodeIndex(v, &an.img); good && idx >= 0 && idx < n {
			target[v] = bt.labels[idx]
		}
	}
	// The fallback is where the largest byte value goes: the br_table's
	// default, or, through a 256-entry lookup table, the default case's
	// entry. Opcodes end at the last value going elsewhere.
	fallback := target[255]
	for v := range 256 {
		if target[v] != fallback {
			om.count = v + 1
		}
	}
	seen := map[uint32]bool{}
	for v := 0; v < om.count; v++ {
		t := target[v]
		om.targets = append(om.targets, t)
		if t != fallback {
			seen[t] = true
		}
	}
	om.distinct = len(seen)
	return om
}

// engineOpCount is the opcode count of the identified engine, 0 if none.
func (an *analyzer) engineOpCount() int {
	if e := an.rep.Engine; e.Match != MatchNone && e.Match != MatchNames {
		return e.OpcodeCount
	}
	return 0
}

// evaluate gathers the evidence for one br_table and scores it.
func (an *analyzer) evaluate(fa *funcAnalysis, bt *brTableSite) Candidate {
	name := an.m.FuncName(fa.index)
	c := Candidate{
		FunctionIndex: fa.index,
		FunctionName:  name,
		BrTableOffset: fa.fn.BodyOffset + bt.offset,
		Entries:       len(bt.labels) - 1,
		FunctionSize:  len(fa.fn.Body),
		SizeRank:      an.sizeRank[fa.index],
		SelfRecursive: fa.selfCall > 0,
		PCStrides:     []int64{},
		Evidence:      []string{},
		fn:            fa,
		bt:            bt,
	}
	sel := fa.selectorOf(bt)
	c.sel = sel
	c.Selector = sel.kind
	c.SelectorExpr = sel.expr
	ev := func(format string, args ...any) { c.Evidence = append(c.Evidence, fmt.Sprintf(format, args...)) }
	score := 0.0
	if fa.asyncDecided > 0 {
		ev("asyncify: %d branches on the state in global %d are read as in the normal state", fa.asyncDecided, fa.async.global)
	}
	if name == jsCallInternal {
		score += 0.3
		ev("the name section calls the function %s (+0.30)", jsCallInternal)
	}
	if sel.kind == "other" {
		c.score = 0.05*math.Min(1, float64(c.Entries)/256) + score
		c.Confidence = round2(math.Min(1, c.score))
		ev("the selector does not derive from a byte load: %s", sel.expr)
		return c
	}
	c.Bias = -sel.add
	om := an.mapOpcodes(bt, sel)
	c.OpcodeCount = om.count
	c.DistinctHandlers = om.distinct

	score += 0.2
	switch sel.kind {
	case "direct":
		ev("the selector is a loaded byte minus %d: %s (+0.20)", c.Bias, sel.expr)
	case "lookup":
		ev("the selector is a loaded byte mapped through a %d-byte table at %#x (+0.20)", sel.lookup.width, sel.lookup.table)
	}
	if sel.mixed || sel.others > 0 {
		score -= 0.05
		ev("the selector also has other sources (%d) (-0.05)", sel.others)
	}
	switch b := c.Bias; {
	case sel.kind == "direct" && b == 1:
		score += 0.05
		ev("its cases start at 1, opcode 0 being invalid as in QuickJS (+0.05)")
	case sel.kind == "direct" && (b > 8 || b < -8):
		score -= 0.1
		ev("its cases start at %d, a character rather than an opcode (-0.10)", b)
	}
	pc, hasPC := fa.findPC(sel)
	if hasPC {
		score += 0.2
		c.PCKind = pc.kind
		strides, reads := fa.pcUse(pc, sel.byteLoads)
		c.PCStrides = strides
		c.OperandReads = reads
		if pc.kind == "local" {
			ev("the byte is read through local %d, a pointer carried around the loop (+0.20)", pc.local)
		} else {
			ev("the byte is read through a pointer kept in memory at local %d + %d, carried around the loop (+0.20)", fa.slotBaseLocal(pc), pc.slot.off)
		}
		switch {
		case len(strides) >= 3:
			score += 0.15
			ev("the pointer advances by %v (instruction sizes) and is read at %d more places (+0.15)", strides, reads)
		case len(strides) == 2 || len(strides) == 1 && reads >= 8:
			score += 0.07
			ev("the pointer advances by %v and is read at %d more places (+0.07)", strides, reads)
		default:
			ev("the pointer advances by %v and is read at %d more places", strides, reads)
		}
	} else {
		ev("no loop-carried pointer feeds the byte load")
	}
	if bt.loop >= 0 {
		lp := fa.frames[bt.loop]
		in := len(sel.byteLoads) > 0
		for _, l := range sel.byteLoads {
			at := fa.nodes[l].at
			if at < lp.start || at > lp.end {
				in = false
			}
		}
		c.InLoop = in
		if in {
			score += 0.05
			ev("the byte load is inside the loop around the br_table (+0.05)")
		}
	}
	if om.count > 0 {
		density := float64(om.distinct) / float64(om.count)
		switch {
		case density >= 0.6:
			score += 0.1
			ev("%d opcodes reach %d distinct handlers (+0.10)", om.count, om.distinct)
		case density >= 0.35:
			score += 0.03
			ev("%d opcodes reach %d distinct handlers (+0.03)", om.count, om.distinct)
		default:
			score -= 0.1
			ev("%d values share %d handlers, as in a character switch (-0.10)", om.count, om.distinct)
		}
		switch {
		case om.distinct >= 100:
			score += 0.1
			ev("at least 100 handlers (+0.10)")
		case om.distinct >= 32:
			score += 0.05
			ev("at least 32 handlers (+0.05)")
		}
	}
	switch eng := an.engineOpCount(); {
	case eng > 0 && om.count == eng:
		c.KnownCount = "engine"
		score += 0.2
		ev("the opcode count %d equals the identified engine's (+0.20)", om.count)
	case an.cat.opCounts[om.count]:
		c.KnownCount = "catalog"
		score += 0.1
		ev("the opcode count %d equals a known QuickJS table's (+0.10)", om.count)
	}
	if c.SelfRecursive {
		score += 0.05
		ev("the function calls itself (+0.05)")
	}
	switch {
	case c.SizeRank == 1:
		score += 0.05
		ev("it is the largest function (+0.05)")
	case c.SizeRank > 0 && c.SizeRank <= 3:
		score += 0.03
		ev("it is the #%d largest function (+0.03)", c.SizeRank)
	}
	c.score = score
	c.Confidence = round2(math.Max(0, math.Min(1, score)))
	return c
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// choose picks the dispatch among the candidates, or says why none.
func (an *analyzer) choose(cands, others []Candidate) {
	rep := an.rep
	// Every byte-driven candidate is listed; of the others, the largest.
	all := append([]Candidate{}, cands...)
	nOthers := min(len(others), maxOtherCandidates)
	all = append(all, others[:nOthers]...)
	rep.OmittedCandidates = len(others) - nOthers
	rep.Candidates = all
	if len(cands) == 0 {
		switch {
		case len(others) > 0:
			rep.Reason = fmt.Sprintf("no interpreter: none of the %d br_tables with at least %d entries switches on a loaded byte", len(others), minEntries)
		default:
			rep.Reason = fmt.Sprintf("no interpreter: no br_table has %d entries or more", minEntries)
		}
		an.explainDynamic()
		return
	}
	best := cands[0]
	if best.Confidence < minConfidence {
		rep.Reason = fmt.Sprintf("no interpreter: the best candidate, the br_table at %#x in function %d, has confidence %.2f, below %.2f",
			best.BrTableOffset, best.FunctionIndex, best.Confidence, minConfidence)
		an.explainDynamic()
		return
	}
	for _, c := range cands[1:] {
		if c.FunctionIndex == best.FunctionIndex {
			continue
		}
		if best.score-c.score < minMargin {
			rep.Reason = fmt.Sprintf("ambiguous: the br_tables at %#x (function %d, confidence %.2f) and %#x (function %d, confidence %.2f) are equally plausible dispatches",
				best.BrTableOffset, best.FunctionIndex, best.Confidence, c.BrTableOffset, c.FunctionIndex, c.Confidence)
			return
		}
		break
	}
	rep.Dispatch = an.buildDispatch(&best, cands)
	rep.Reason = fmt.Sprintf("the br_table at %#x in function %d is the dispatch (confidence %.2f)", best.BrTableOffset, best.FunctionIndex, best.Confidence)
	if len(cands) > 1 {
		next := cands[1]
		for _, c := range cands[1:] {
			if c.FunctionIndex != best.FunctionIndex {
				next = c
				break
			}
		}
		if next.FunctionIndex != best.FunctionIndex {
			rep.Reason += fmt.Sprintf("; the next candidate, at %#x in function %d, has %.2f", next.BrTableOffset, next.FunctionIndex, next.Confidence)
		}
	}
}

func (an *analyzer) explainDynamic() {
	for _, imp := range an.m.Imports {
		if imp.Name == "invoke" || imp.Name == "eval_bytecode" {
			an.rep.Reason += fmt.Sprintf("; the module imports %s from %q: the interpreter lives in that module", imp.Name, imp.Module)
			return
		}
	}
}

func (an *analyzer) buildDispatch(c *Candidate, cands []Candidate) *Dispatch {
	fa, bt, sel := c.fn, c.bt, c.sel
	om := an.mapOpcodes(bt, sel)
	d := &Dispatch{
		FunctionIndex:     c.FunctionIndex,
		FunctionName:      c.FunctionName,
		BrTableOffset:     c.BrTableOffset,
		BrTableBodyOffset: bt.offset,
		OpcodeCount:       om.count,
		DistinctHandlers:  om.distinct,
		Confidence:        c.Confidence,
		OpcodeTargets:     om.targets,
		DefaultTarget:     bt.labels[len(bt.labels)-1],
		SelfRecursive:     c.SelfRecursive,
		Selector: Selector{
			Kind: sel.kind,
			Bias: -sel.add,
			Expr: sel.expr,
		},
		PC: PC{Kind: "unknown", Strides: c.PCStrides, OperandReads: c.OperandReads},
	}
	if d.OpcodeTargets == nil {
		d.OpcodeTargets = []uint32{}
	}
	for _, l := range sel.byteLoads {
		d.Selector.ByteLoads = append(d.Selector.ByteLoads, fa.fn.BodyOffset+fa.nodes[l].at)
	}
	if lk := sel.lookup; lk != nil {
		d.Selector.TableAddress = lk.table
		d.Selector.TableWidth = lk.width
		d.Selector.TableBias = -lk.indexAdd
		d.Selector.RangeGuard = lk.guard
	}
	for _, t := range om.targets {
		d.HandlerOffsets = append(d.HandlerOffsets, fa.fn.BodyOffset+an.labelOffset(fa, bt, t))
	}
	if bt.loop >= 0 {
		d.LoopOffset = fa.fn.BodyOffset + fa.frames[bt.loop].start
	}
	pc, ok := fa.findPC(sel)
	if ok {
		d.PC.Kind = pc.kind
		if pc.kind == "local" {
			d.PC.Local = pc.local
		} else {
			d.PC.BaseLocal, d.PC.Offset = fa.slotBaseLocal(pc), pc.slot.off
		}
		d.BytecodePointer = fa.bytecodePointer(pc)
	}
	// Further br_tables of the function on the same opcode loads.
	loads := map[int32]bool{}
	for _, l := range sel.byteLoads {
		loads[l] = true
	}
	for _, o := range cands {
		if o.FunctionIndex != c.FunctionIndex || o.BrTableOffset == c.BrTableOffset || o.sel == nil {
			continue
		}
		for _, l := range o.sel.byteLoads {
			if loads[l] && o.sel.add == sel.add {
				d.OtherBrTables = append(d.OtherBrTables, o.BrTableOffset)
				break
			}
		}
	}
	sort.Slice(d.OtherBrTables, func(a, b int) bool { return d.OtherBrTables[a] < d.OtherBrTables[b] })
	return d
}

// labelOffset is the body offset where a branch to label lands.
func (an *analyzer) labelOffset(fa *funcAnalysis, bt *brTableSite, label uint32) uint32 {
	for i, l := range bt.labels {
		if l != label {
			continue
		}
		id := bt.targets[i]
		if id < 0 {
			return bt.offset
		}
		f := fa.frames[id]
		switch f.kind {
		case frameLoop:
			return f.startNext
		case frameFunc:
			return f.end
		default:
			return f.endNext
		}
	}
	return bt.offset
}
