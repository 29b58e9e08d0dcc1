package wasmcore

import "slices"

// segmentPlan decides where one body's charges go. Each straight-line
// segment (endsSegment) has a charge at its start; with hoisting some of
// those move to an earlier segment that always leads to them, or to the
// segments that always jump to them, so that fewer charges run:
//
//   - hoisting: the code after a block, if or loop (its continuation) runs
//     once each time the construct is entered, unless a branch leaves the
//     construct some other way (an escape). It is charged with the segment
//     that entered the construct, and every escape takes the continuation's
//     count back: in its own segment's charge when the escape is
//     unconditional (br, return), on the taken edge when it is a br_if.
//     Escapes are rare in compiled code (error paths, early exits), so the
//     common path pays one charge where it paid several;
//   - the code after a forward br_if, and an if's then arm, are charged
//     with the branch before them (a forward branch is guessed not taken,
//     as compilers lay out the common path): the taken edge takes the
//     count back, or the else arm (one is added if there is none);
//   - sinking: a segment that every predecessor reaches by an unconditional
//     jump or by falling through (the code after an if/else, a loop body
//     entered by br) is charged by each predecessor instead;
//   - after a call of a defined function (HoistAcrossCalls), the code after
//     the call is charged with the code before it.
//
// Every complete path through the function is charged exactly its length;
// the count is ahead of the instructions executed while hoisted code is
// pending. Constructs left through a br_table, or by a br_if whose label
// carries values, are not hoisted.
type segmentPlan struct {
	hoist     Hoisting
	imported  uint32 // calls below this index are host functions
	funcTyped bool   // branches to the function's label carry values

	segs       []planSegment
	cur        int
	open       []int // ids of the open constructs, innermost last
	constructs []planConstruct
	sinkInto   map[int][]int   // segment → the predecessors that charge it
	edges      map[int]*escape // segment → the escaping branch that ends it
	nextOwner  int             // the owner of the segment that starts next, or -1
	nextCont   int             // the construct whose continuation starts next, or -1
	nextSink   []int           // else the segments it is sunk into
}

type planSegment struct {
	start uint32
	n     int64 // its length; after finish, its charge
	owner int   // the segment that charges it; itself if none
	cont  int   // the hoisted construct it continues, or -1
}

type planConstruct struct {
	entry       int  // the segment that enters it
	hoistable   bool // every escape can take the continuation's count back
	escaped     bool
	hoisted     bool
	resolved    int64 // the count hoisted from its continuation
	typed       bool  // a branch to its label carries values
	loop        bool
	body        int // a loop's body segment
	isIf, elsed bool
	// An if's then arm, hoisted into the if (thenArm, a pseudo-construct;
	// -1 if not), taken back at the start of its else arm (elseSeg) or in
	// an else arm added at its end (end).
	thenArm, elseSeg int
	end              uint32
	// For sinking: the segments that jump to its continuation (a loop's:
	// its body) unconditionally, and whether any does conditionally.
	preds       []int
	conditional bool
}

// escape is a branch that leaves constructs other than through their ends.
type escape struct {
	constructs []int
	cond       bool   // a br_if: compensate on the taken edge
	at, len    uint32 // the br_if
	label      uint32
	comp       int64
}

// condComp is a br_if that takes comp back when taken.
type condComp struct {
	at, len, label uint32
	comp           int64
}

// elseComp is an else arm to add before the end at `at`, taking comp back.
type elseComp struct {
	at   uint32
	comp int64
}

func newSegmentPlan(hoist Hoisting, imported uint32, funcTyped bool) *segmentPlan {
	return &segmentPlan{
		hoist: hoist, imported: imported, funcTyped: funcTyped,
		segs:     []planSegment{{owner: 0, cont: -1}},
		sinkInto: map[int][]int{}, edges: map[int]*escape{},
		nextOwner: -1, nextCont: -1,
	}
}

// work adds one instruction's cost to the current segment. The plan only
// adds and subtracts these sums, so any cost (zero included) leaves every
// path charged exactly.
func (p *segmentPlan) work(cost int64) { p.segs[p.cur].n += cost }

// unhoistable marks every open construct as not to be hoisted: something
// in it cannot be compensated (a host call that may end the run, a hook or
// call that must see an exact count).
func (p *segmentPlan) unhoistable() {
	for _, id := range p.open {
		p.constructs[id].hoistable = false
	}
}

