package htmlview

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// The flame graph of the HTML report: a profile's stacks merged into one
// tree of frames, root first, pruned so that the page stays small however
// large the profile (FlameOptions), and written into the page as compact
// JSON that its script lays out as an icicle.

// Kinds of flame graph frames, as the page's data and CSS name them.
const (
	FlameJS     = "j" // a JS function
	FlameOpcode = "o" // a JS opcode
	FlameNative = "n" // a native (C) builtin, or the (native functions) bucket
	FlameWasm   = "w" // a Wasm function
	FlameBucket = "b" // (outside JS), (truncated Wasm stack)
	FlameOther  = "x" // frames too small to draw, summed
)

// FoldedWasmName names the node that stands for a run of Wasm frames a
// diff's flame graph cannot match between its two profiles (unnamed
// wasm-function[N] frames, whose indices differ between engines, or named
// ones only one profile has).
const FoldedWasmName = "(Wasm frames)"

// OtherName names the node that sums the children too small to keep.
const OtherName = "(other)"

// FlameOptions bound the tree written into the page.
type FlameOptions struct {
	// MinShare: nodes under this share of the total are summed into their
	// parent's (other) child. Default 0.0001 (0.01%); negative: keep all.
	MinShare float64
	// MaxNodes caps the nodes kept (the heaviest first). Default 20,000.
	MaxNodes int
	// Function keeps only the stacks with a JS function of that name
	// (jsprof report --function).
	Function string
}

// Default flame graph bounds.
const (
	DefaultFlameMinShare = 0.0001
	DefaultFlameMaxNodes = 20_000
)

// FlameFrame is one distinct frame of the graph.
type FlameFrame struct {
	Kind  string // Flame*
	Name  string
	Where string // JS: file:first line; Wasm: its DWARF file, when known
}

// FlameNode is a node of the pruned tree: a frame under its parent, with
// the values of every sample through it (inclusive).
type FlameNode struct {
	Frame int // index in Flame.Frames; -1: the root; -2: (other)
	// Instructions, Executions, Calls: of every sample through the node.
	Instructions, Executions, Calls uint64
	// Base is the base profile's Wasm instructions at the same path (a
	// diff's flame graph); InBase says whether the base had that path,
	// InNew whether the new profile had it (a diff's tree is the union of
	// both profiles' paths, so that either can be drawn from it).
	Base          uint64
	InBase, InNew bool
	Children      []*FlameNode // heaviest in new first; (other) last
}

// Flame is a profile's merged stacks, pruned.
type Flame struct {
	Mode   string
	Frames []FlameFrame
	Root   *FlameNode
	// Nodes counts the nodes kept; Stacks the samples merged.
	Nodes, Stacks int
	// Diff: the nodes carry the base profile's instructions.
	Diff bool
	// BaseTotal is the base profile's instructions (a diff).
	BaseTotal uint64
	// Natives are the native builtins and the (native functions) bucket,
	// heaviest first.
	Natives []NativeCost
}

// NativeCost is the cost of a native builtin, or of the natives in the
// (native functions) bucket when Named is false.
type NativeCost struct {
	Name  string
	Named bool
	// SelfWasmInstructions ran in the native itself (no JS function it
	// called back); TotalWasmInstructions with it anywhere on the stack.
	SelfWasmInstructions  uint64
	TotalWasmInstructions uint64
	Calls                 uint64
	Share                 float64 // total, of the profile's total
}

// isNative says whether a frame is a native builtin's: of jsprofile's
// native kind, or a JS frame named with report.NativeSuffix (profiles
// that name natives as JS functions), or the (native functions) bucket,
// which holds the natives no frame names.
func isNative(f jsprofile.StackFrame) bool {
	fn := f.Function
	switch {
	case fn == nil:
		return false
	case f.Kind == jsprofile.KindNative:
		return true
	case f.Kind == jsprofile.KindJS:
		return strings.HasSuffix(fn.Name, report.NativeSuffix)
	case f.Kind == jsprofile.KindBucket:
		return fn.Name == jsprofile.BucketNative
	}
	return false
}

