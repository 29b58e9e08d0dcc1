package naming

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// Sources of a function's name (FunctionInfo.Source).
const (
	SourceBytecode = "bytecode" // matched to a function of the serialized program
	SourceMemory   = "memory"   // read from the engine's structures in guest memory
	SourceAddress  = "address"  // an honest label: anonymous@0x… (the bytecode address)
)

// Namer names the functions the meter measured: it matches each runtime
// bytecode buffer to a function of the serialized program, and, given the
// guest memory, reads what it can of the others from the engine.
//
// Call Learn with every function of a run before Name: matches made
// unambiguous by one function's atoms then settle other functions'. A
// Namer is not safe for concurrent use.
type Namer struct {
	prog   *bytecode.Program
	engine bytecode.EngineSpec
	// shapes index the program's functions for matching (shapeIndex);
	// order is each function's place in the program.
	shapes *shapeIndex
	order  map[*bytecode.Function]int
	mem    Memory

	// atoms maps the program's atom references to the runtime's atoms,
	// and back, as far as unambiguous matches showed them.
	atoms, atomsBack map[uint32]uint32
	layout           *memLayout
	// memFormat is the variant of the pc → line tables read from memory
	// when there is no program to say (knownFromMeter).
	memFormat bytecode.Format
	known     map[funcKey]FunctionInfo      // after Learn
	lines     map[funcKey][]bytecode.PCLine // pc → line tables read from memory

	callOps []callOp             // the opcodes as CallName's analysis sees them; empty: unusable
	flows   map[uint32]*callFlow // CallName's analyses, by bytecode address
}

// funcKey identifies a measured function: its buffer's address, and which
// of the functions the engine put at that address in turn it is.
type funcKey struct{ addr, generation uint32 }

func keyOf(f costs.FunctionCost) funcKey { return funcKey{f.Address, f.Generation} }

// Memory reads guest memory; wazero's api.Memory satisfies it. If it also
// has a Size() uint32 method (api.Memory does), the namer can find the
// runtime's atom table and name functions compiled at run time.
type Memory interface {
	Read(offset, byteCount uint32) ([]byte, bool)
}

// FunctionInfo is what the Namer says of one function.
type FunctionInfo struct {
	// Name is the display name (Function.DisplayName for matched
	// functions; for ambiguous ones the candidates' names; for unnamed
	// runtime functions anonymous@0x… with the bytecode address).
	Name   string
	File   string
	Line   int // first line, 1-based; 0 when unknown
	Column int // first column, 1-based; 0 when unknown
	Source string
	// Ambiguous: several serialized functions matched equally well; Name
	// lists them ("a:3 | b:7") and Function is nil.
	Ambiguous bool
	// Candidates are the ambiguous match's candidates.
	Candidates []*bytecode.Function
	// Function is the matched serialized function, nil otherwise.
	Function *bytecode.Function
}

// LineCost is a function's cost on one source line.
type LineCost struct {
	Line         int // 0: pcs without a known line
	Executions   uint64
	Instructions uint64
}

// NewNamer returns a namer for the functions of prog (nil when no
// serialized bytecode was found: every function is then labelled from
// memory or by address).
func NewNamer(prog *bytecode.Program, engine bytecode.EngineSpec) *Namer {
	n := &Namer{prog: prog, engine: engine, shapes: newShapeIndex(), order: map[*bytecode.Function]int{},
		atoms: map[uint32]uint32{}, atomsBack: map[uint32]uint32{}}
	if prog != nil {
		for i, f := range prog.Functions {
			n.shapes.add(f)
			n.order[f] = i
		}
	}
	return n
}

// UseMemory lets the namer read the engine's function objects: to settle
// ambiguous matches by the line, column and name the engine keeps, and to
// name functions compiled at run time. mem must still hold the run's
// memory when Learn and Name are called (read it before the instance
// closes).
func (n *Namer) UseMemory(mem Memory) { n.mem = mem }

// candidate is one serialized function matching a runtime buffer.
type candidate struct {
	fn    *bytecode.Function
	pairs [][2]uint32 // (program atom reference, runtime atom) of user atoms
}

// match compares a runtime buffer with a serialized function: equal
// lengths, equal bytes except atom operands; a builtin atom or a tagged
// integer must be equal, a program atom may differ but must map one to one.
func (n *Namer) match(code []byte, fn *bytecode.Function) (candidate, bool) {
	c := candidate{fn: fn}
	if len(code) != len(fn.Code) {
		return c, false
	}
	first := n.prog.FirstAtom
	pos := 0
	// The pairs so far, program atom → runtime atom, one to one: few per
	// function, so a scan of c.pairs (no maps to make: matching runs for
	// every candidate of every function of a run).
	mapped := func(s, r uint32) (known, agrees bool) {
		for _, p := range c.pairs {
			if p[0] == s || p[1] == r {
				return true, p[0] == s && p[1] == r
			}
		}
		return false, true
	}
	for _, op := range fn.AtomOps {
		o := int(op.Offset)
		if string(code[pos:o]) != string(fn.Code[pos:o]) {
			return c, false
		}
		s, r := op.Ref, binary.LittleEndian.Uint32(code[o:])
		pos = o + 4
		want, fixed := n.prog.RuntimeAtom(s)
		if fixed {
			if r != want {
				return c, false
			}
			continue
		}
		if r < first || r&0x80000000 != 0 {
			return c, false
		}
		known, agrees := mapped(s, r)
		if !agrees {
			return c, false
		}
		if !known {
			c.pairs = append(c.pairs, [2]uint32{s, r})
		}
	}
	if string(code[pos:]) != string(fn.Code[pos:]) {
		return c, false
	}
	return c, true
}