// target returns the construct a branch of depth reaches; nil: the
// function's own label.
func (p *segmentPlan) target(depth uint32) *planConstruct {
	if int(depth) >= len(p.open) {
		return nil
	}
	return &p.constructs[p.open[len(p.open)-1-int(depth)]]
}

// branch records a branch of the current segment to depth; in is the
// instruction for a br_if.
func (p *segmentPlan) branch(depth uint32, cond bool, in Instr) {
	n := min(int(depth), len(p.open))
	skipped := p.open[len(p.open)-n:]
	t := p.target(depth)
	if t != nil {
		if cond {
			t.conditional = true
		} else {
			t.preds = append(t.preds, p.cur)
		}
	}
	if len(skipped) == 0 {
		return
	}
	typed := p.funcTyped
	if t != nil {
		typed = t.typed
	}
	for _, id := range skipped {
		p.constructs[id].escaped = true
		if cond && typed {
			p.constructs[id].hoistable = false
		}
	}
	e := &escape{constructs: append([]int(nil), skipped...), cond: cond}
	if cond {
		e.at, e.len, e.label = in.Offset, in.Len, in.Index
	}
	p.edges[p.cur] = e
}

// pseudo adds a hoisted pseudo-construct: code charged early (a then arm,
// the code after a br_if) whose count a branch takes back.
func (p *segmentPlan) pseudo() int {
	p.constructs = append(p.constructs, planConstruct{hoisted: true, thenArm: -1})
	return len(p.constructs) - 1
}

// hoistFallthrough charges the code after a forward br_if with the code
// before it, taking it back on the taken edge: a forward branch is taken
// less often than not in compiled code (error checks, early exits), the
// usual static guess. A branch back to a loop is left alone, and so is one
// whose label carries values (its taken edge cannot take anything back).
func (p *segmentPlan) hoistFallthrough(in Instr) {
	t := p.target(in.Index)
	typed := p.funcTyped
	if t != nil {
		if t.loop {
			return
		}
		typed = t.typed
	}
	if typed {
		return
	}
	id := p.pseudo()
	e := p.edges[p.cur]
	if e == nil {
		e = &escape{cond: true, at: in.Offset, len: in.Len, label: in.Index}
		p.edges[p.cur] = e
	}
	e.constructs = append(e.constructs, id)
	p.nextOwner, p.nextCont = p.cur, id
}