// flameFrameOf classifies and names a stack frame.
func flameFrameOf(f jsprofile.StackFrame) FlameFrame {
	fn := f.Function
	out := FlameFrame{Name: fn.Name}
	switch {
	case isNative(f):
		out.Kind = FlameNative
	case f.Kind == jsprofile.KindJS:
		out.Kind = FlameJS
		if i := strings.LastIndex(fn.Name, "@0x"); i > 0 && fn.Filename != "" && fn.StartLine > 0 {
			out.Name = fn.Name[:i] // the address differs between engines
		}
		if fn.Filename != "" {
			out.Where = fn.Filename
			if fn.StartLine > 0 {
				out.Where += ":" + strconv.FormatInt(fn.StartLine, 10)
			}
		}
	case f.Kind == jsprofile.KindOpcode:
		out.Kind = FlameOpcode
	case f.Kind == jsprofile.KindWasm:
		out.Kind = FlameWasm
		out.Where = fn.Filename
	default:
		out.Kind = FlameBucket
	}
	return out
}

// stackSet is a profile's stacks, flattened: the frames of sample i,
// root first, are frames[off[i]:off[i+1]].
type stackSet struct {
	frames []int32
	off    []int
	val    [][jsprofile.NumValues]uint64
}

func (s *stackSet) len() int { return len(s.val) }

// frameAt is sample i's frame at depth d, -1 past its leaf.
func (s *stackSet) frameAt(i int32, d int) int32 {
	if j := s.off[i] + d; j < s.off[i+1] {
		return s.frames[j]
	}
	return -1
}

// flameBuilder flattens profiles' stacks onto one table of frames, so
// that two profiles (a diff's) can be walked together.
type flameBuilder struct {
	frames []FlameFrame
	byKey  map[FlameFrame]int32
	// native and js say which frames are natives, and JS functions.
	native, js []bool
	// matched, in a diff, are the Wasm frames both profiles name alike
	// (by name); nil: every Wasm frame is kept as it is.
	matched map[string]bool
}

// intern returns the index of a frame in the table, adding it when new.
func (b *flameBuilder) intern(f FlameFrame) int32 {
	i, ok := b.byKey[f]
	if !ok {
		i = int32(len(b.frames))
		b.frames = append(b.frames, f)
		b.byKey[f] = i
		b.native = append(b.native, f.Kind == FlameNative)
		b.js = append(b.js, f.Kind == FlameJS)
	}
	return i
}

func (b *flameBuilder) frame(sf jsprofile.StackFrame) int32 { return b.intern(flameFrameOf(sf)) }

// matchWasm makes b fold, in the stacks it flattens next, every run of
// Wasm frames that is not named alike in both profiles: a Wasm function
// is matched by name only when both profiles have it and it has a name
// (wasm-function[N] numbers a function by its index, which differs
// between engines and builds).
func (b *flameBuilder) matchWasm(base, new *report.StackReader) {
	names := func(r *report.StackReader) map[string]bool {
		out := map[string]bool{}
		for _, f := range r.Funcs {
			if f.Kind == jsprofile.KindWasm && !report.IsUnnamedWasm(f.Function.Name) {
				out[f.Function.Name] = true
			}
		}
		return out
	}
	inBase := names(base)
	b.matched = map[string]bool{}
	for n := range names(new) {
		if inBase[n] {
			b.matched[n] = true
		}
	}
}

// funcFrame is what flattening a stack needs of one of its functions.
type funcFrame struct {
	frame int32
	// wasm: a Wasm frame; foldable: one that matchWasm folds.
	wasm, foldable bool
	only           bool // a JS function named FlameOptions.Function
}