// candidates returns every serialized function the buffer matches, in
// program order.
func (n *Namer) candidates(f costs.FunctionCost) []candidate {
	if n.prog == nil || len(f.Code) == 0 {
		return nil
	}
	var out []candidate
	for _, fn := range n.shapes.lookup(f.Code) {
		if c, ok := n.match(f.Code, fn); ok {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return n.order[out[i].fn] < n.order[out[j].fn] })
	return out
}

// consistent says whether a candidate's atom pairs agree with what the
// unambiguous matches established.
func (n *Namer) consistent(c candidate) bool {
	for _, p := range c.pairs {
		if r, ok := n.atoms[p[0]]; ok && r != p[1] {
			return false
		}
		if s, ok := n.atomsBack[p[1]]; ok && s != p[0] {
			return false
		}
	}
	return true
}

func (n *Namer) adopt(c candidate) {
	for _, p := range c.pairs {
		if _, ok := n.atoms[p[0]]; ok {
			continue
		}
		if _, ok := n.atomsBack[p[1]]; ok {
			continue
		}
		n.atoms[p[0]], n.atomsBack[p[1]] = p[1], p[0]
	}
}

// Learn matches every function of a run at once: unambiguous matches
// establish how the engine renumbered the program's atoms, which settles
// matches that differ only in atoms; with memory (UseMemory), the
// engine's own record of each function's line, column and name settles
// identical bodies and names functions compiled at run time.
func (n *Namer) Learn(fs []costs.FunctionCost) {
	n.known = map[funcKey]FunctionInfo{}
	type pending struct {
		f     costs.FunctionCost
		cands []candidate
	}
	var open []*pending
	var unique []matchedFunc
	var none []costs.FunctionCost
	for _, f := range fs {
		cs := n.candidates(f)
		switch len(cs) {
		case 0:
			none = append(none, f)
		case 1:
			n.adopt(cs[0])
			n.known[keyOf(f)] = matchedInfo(cs[0].fn)
			unique = append(unique, matchedFunc{f, cs[0].fn})
		default:
			open = append(open, &pending{f, cs})
		}
	}
	for changed := true; changed; {
		changed = false
		for _, p := range open {
			if len(p.cands) < 2 {
				continue
			}
			kept := p.cands[:0]
			for _, c := range p.cands {
				if n.consistent(c) {
					kept = append(kept, c)
				}
			}
			p.cands = kept
			if len(kept) == 1 {
				n.adopt(kept[0])
				n.known[keyOf(p.f)] = matchedInfo(kept[0].fn)
				unique = append(unique, matchedFunc{p.f, kept[0].fn})
				changed = true
			}
		}
	}
	for _, p := range open {
		if len(p.cands) == 0 { // every candidate contradicts the atoms
			none = append(none, p.f)
		}
	}
	if n.mem != nil {
		n.layout = n.calibrate(unique)
		if n.layout.buf < 0 {
			// Nothing matched to calibrate on (a Wizer'd build carries
			// no serialized program): the engine's known layout, if the
			// functions' objects agree with it.
			if l, format, ok := n.knownFromMeter(fs); ok {
				n.layout, n.memFormat = &l, format
			}
		}
		// A function compiled at run time may have the bytecode of a
		// program function: the engine's record of it says otherwise.
		for _, m := range unique {
			if n.contradicts(m.f, m.fn) {
				delete(n.known, keyOf(m.f))
				none = append(none, m.f)
			}
		}
	}
	for _, f := range none {
		if info, ok := n.fromMemory(f); ok {
			n.known[keyOf(f)] = info
		} else if _, matched := n.known[keyOf(f)]; !matched {
			n.known[keyOf(f)] = addressInfo(f)
		}
	}
	for _, p := range open {
		if len(p.cands) < 2 {
			continue
		}
		fns := make([]*bytecode.Function, len(p.cands))
		for i, c := range p.cands {
			fns[i] = c.fn
		}
		if fn := n.settleByMemory(p.f, fns); fn != nil {
			n.known[keyOf(p.f)] = matchedInfo(fn)
			for _, c := range p.cands {
				if c.fn == fn {
					n.adopt(c)
				}
			}
			continue
		}
		n.known[keyOf(p.f)] = ambiguousInfo(fns)
	}
}

type matchedFunc struct {
	f  costs.FunctionCost
	fn *bytecode.Function
}