// instr follows one instruction, before the segment it ends (if any) is
// closed by next.
func (p *segmentPlan) instr(in Instr, hook bool) {
	if p.hoist == HoistNone {
		return
	}
	if hook && p.hoist == HoistLocal {
		p.unhoistable()
	}
	switch in.Op {
	case OpBlock:
		p.open = append(p.open, len(p.constructs))
		p.constructs = append(p.constructs, planConstruct{entry: p.cur, hoistable: true, typed: in.Block != BlockEmpty, thenArm: -1})
	case OpIf:
		// The then arm runs on the branch not taken: it is charged with the
		// if, and taken back when the else arm runs instead. An if of a
		// type index might have no else arm to take it back in.
		id := len(p.constructs)
		p.open = append(p.open, id)
		p.constructs = append(p.constructs, planConstruct{entry: p.cur, hoistable: true, typed: in.Block != BlockEmpty, isIf: true, thenArm: -1})
		if in.Block < 0 {
			arm := p.pseudo()
			p.constructs[id].thenArm = arm
			p.nextOwner, p.nextCont = p.cur, arm
		}
	case OpLoop:
		// A branch to a loop carries its parameters: only a type index has any.
		p.open = append(p.open, len(p.constructs))
		p.constructs = append(p.constructs, planConstruct{entry: p.cur, hoistable: true, typed: in.Block >= 0, loop: true, body: len(p.segs), preds: []int{p.cur}, thenArm: -1})
	case OpElse:
		if len(p.open) > 0 {
			c := &p.constructs[p.open[len(p.open)-1]]
			c.preds = append(c.preds, p.cur)
			c.elsed = true
			c.elseSeg = len(p.segs) // else ends the segment: the next one starts the arm
		}
	case OpEnd:
		if len(p.open) == 0 {
			return
		}
		id := p.open[len(p.open)-1]
		p.open = p.open[:len(p.open)-1]
		c := &p.constructs[id]
		c.end = in.Offset
		sinkable := c.loop || (!c.conditional && !(c.isIf && !c.elsed))
		switch {
		case c.hoistable && (!c.escaped || !sinkable):
			c.hoisted = true
			p.nextOwner, p.nextCont = c.entry, id
		case c.loop:
			p.nextSink = []int{p.cur} // a loop's end is reached only by falling through
		case sinkable:
			p.nextSink = append(c.preds, p.cur)
		}
		// A body that is one segment branching back to itself has only
		// itself to be charged by.
		if c.loop && !c.conditional && !slices.Contains(c.preds, c.body) {
			p.sinkInto[c.body] = c.preds
		}
	case OpBr:
		p.branch(in.Index, false, in)
	case OpBrIf:
		p.branch(in.Index, true, in)
		p.hoistFallthrough(in)
	case OpBrTable:
		for _, l := range in.Labels {
			if t := p.target(l); t != nil {
				t.conditional = true
			}
			for _, id := range p.open[len(p.open)-min(int(l), len(p.open)):] {
				p.constructs[id].escaped = true
				p.constructs[id].hoistable = false
			}
		}
	case OpReturn, OpReturnCall, OpReturnCallIndirect:
		p.branch(uint32(len(p.open)), false, in)
	case OpCall, OpCallIndirect:
		// A host function may end the run (proc_exit): the count must be
		// exact when one is called.
		if p.hoist == HoistLocal || (in.Op == OpCall && in.Index < p.imported) {
			p.unhoistable()
		} else {
			p.nextOwner = p.cur
		}
	case OpTry, OpCatch, OpCatchAll, OpDelegate, OpThrow, OpRethrow:
		// exceptions leave constructs in ways this does not follow
		p.hoist = HoistNone
	}
}

// next starts the segment at start, after an instruction that ended one.
func (p *segmentPlan) next(start uint32) {
	s := planSegment{start: start, owner: len(p.segs), cont: -1}
	if p.nextOwner >= 0 {
		s.owner, s.cont = p.nextOwner, p.nextCont
	} else if p.nextSink != nil {
		p.sinkInto[len(p.segs)] = p.nextSink
	}
	p.nextOwner, p.nextCont, p.nextSink = -1, -1, nil
	p.segs = append(p.segs, s)
	p.cur = len(p.segs) - 1
}

// finish moves every count to the segment that charges it and works out
// the escapes' compensation. Owners, predecessors and escapes all come
// before the segments they are about, so one pass from the end settles
// each segment's charge before it is moved.
func (p *segmentPlan) finish() ([]condComp, []elseComp) {
	if p.hoist == HoistNone { // turned off midway, or never on
		for i := range p.segs {
			p.segs[i].owner = i
		}
		return nil, nil
	}
	var conds []condComp
	for i := len(p.segs) - 1; i >= 0; i-- {
		s := &p.segs[i]
		if e := p.edges[i]; e != nil {
			for _, id := range e.constructs {
				if c := p.constructs[id]; c.hoisted {
					e.comp += c.resolved
				}
			}
			if e.comp != 0 {
				if e.cond {
					conds = append(conds, condComp{at: e.at, len: e.len, label: e.label, comp: e.comp})
				} else {
					s.n -= e.comp
				}
			}
		}
		if i == 0 {
			break
		}
		if s.owner != i {
			if s.cont >= 0 {
				p.constructs[s.cont].resolved = s.n
			}
			p.segs[s.owner].n += s.n
			s.n = 0
		} else if preds, ok := p.sinkInto[i]; ok {
			for _, pred := range preds {
				p.segs[pred].n += s.n
			}
			s.n = 0
		}
	}
	// The then arms' counts are known only now; an else arm's first
	// segment is neither hoisted nor sunk, so its charge can still change.
	var elses []elseComp
	for _, c := range p.constructs {
		if c.thenArm < 0 {
			continue
		}
		comp := p.constructs[c.thenArm].resolved
		switch {
		case comp == 0:
		case c.elsed:
			p.segs[c.elseSeg].n -= comp
		default:
			elses = append(elses, elseComp{at: c.end, comp: comp})
		}
	}
	return conds, elses
}