// stacks flattens p's samples (read by r), only those with a JS function
// of that name when only is not "". In a diff (matchWasm), each run of
// consecutive Wasm frames with a frame to fold becomes one FoldedWasmName
// frame.
func (b *flameBuilder) stacks(p *jsprofile.Profile, r *report.StackReader, only string) *stackSet {
	n := 0
	for _, smp := range p.Sample {
		n += len(smp.Location) // a line each, in jsprof's profiles
	}
	s := &stackSet{frames: make([]int32, 0, n), off: make([]int, 1, len(p.Sample)+1), val: make([][jsprofile.NumValues]uint64, 0, len(p.Sample))}
	funcs := make([]funcFrame, len(r.Funcs))
	for i, sf := range r.Funcs {
		// a source map's parts of one JS function are one frame
		ff := funcFrame{frame: b.frame(r.Funcs[r.Whole(int32(i))]), wasm: sf.Kind == jsprofile.KindWasm,
			only: only != "" && sf.Kind == jsprofile.KindJS && sf.Function.Name == only}
		ff.foldable = ff.wasm && b.matched != nil && !b.matched[sf.Function.Name]
		funcs[i] = ff
	}
	folded := int32(-1)
	if b.matched != nil {
		folded = b.intern(FlameFrame{Kind: FlameWasm, Name: FoldedWasmName})
	}
	var buf []report.Frame
	var run []*funcFrame // the Wasm frames since the last other frame
	flush := func() {
		fold := false
		for _, ff := range run {
			fold = fold || ff.foldable
		}
		if fold {
			s.frames = append(s.frames, folded)
		} else {
			for _, ff := range run {
				s.frames = append(s.frames, ff.frame)
			}
		}
		run = run[:0]
	}
	for _, smp := range p.Sample {
		start := len(s.frames)
		keep := only == ""
		buf = r.Stack(smp, buf)
		for k := len(buf) - 1; k >= 0; k-- { // root first
			ff := &funcs[buf[k].Func]
			keep = keep || ff.only
			if ff.wasm {
				run = append(run, ff)
				continue
			}
			flush()
			s.frames = append(s.frames, ff.frame)
		}
		flush()
		if !keep {
			s.frames = s.frames[:start]
			continue
		}
		s.off = append(s.off, len(s.frames))
		var v [jsprofile.NumValues]uint64
		for i := range v {
			v[i] = uint64(smp.Value[i])
		}
		s.val = append(s.val, v)
	}
	return s
}

// natives charges each sample to the natives on its stack: its total to
// each, once; its self and calls to the innermost one when no JS function
// runs under it.
func (b *flameBuilder) natives(s *stackSet, total uint64) []NativeCost {
	m := map[string]*NativeCost{}
	seen := map[int32]bool{}
	for i := 0; i < s.len(); i++ {
		clear(seen)
		fs := s.frames[s.off[i]:s.off[i+1]]
		innermost := true
		for k := len(fs) - 1; k >= 0; k-- { // leaf first
			fr := fs[k]
			if !b.native[fr] {
				if b.js[fr] {
					innermost = false
				}
				continue
			}
			name := strings.TrimSuffix(b.frames[fr].Name, report.NativeSuffix)
			n := m[name]
			if n == nil {
				n = &NativeCost{Name: name, Named: name != jsprofile.BucketNative}
				m[name] = n
			}
			if !seen[fr] {
				seen[fr] = true
				n.TotalWasmInstructions += s.val[i][jsprofile.ValueInstructions]
			}
			if innermost {
				n.SelfWasmInstructions += s.val[i][jsprofile.ValueInstructions]
				n.Calls += s.val[i][jsprofile.ValueCalls]
			}
			innermost = false
		}
	}
	return sortNatives(m, total)
}

// NewFlame merges p's stacks into its flame graph, pruned as opts say.
func NewFlame(p *jsprofile.Profile, opts FlameOptions) *Flame {
	b := &flameBuilder{byKey: map[FlameFrame]int32{}}
	s := b.stacks(p, report.NewStackReader(p), opts.Function)
	f := &Flame{Mode: p.Meta.Mode, Stacks: s.len()}
	f.Root, f.Nodes = merge(s, nil, opts)
	b.finish(f, s, p.Meta.TotalInstructions)
	return f
}