func matchedInfo(fn *bytecode.Function) FunctionInfo {
	return FunctionInfo{Name: fn.DisplayName(), File: fn.File, Line: fn.Line, Column: fn.Column,
		Source: SourceBytecode, Function: fn}
}

// maxListed bounds the candidates an ambiguous name lists.
const maxListed = 3

func ambiguousInfo(fns []*bytecode.Function) FunctionInfo {
	info := FunctionInfo{Source: SourceBytecode, Ambiguous: true, Candidates: fns,
		File: fns[0].File, Line: fns[0].Line, Column: fns[0].Column}
	var parts []string
	for i, fn := range fns {
		if fn.File != info.File {
			info.File = ""
		}
		if fn.Line != info.Line || fn.Column != info.Column {
			info.Line, info.Column = 0, 0
		}
		if i < maxListed {
			parts = append(parts, fmt.Sprintf("%s:%d", fn.DisplayName(), fn.Line))
		}
	}
	if len(fns) > maxListed {
		parts = append(parts, fmt.Sprintf("… (%d candidates)", len(fns)))
	}
	info.Name = strings.Join(parts, " | ")
	return info
}

// Name names one function. Functions Learn saw get what it settled;
// others are matched on their own.
func (n *Namer) Name(f costs.FunctionCost) FunctionInfo {
	if info, ok := n.known[keyOf(f)]; ok {
		return info
	}
	cs := n.candidates(f)
	kept := cs[:0]
	for _, c := range cs {
		if n.consistent(c) {
			kept = append(kept, c)
		}
	}
	switch len(kept) {
	case 1:
		return matchedInfo(kept[0].fn)
	case 0:
		if info, ok := n.fromMemory(f); ok {
			return info
		}
		return addressInfo(f)
	}
	fns := make([]*bytecode.Function, len(kept))
	for i, c := range kept {
		fns[i] = c.fn
	}
	if fn := n.settleByMemory(f, fns); fn != nil {
		return matchedInfo(fn)
	}
	return ambiguousInfo(fns)
}

// addressInfo labels a function nothing is known of.
func addressInfo(f costs.FunctionCost) FunctionInfo {
	return FunctionInfo{Name: fmt.Sprintf("anonymous@%#x", f.Address), Source: SourceAddress}
}

// LineOf returns the source line and column of the instruction at pc of a
// function, as the engine's own pc → line table gives it. For an
// ambiguous match it answers only when every candidate agrees.
func (n *Namer) LineOf(f costs.FunctionCost, pc uint32) (line, column int, ok bool) {
	return n.lineOfInfo(f, n.Name(f), pc)
}

func (n *Namer) lineOfInfo(f costs.FunctionCost, info FunctionInfo, pc uint32) (line, column int, ok bool) {
	if info.Source == SourceMemory {
		e, ok := bytecode.LineAt(n.lines[keyOf(f)], pc)
		return e.Line, e.Column, ok
	}
	if info.Function != nil {
		e, ok := bytecode.LineAt(info.Function.Lines, pc)
		return e.Line, e.Column, ok
	}
	if info.Ambiguous {
		var first bytecode.PCLine
		for i, fn := range info.Candidates {
			e, ok := bytecode.LineAt(fn.Lines, pc)
			if !ok || (i > 0 && (e.Line != first.Line || e.Column != first.Column)) {
				return 0, 0, false
			}
			first = e
		}
		return first.Line, first.Column, len(info.Candidates) > 0
	}
	return 0, 0, false
}

// LineCosts sums a function's cost per pc by source line, in line order;
// pcs whose line is unknown are summed under line 0.
func (n *Namer) LineCosts(f costs.FunctionCost) []LineCost {
	info := n.Name(f)
	by := map[int]*LineCost{}
	for _, c := range f.PCs {
		line, _, ok := n.lineOfInfo(f, info, c.PC)
		if !ok {
			line = 0
		}
		lc := by[line]
		if lc == nil {
			lc = &LineCost{Line: line}
			by[line] = lc
		}
		lc.Executions += c.Executions
		lc.Instructions += c.Instructions
	}
	out := make([]LineCost, 0, len(by))
	for _, lc := range by {
		out = append(out, *lc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// Identity is the namer seen as package stacks names functions: display
// names and lines from the matched serialized function, or from the
// engine's memory.
type Identity struct{ n *Namer }

// Identity returns the namer's Identity.
func (n *Namer) Identity() Identity { return Identity{n} }

// Function returns f's display name, file, and first line and column.
func (i Identity) Function(f costs.FunctionCost) (string, string, int, int) {
	info := i.n.Name(f)
	return info.Name, info.File, info.Line, info.Column
}

// CallName names the function the call at pc of f calls, as the source
// wrote it ("Javy.IO.readSync"); "" when it cannot tell (Namer.CallName).
func (i Identity) CallName(f costs.FunctionCost, pc uint32) string {
	return i.n.CallName(f, pc)
}

// Line returns the source line and column of pc in f, 0 when unknown.
func (i Identity) Line(f costs.FunctionCost, pc uint32) (int, int) {
	line, col, ok := i.n.LineOf(f, pc)
	if !ok {
		return 0, 0
	}
	return line, col
}
