package stacks

import (
	"math/bits"
	"sort"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// splitKey is one exact slot: a context's pc (or call setup, or a native
// context's slot 0), or a bucket (ctx -1).
type splitKey struct {
	ctx    int
	slot   uint32
	bucket string
}

// splitter lays the Wasm stacks sampled in exact slots around the slots'
// JS stacks, and apportions each slot's exact instructions to them.
type splitter struct {
	root  *rooter // adds the layered stacks
	wasm  WasmNames
	byKey map[splitKey][]*costs.WasmSplit
	// outer: the contexts' known outer segments; inherited: a context's
	// own or, for one no sample was aligned in, its nearest ancestor's
	outer     map[int][][]costs.WasmFrame
	inherited map[int][][]costs.WasmFrame
	parents   []int
	// the contexts' links (ExactProfile's): what each context's parent
	// contributes to its stack, to know where the JS chain's frames end
	chainLinks func(ctx int) [][]jsprofile.Frame
	buf        []jsprofile.Frame
	weights    []uint64
	kept       []*costs.WasmSplit
	gc         bool // the last layered stack has the cycle collector on it
	// frames: each Wasm function's frame, made once (its name formatted)
	frames map[costs.WasmFrame]jsprofile.Frame
}

// phaseOf is the phase of the stack just layered: the cycle collector's if
// it is on it, else the slot's.
func (s *splitter) phaseOf(phase string) string {
	if s.gc {
		return jsprofile.PhaseGC
	}
	return phase
}

func newSplitter(res *costs.Results, wasm WasmNames, root *rooter) *splitter {
	s := &splitter{root: root, wasm: wasm, byKey: map[splitKey][]*costs.WasmSplit{}, outer: res.OuterWasmSegments, inherited: map[int][][]costs.WasmFrame{},
		frames: map[costs.WasmFrame]jsprofile.Frame{}}
	for i := range res.WasmSplits {
		sp := &res.WasmSplits[i]
		k := splitKey{ctx: sp.Context, slot: sp.Slot, bucket: sp.Bucket}
		if sp.Context < 0 {
			k.ctx, k.slot = -1, 0
		}
		s.byKey[k] = append(s.byKey[k], sp)
	}
	return s
}

// chains tells the splitter the contexts' parents and links: a chain's
// frames are, for each context after the first, the link its parent
// contributes.
func (s *splitter) chains(ctxs []costs.ContextCost, links [][]jsprofile.Frame) {
	s.parents = make([]int, len(ctxs))
	for i, c := range ctxs {
		s.parents[i] = c.Parent
	}
	// A context's slots are laid one after another: its chain is made
	// once for them all.
	lastCtx, lastChain := -1, [][]jsprofile.Frame(nil)
	s.chainLinks = func(ctx int) [][]jsprofile.Frame {
		if ctx == lastCtx {
			return lastChain
		}
		var out [][]jsprofile.Frame
		for c := ctx; c >= 0 && ctxs[c].Parent >= 0; c = ctxs[c].Parent {
			out = append(out, links[c])
		}
		// root first
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		lastCtx, lastChain = ctx, out
		return out
	}
}

// add adds a slot's instructions, split across its Wasm stacks, on its
// JS stack (root first) with each stack's Wasm frames laid around it. It
// reports false, adding nothing, when the slot has no Wasm stacks or no
// instructions: the caller adds them on the JS stack alone.
func (s *splitter) add(phase string, k splitKey, stack []jsprofile.Frame, instrs uint64, keep func(*costs.WasmSplit) bool) bool {
	if instrs == 0 {
		return false
	}
	splits := s.byKey[k]
	if keep != nil {
		s.kept = s.kept[:0]
		for _, sp := range splits {
			if keep(sp) {
				s.kept = append(s.kept, sp)
			}
		}
		splits = s.kept
	}
	if len(splits) == 0 {
		// No sample fell in this slot: its context's outer segments, if
		// known, are still its frames above and between.
		outer := s.outerOf(k.ctx)
		if outer == nil {
			return false
		}
		st := s.layered(k, stack, &costs.WasmSplit{Segments: append(outer[:len(outer):len(outer)], nil)})
		s.root.add(s.phaseOf(phase), st, int64(instrs), 0, 0)
		return true
	}
	s.weights = s.weights[:0]
	for _, sp := range splits {
		s.weights = append(s.weights, sp.Weight)
	}
	parts := apportion(instrs, s.weights)
	for i, sp := range splits {
		if parts[i] == 0 {
			continue
		}
		st := s.layered(k, stack, sp)
		s.root.add(s.phaseOf(phase), st, int64(parts[i]), 0, 0)
	}
	return true
}

// layered is stack with sp's Wasm frames laid around it
// (costs.WasmSplit.Segments): the first segment above the chain's first
// frame, each next one below the chain's next frame, the last below the
// slot's own frames; a bucket's frame has its Wasm stack under it.
func (s *splitter) layered(k splitKey, stack []jsprofile.Frame, sp *costs.WasmSplit) []jsprofile.Frame {
	s.gc = false
	out := s.buf[:0]
	if k.ctx < 0 {
		// the bucket's frame, then the Wasm stack it was in
		out = append(out, stack...)
		out = s.appendWasm(out, sp.Segments[0])
		s.buf = out
		return out
	}
	var links [][]jsprofile.Frame
	if s.chainLinks != nil {
		links = s.chainLinks(k.ctx)
	}
	if len(sp.Segments) != len(links)+2 {
		// Not this context's chain: the Wasm frames above and below only.
		out = s.appendWasm(out, sp.Segments[0])
		out = append(out, stack...)
		out = s.appendWasm(out, sp.Segments[len(sp.Segments)-1])
		s.buf = out
		return out
	}
	out = s.appendWasm(out, sp.Segments[0])
	rest := stack
	for i, l := range links {
		out = append(out, rest[:len(l)]...)
		rest = rest[len(l):]
		out = s.appendWasm(out, sp.Segments[i+1])
	}
	out = append(out, rest...)
	out = s.appendWasm(out, sp.Segments[len(sp.Segments)-1])
	s.buf = out
	return out
}

func (s *splitter) appendWasm(out []jsprofile.Frame, ws []costs.WasmFrame) []jsprofile.Frame {
	for _, w := range ws {
		fr, ok := s.frames[w]
		if !ok {
			if w.Foreign != "" {
				fr = jsprofile.ForeignWasmFrame(w.Foreign)
			} else {
				fr = jsprofile.WasmFrame(w.Index, s.wasm.Name(w.Index), "", 0, w.Offset)
			}
			s.frames[w] = fr
		}
		if w.Foreign == "" && fr.Name == jsprofile.GCFunction {
			s.gc = true
		}
		out = append(out, fr)
	}
	return out
}

// outerOf is the context's outer segments, or its nearest ancestor's
// (with nothing between the ancestor and it), or nil: the segments of the
// Wasm stack above and between a chain are its callers', so an ancestor's
// hold for its descendants up to the ancestor's own frames.
func (s *splitter) outerOf(ctx int) [][]costs.WasmFrame {
	if ctx < 0 || s.parents == nil {
		return nil
	}
	if segs, ok := s.inherited[ctx]; ok {
		return segs
	}
	segs := s.outer[ctx]
	if segs == nil {
		if p := s.parents[ctx]; p >= 0 {
			if up := s.outerOf(p); up != nil {
				// the parent's segments, and an empty one below the
				// parent's frame: the Wasm between it and ctx is unknown
				segs = append(up[:len(up):len(up)], nil)
			}
		}
	}
	s.inherited[ctx] = segs
	return segs
}

// apportion splits total in proportion to weights, in whole units that add
// up to total exactly: each part is rounded down, and what rounding left
// goes, a unit each, to the largest remainders (ties to the earlier part).
func apportion(total uint64, weights []uint64) []uint64 {
	parts := make([]uint64, len(weights))
	var sum uint64
	for _, w := range weights {
		sum += w
	}
	if sum == 0 {
		if len(parts) > 0 {
			parts[0] = total
		}
		return parts
	}
	rems := make([]uint64, len(weights))
	var given uint64
	for i, w := range weights {
		hi, lo := bits.Mul64(total, w)
		parts[i], rems[i] = bits.Div64(hi, lo, sum) // w <= sum: no overflow
		given += parts[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rems[order[a]] > rems[order[b]] })
	for _, i := range order[:total-given] {
		parts[i]++
	}
	return parts
}