// NewFlameDiff is the flame graph of both profiles: the union of their
// paths of frames, each node with new's values and the base's
// instructions, so that the page can draw the base and the new run side
// by side, coloured by change. Frames are matched by kind and name, JS
// functions also by file and first line, since addresses differ between
// engines; Wasm frames by name when both profiles name them alike, and
// every other run of Wasm frames is folded into one FoldedWasmName frame
// (a stripped engine's wasm-function[N] numbers differ between engines,
// and two engines' Wasm functions differ anyway), so that the JS, opcode,
// native and phase frames under them line up.
func NewFlameDiff(base, new *jsprofile.Profile, opts FlameOptions) *Flame {
	b := &flameBuilder{byKey: map[FlameFrame]int32{}}
	br, nr := report.NewStackReader(base), report.NewStackReader(new)
	b.matchWasm(br, nr)
	bs := b.stacks(base, br, opts.Function)
	ns := b.stacks(new, nr, opts.Function)
	f := &Flame{Mode: new.Meta.Mode, Stacks: ns.len(), Diff: true}
	for i := range bs.val {
		f.BaseTotal += bs.val[i][jsprofile.ValueInstructions]
	}
	f.Root, f.Nodes = merge(ns, bs, opts)
	b.finish(f, ns, new.Meta.TotalInstructions)
	return f
}

// finish gives the merged graph f its frames and the natives of s, with
// shares of total, the profile's instructions (the root's where the
// profile gives none).
func (b *flameBuilder) finish(f *Flame, s *stackSet, total uint64) {
	f.Frames = b.frames
	if total == 0 {
		total = f.Root.Instructions
	}
	f.Natives = b.natives(s, total)
}

func sortNatives(m map[string]*NativeCost, total uint64) []NativeCost {
	out := make([]NativeCost, 0, len(m))
	for _, n := range m {
		n.Share = costfmt.Share(n.TotalWasmInstructions, float64(total))
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TotalWasmInstructions != out[j].TotalWasmInstructions {
			return out[i].TotalWasmInstructions > out[j].TotalWasmInstructions
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// A candidate node of the merge: a frame under a kept parent, and the
// samples through it, a range of the permutation of a stackSet's samples
// (and of the base's, in a diff; lo > hi: none in new, blo > bhi: none in
// the base).
type candidate struct {
	parent   *FlameNode
	frame    int32
	depth    int // of the frame in its stacks
	lo, hi   int
	blo, bhi int
	val      [jsprofile.NumValues]uint64
	base     uint64
	// weight orders the candidates: new's instructions, or in a diff the
	// larger of the node's shares of new and of the base, so that a path
	// that is heavy in either run is kept.
	weight float64
	seq    int // order of discovery, for ties
}

type candidateHeap []*candidate

func (h candidateHeap) Len() int { return len(h) }
func (h candidateHeap) Less(i, j int) bool {
	if h[i].weight != h[j].weight {
		return h[i].weight > h[j].weight
	}
	return h[i].seq < h[j].seq
}
func (h candidateHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candidateHeap) Push(x any)   { *h = append(*h, x.(*candidate)) }
func (h *candidateHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge builds the pruned tree of s's stacks, heaviest nodes first: a
// node is kept when it holds at least opts.MinShare of the root, while
// fewer than opts.MaxNodes are; each kept node's other children are
// summed into an (other) child. Only kept nodes are ever split into their
// children, so the work is bounded by the samples times the depth of the
// kept tree, whatever the number of distinct stacks. With base, the tree
// is the union of both profiles' paths (a node is kept when it holds that
// share of either root), each node with the base's instructions.
func merge(s, base *stackSet, opts FlameOptions) (*FlameNode, int) {
	minShare, maxNodes := opts.MinShare, opts.MaxNodes
	if minShare == 0 {
		minShare = DefaultFlameMinShare
	}
	if maxNodes <= 0 {
		maxNodes = DefaultFlameMaxNodes
	}
	perm := make([]int32, s.len())
	root := &FlameNode{Frame: -1, InNew: true}
	for i := range perm {
		perm[i] = int32(i)
		root.Instructions += s.val[i][0]
		root.Executions += s.val[i][1]
		root.Calls += s.val[i][2]
	}
	var bperm []int32
	if base != nil {
		bperm = make([]int32, base.len())
		for i := range bperm {
			bperm[i] = int32(i)
			root.Base += base.val[i][0]
		}
		root.InBase = true
	}
	// weigh sets a candidate's weight; minWeight is the least kept. Out
	// of a diff, weights are instructions, compared as integers were.
	var minWeight float64
	weigh := func(c *candidate) { c.weight = float64(c.val[0]) }
	if minShare > 0 {
		minWeight = float64(uint64(minShare * float64(root.Instructions)))
	}
	if base != nil {
		minWeight = max(minShare, 0)
		weigh = func(c *candidate) {
			c.weight = max(costfmt.Share(c.val[0], float64(root.Instructions)), costfmt.Share(c.base, float64(root.Base)))
		}
	}

	seq := 0
	h := &candidateHeap{}
	var scratch []int32
	// split groups the samples of a kept node (perm[lo:hi], at its depth,
	// and bperm[blo:bhi]) by their next frame, and offers each group as a
	// candidate.
	split := func(n *FlameNode, depth, lo, hi, blo, bhi int) {
		groups := map[int32]*candidate{}
		var order []*candidate
		if lo <= hi {
			scratch = group(s, perm, lo, hi, depth+1, scratch, func(fr int32, glo, ghi int) {
				c := &candidate{parent: n, frame: fr, depth: depth + 1, lo: glo, hi: ghi, blo: 1, bhi: 0, seq: seq}
				seq++
				for _, i := range perm[glo:ghi] {
					for k := range c.val {
						c.val[k] += s.val[i][k]
					}
				}
				groups[fr] = c
				order = append(order, c)
			})
		}
		if base != nil && blo <= bhi {
			scratch = group(base, bperm, blo, bhi, depth+1, scratch, func(fr int32, glo, ghi int) {
				c := groups[fr]
				if c == nil {
					c = &candidate{parent: n, frame: fr, depth: depth + 1, lo: 1, hi: 0, seq: seq}
					seq++
					groups[fr] = c
					order = append(order, c)
				}
				c.blo, c.bhi = glo, ghi
				for _, i := range bperm[glo:ghi] {
					c.base += base.val[i][0]
				}
			})
		}
		for _, c := range order {
			weigh(c)
			heap.Push(h, c)
		}
	}
	count := 1
	split(root, -1, 0, len(perm), 0, len(bperm))
	for h.Len() > 0 && count < maxNodes {
		c := (*h)[0]
		if c.weight < minWeight || c.weight == 0 && minShare >= 0 {
			break
		}
		heap.Pop(h)
		n := &FlameNode{Frame: int(c.frame), Instructions: c.val[0], Executions: c.val[1], Calls: c.val[2],
			Base: c.base, InBase: c.blo <= c.bhi, InNew: c.lo <= c.hi}
		c.parent.Children = append(c.parent.Children, n)
		count++
		split(n, c.depth, c.lo, c.hi, c.blo, c.bhi)
	}
	// What is left is summed into its parent's (other).
	others := map[*FlameNode]*FlameNode{}
	for _, c := range *h {
		o := others[c.parent]
		if o == nil {
			o = &FlameNode{Frame: -2}
			others[c.parent] = o
		}
		o.Instructions += c.val[0]
		o.Executions += c.val[1]
		o.Calls += c.val[2]
		o.Base += c.base
		o.InBase = o.InBase || c.blo <= c.bhi
		o.InNew = o.InNew || c.lo <= c.hi
	}
	var order func(n *FlameNode)
	order = func(n *FlameNode) {
		sort.SliceStable(n.Children, func(x, y int) bool { return n.Children[x].Instructions > n.Children[y].Instructions })
		for _, c := range n.Children {
			order(c)
		}
		if o := others[n]; o != nil {
			n.Children = append(n.Children, o)
			count++
		}
	}
	order(root)
	return root, count
}

// group reorders perm[lo:hi] so that the samples with the same frame at
// depth d are together, in the order their frames first appear (samples
// that end before d first, and not offered), and calls offer with each
// frame's range. It returns its scratch space for reuse.
func group(s *stackSet, perm []int32, lo, hi, d int, scratch []int32, offer func(frame int32, lo, hi int)) []int32 {
	index := map[int32]int{}
	var frames []int32
	var counts []int
	ended := 0
	for _, i := range perm[lo:hi] {
		fr := s.frameAt(i, d)
		if fr < 0 {
			ended++
			continue
		}
		k, ok := index[fr]
		if !ok {
			k = len(frames)
			index[fr] = k
			frames = append(frames, fr)
			counts = append(counts, 0)
		}
		counts[k]++
	}
	starts := make([]int, len(frames))
	next := ended
	for k := range frames {
		starts[k] = next
		next += counts[k]
	}
	scratch = append(scratch[:0], perm[lo:hi]...)
	pos := append([]int(nil), starts...)
	e := 0
	for _, i := range scratch {
		fr := s.frameAt(i, d)
		if fr < 0 {
			perm[lo+e] = i
			e++
			continue
		}
		k := index[fr]
		perm[lo+pos[k]] = i
		pos[k]++
	}
	for k, fr := range frames {
		offer(fr, lo+starts[k], lo+starts[k]+counts[k])
	}
	return scratch
}

// flameJSON writes the graph as the page reads it:
//
//	{"mode":"exact","diff":false,"base_total":0,"folded":"(Wasm frames)",
//	 "frames":[["j","fib","fib.js:1"],…],
//	 "nodes":[frame,instructions,executions,calls,children,…],
//	 "base":[instructions or -1,…],"not_in_new":[node,…]}
//
// nodes in preorder, five numbers each (frame -1: the root, -2: (other)),
// base (a diff only) one number per node, -1 where the base has not the
// path; not_in_new (a diff only) the preorder indices of the nodes only
// the base has; frames only those of the nodes kept, in the order first
// met; folded is FoldedWasmName, which the script does not repeat.
func (f *Flame) flameJSON() []byte {
	var nodes, base, notInNew []byte
	index := 0
	used := map[int]int{}
	var order []int
	first := true
	var walk func(n *FlameNode)
	walk = func(n *FlameNode) {
		if !first {
			nodes = append(nodes, ',')
			base = append(base, ',')
		}
		first = false
		fr := n.Frame
		if fr >= 0 {
			i, ok := used[fr]
			if !ok {
				i = len(order)
				used[fr] = i
				order = append(order, fr)
			}
			fr = i
		}
		nodes = strconv.AppendInt(nodes, int64(fr), 10)
		for _, v := range []uint64{n.Instructions, n.Executions, n.Calls} {
			nodes = append(nodes, ',')
			nodes = strconv.AppendUint(nodes, v, 10)
		}
		nodes = append(nodes, ',')
		nodes = strconv.AppendInt(nodes, int64(len(n.Children)), 10)
		if n.InBase {
			base = strconv.AppendUint(base, n.Base, 10)
		} else {
			base = append(base, "-1"...)
		}
		if !n.InNew {
			if len(notInNew) > 0 {
				notInNew = append(notInNew, ',')
			}
			notInNew = strconv.AppendInt(notInNew, int64(index), 10)
		}
		index++
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(f.Root)

	var b []byte
	b = append(b, `{"mode":`...)
	b = appendJSONString(b, f.Mode)
	b = append(b, `,"diff":`...)
	b = strconv.AppendBool(b, f.Diff)
	b = append(b, `,"base_total":`...)
	b = strconv.AppendUint(b, f.BaseTotal, 10)
	b = append(b, `,"folded":`...)
	b = appendJSONString(b, FoldedWasmName)
	b = append(b, `,"frames":[`...)
	for i, k := range order {
		fr := f.Frames[k]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendJSONString(b, fr.Kind)
		b = append(b, ',')
		b = appendJSONString(b, fr.Name)
		b = append(b, ',')
		b = appendJSONString(b, fr.Where)
		b = append(b, ']')
	}
	b = append(b, `],"nodes":[`...)
	b = append(b, nodes...)
	b = append(b, ']')
	if f.Diff {
		b = append(b, `,"base":[`...)
		b = append(b, base...)
		b = append(b, `],"not_in_new":[`...)
		b = append(b, notInNew...)
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string, with <, > and & escaped
// (json.Marshal's escaping), so that it can sit inside a <script>.
func appendJSONString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil { // invalid UTF-8 is replaced, never an error
		return append(b, fmt.Sprintf("%q", s)...)
	}
	return append(b, q...)
}
