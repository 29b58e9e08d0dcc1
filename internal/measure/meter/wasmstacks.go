package meter

import (
	"encoding/binary"
	"slices"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/tetratelabs/wazero/experimental"
)

// Exact mode counts every instruction into the (calling context, pc) that
// ran it, but not which Wasm functions ran it: counting per Wasm function
// and per context would cost a counter update at every Wasm call and
// return. Instead, with Options.WasmStacks, the host also takes the Wasm
// stack every so often, as sampling does, and files it under the exact
// slot the instructions were being charged to at that moment (the running
// block and slot, which the injected code keeps in globals). The profile
// then splits each slot's exact count across the Wasm stacks sampled in
// it, in proportion to the samples' weights: the JS and opcode values stay
// exact, and the Wasm frames under them are an apportioned estimate.

// bucketBeforeJS files the outside bucket's samples before the first
// activation apart from its later ones.
const bucketBeforeJS = "\x00before JS"

// maxAlignedDepth bounds the chains whose Wasm segments are kept between
// every two of their frames: a context's outer segments take memory in
// proportion to its depth, and a guest chooses the depth. Deeper contexts
// keep the segments above and below only (WasmSplit.Aligned false).
const maxAlignedDepth = 128

// wasmStackSamplesPerGrowth makes the sampling period of exact mode's
// Wasm stacks grow with the run: the period is at least the configured
// one and at least the count so far over this, so that a run of n
// instructions takes about this many samples times (1 + ln(n/n0)), n0 the
// count where the growth starts: a vanishing cost on a long run.
const wasmStackSamplesPerGrowth = 50

// SetWasmStacks configures a meter whose plan was made with
// Options.WasmStacks: a Wasm stack about every `every` instructions at
// first, less often as the run grows (wasmStackSamplesPerGrowth).
func (mt *Meter) SetWasmStacks(every uint64) { mt.stacksEvery = max(every, 1) }

// splitAcc is one WasmSplit as samples fill it, with its context.
type splitAcc struct {
	ctx   *callContext // nil for a bucket
	split costs.WasmSplit
}

// exactSample files the Wasm stack under the slot running now. Samples
// taken while an activation has not reached its first opcode are dropped:
// what runs then is charged, at that dispatch, to a function not yet known.
//
// It runs at every sample of a run, so it reuses its buffers, copies a
// stack only the first time it files it, and walks the whole Wasm stack
// only until it knows a context's outer segments: they are the same for
// every activation of the context (its chain is its callers), so later
// samples read only the frames below the innermost activation.
func (mt *Meter) exactSample(si experimental.StackIterator, weight uint64) {
	mt.stackSamples++
	g := mt.runningGlobals()
	block, slot, flags := uint32(g.block.Get()), uint32(g.slot.Get()), uint32(g.flags.Get())
	var (
		ctx    *callContext
		bucket string
	)
	switch {
	case flags&flagFresh != 0:
		mt.unplacedWeight += weight
		return
	case mt.ctxByBlock[block] != nil:
		ctx = mt.ctxByBlock[block]
	case block == mt.outside:
		bucket = jsprofile.BucketOutside
	case block == mt.native:
		bucket = jsprofile.BucketNative
	default:
		mt.unplacedWeight += weight
		return
	}
	if ctx == nil {
		wasm, _ := mt.walkWasm(si, false)
		if bucket == jsprofile.BucketOutside && mt.awaitingEntry {
			bucket = bucketBeforeJS
		}
		mt.file(nil, bucket, 0, wasm, append(mt.segsBuf[:0], [2]int{0, len(wasm)}), weight)
		return
	}
	if outer := mt.outerSegs[ctx]; outer != nil {
		if inner, ok := mt.walkWasm(si, true); ok {
			mt.fileInner(ctx, slot, outer, inner[1:], weight)
			return
		}
		mt.unplacedWeight += weight
		return
	}
	acts := mt.activationBlocks(uint32(g.sp.Get()), block)
	if acts == nil {
		mt.unplacedWeight += weight
		return
	}
	wasm, _ := mt.walkWasm(si, false)
	segs, aligned := mt.cutByChain(wasm, mt.activationStarts(wasm), acts, ctx)
	mt.segsBuf = segs
	if !aligned {
		mt.file(ctx, "", slot, wasm, segs, weight)
		return
	}
	outer := mt.outerOf(ctx, wasm, segs)
	last := segs[len(segs)-1]
	mt.fileInner(ctx, slot, outer, wasm[last[0]:last[1]], weight)
}

// contextStack runs just after the host made a new calling context's block
// (Options.WasmStacks), still in the lookup the new activation's first
// dispatch called: if newFunction asked for it, the Wasm stack and the
// shadow stack's activations give the context its outer segments. The
// new activation is the innermost, still running as the native bucket
// until the dispatch takes its block.
func (mt *Meter) contextStack(si experimental.StackIterator) {
	c := mt.stackFor
	mt.stackFor = nil
	if c == nil || mt.mod == nil || mt.outerSegs[c] != nil {
		return
	}
	g := mt.runningGlobals()
	acts := mt.activationBlocks(uint32(g.sp.Get()), uint32(g.block.Get()))
	if len(acts) == 0 {
		return
	}
	acts[len(acts)-1] = c.block // the new activation, in its context now
	if p := c.parent; p != nil && c.fn != nil && c.depth <= maxAlignedDepth && mt.outerSegs[p] != nil {
		// The caller's segments are known: the frames from the caller's
		// activation down are all that is new.
		if between, ok := mt.walkToCaller(si); ok {
			up := mt.outerSegs[p]
			outer := make([][]costs.WasmFrame, len(up)+1)
			copy(outer, up)
			outer[len(up)] = strip(between)
			mt.outerSegs[c] = outer
		}
		return
	}
	wasm, _ := mt.walkWasm(si, false)
	mt.contextSegments(c, wasm, acts)
}

// walkToCaller reads the Wasm stack from the innermost frame out to the
// caller's activation: the frames between the caller's interpreter frame
// and the new activation's, outermost first. ok is false when the two
// activations are not both the interpreter's own (a native the caller
// pushed itself sits between them), or the walk ends first.
func (mt *Meter) walkToCaller(si experimental.StackIterator) (between []costs.WasmFrame, ok bool) {
	mt.wasmBuf = mt.wasmBuf[:0]
	first, starts := true, 0
	for si.Next() {
		if first { // the trampoline itself
			first = false
			continue
		}
		frame := mt.frameAt(si)
		if mt.ours(frame) && frame.Index == mt.plan.OriginalDispatchFunc {
			if starts++; starts == 2 {
				break
			}
			mt.wasmBuf = mt.wasmBuf[:0] // below the new activation's start: not needed
			continue
		}
		if starts == 1 {
			mt.wasmBuf = append(mt.wasmBuf, frame)
		}
	}
	if starts < 2 {
		return nil, false
	}
	slices.Reverse(mt.wasmBuf)
	// (the caller's interpreter frame is just outside wasmBuf[0])
	for i, w := range mt.wasmBuf {
		if i > 0 && mt.plan.Natives != nil && mt.ours(w) && w.Index == mt.plan.Natives.Func &&
			(!mt.ours(mt.wasmBuf[i-1]) || mt.wasmBuf[i-1].Index != mt.plan.OriginalDispatchFunc) {
			return nil, false
		}
	}
	return mt.wasmBuf, true
}

// contextSegments gives context c its outer segments from a Wasm stack
// and the activations on it (c's the innermost), if they can be aligned:
// every context gets its frames above and between, however short-lived,
// not only those a sample falls in.
func (mt *Meter) contextSegments(c *callContext, wasm []costs.WasmFrame, acts []uint32) {
	segs, aligned := mt.cutByChain(wasm, mt.activationStarts(wasm), acts, c)
	mt.segsBuf = segs
	if aligned {
		mt.outerOf(c, wasm, segs)
	}
}

// outerOf keeps and returns c's outer segments, cut from wasm: the
// segments but the last. Those its parent has already, equal, are shared
// rather than copied, so that a chain of contexts holds each segment
// once.
func (mt *Meter) outerOf(c *callContext, wasm []costs.WasmFrame, segs [][2]int) [][]costs.WasmFrame {
	outer := make([][]costs.WasmFrame, len(segs)-1)
	var up [][]costs.WasmFrame
	if c.parent != nil {
		up = mt.outerSegs[c.parent]
	}
	for i, r := range segs[:len(segs)-1] {
		seg := wasm[r[0]:r[1]]
		if i < len(up) && sameFrames(up[i], seg) {
			outer[i] = up[i]
			continue
		}
		outer[i] = strip(seg)
	}
	mt.outerSegs[c] = outer
	return outer
}

// sameFrames says whether kept, a stripped segment, holds seg's frames.
func sameFrames(kept, seg []costs.WasmFrame) bool {
	i := 0
	for _, w := range seg {
		if w.Injected {
			continue
		}
		if i >= len(kept) || kept[i] != w {
			return false
		}
		i++
	}
	return i == len(kept)
}

// runningGlobals are the injected globals that say what runs, looked up
// once per run.
func (mt *Meter) runningGlobals() *runningState {
	g := &mt.stackGlobals
	if g.block == nil {
		g.block, g.slot, g.flags, g.sp = mt.mod.ExportedGlobal(exportBlock), mt.mod.ExportedGlobal(exportSlot), mt.mod.ExportedGlobal(exportFlags), mt.mod.ExportedGlobal(exportSP)
	}
	return g
}

// fileInner files a sample of an aligned context whose outer segments are
// known: its key is the slot and the innermost segment.
func (mt *Meter) fileInner(ctx *callContext, slot uint32, outer [][]costs.WasmFrame, inner []costs.WasmFrame, weight uint64) {
	k := binary.AppendUvarint(mt.splitKeyBuf[:0], uint64(ctx.block))
	k = append(k, 'a')
	k = binary.AppendUvarint(k, uint64(slot))
	k = appendFramesKey(k, inner)
	mt.splitKeyBuf = k
	if acc := mt.splits[string(k)]; acc != nil { // no allocation for the lookup
		acc.split.Weight += weight
		return
	}
	segs := append(slices.Clone(outer), strip(inner))
	mt.addSplit(string(k), ctx, costs.WasmSplit{Context: -1, Slot: slot, Segments: segs, Aligned: true, Weight: weight})
}

// file files a sample whose segments are ranges of wasm: a bucket's, or a
// context's whose stack could not be aligned with its chain.
func (mt *Meter) file(ctx *callContext, bucket string, slot uint32, wasm []costs.WasmFrame, segs [][2]int, weight uint64) {
	k := mt.splitKeyBuf[:0]
	if ctx != nil {
		k = binary.AppendUvarint(k, uint64(ctx.block))
	} else {
		k = append(k, bucket...)
	}
	k = append(k, 'u')
	k = binary.AppendUvarint(k, uint64(slot))
	for _, r := range segs {
		k = appendFramesKey(k, wasm[r[0]:r[1]])
	}
	mt.splitKeyBuf = k
	if acc := mt.splits[string(k)]; acc != nil {
		acc.split.Weight += weight
		return
	}
	copied := make([][]costs.WasmFrame, len(segs))
	for i, r := range segs {
		copied[i] = strip(wasm[r[0]:r[1]])
	}
	split := costs.WasmSplit{Context: -1, Bucket: bucket, Slot: slot, Segments: copied, Weight: weight}
	if bucket == bucketBeforeJS {
		split.Bucket, split.BeforeJS = jsprofile.BucketOutside, true
	}
	mt.addSplit(string(k), ctx, split)
}

func (mt *Meter) addSplit(key string, ctx *callContext, s costs.WasmSplit) {
	acc := &splitAcc{ctx: ctx, split: s}
	mt.splits[key] = acc
	mt.splitOrder = append(mt.splitOrder, acc)
}

// appendFramesKey appends a segment's frames, the rewrite's own left out,
// to a key.
func appendFramesKey(k []byte, ws []costs.WasmFrame) []byte {
	k = append(k, '|')
	for _, w := range ws {
		if w.Injected {
			continue
		}
		k = binary.AppendUvarint(k, uint64(w.Index))
		k = binary.AppendUvarint(k, w.Offset)
		k = binary.AppendUvarint(k, uint64(len(w.Foreign))) // a guest's names may hold any byte
		k = append(k, w.Foreign...)
	}
	return k
}

// activationBlocks reads the block of every interpreter activation on the
// shadow stack, outermost first: frame j holds the state of activation j's
// caller, so activation j's block is in frame j+1 and the innermost one's
// is running. nil when the stack cannot be read whole (a stack pointer not
// on a frame, or past a full stack): the sample is then not placed.
func (mt *Meter) activationBlocks(sp, running uint32) []uint32 {
	mt.blocksBuf = mt.blocksBuf[:0]
	if sp < mt.stackBase || (sp-mt.stackBase)%frameSize != 0 {
		return nil
	}
	depth := (sp - mt.stackBase) / frameSize
	if depth > mt.stackCap {
		return nil
	}
	if depth == 0 {
		return mt.blocksBuf[:0:0]
	}
	frames, ok := mt.mod.Memory().Read(mt.stackBase, depth*frameSize)
	if !ok {
		return nil
	}
	for j := uint32(1); j < depth; j++ {
		mt.blocksBuf = append(mt.blocksBuf, binary.LittleEndian.Uint32(frames[j*frameSize+frameBlock:]))
	}
	mt.blocksBuf = append(mt.blocksBuf, running)
	return mt.blocksBuf
}

// activationStarts are the positions, in the Wasm stack, of the frames
// where interpreter activations began: the interpreter's own frames, and
// js_call_c_function's where the interpreter did not call it (it then
// pushes an activation of its own).
func (mt *Meter) activationStarts(wasm []costs.WasmFrame) []int {
	mt.startsBuf = mt.startsBuf[:0]
	d := mt.plan.OriginalDispatchFunc
	ours := mt.ours
	for i, w := range wasm {
		if !ours(w) {
			continue
		}
		switch {
		case w.Index == d:
			mt.startsBuf = append(mt.startsBuf, i)
		case mt.plan.Natives != nil && w.Index == mt.plan.Natives.Func:
			if i == 0 || !ours(wasm[i-1]) || wasm[i-1].Index != d {
				mt.startsBuf = append(mt.startsBuf, i)
			}
		}
	}
	return mt.startsBuf
}

// cutByChain cuts the Wasm stack into the segments of ctx's chain (see
// WasmSplit.Segments), as ranges of wasm. The activations (their blocks,
// outermost first) match the stack's activation starts one for one, and
// each activation's context is on the chain — recursion folds inner
// activations into the chain's outer context — or the stack is not
// aligned and only the outermost and innermost segments are kept (the
// others empty).
func (mt *Meter) cutByChain(wasm []costs.WasmFrame, starts []int, acts []uint32, ctx *callContext) ([][2]int, bool) {
	chain := mt.chainBuf[:0]
	for c := ctx; c != nil; c = c.parent {
		chain = append(chain, c)
	}
	slices.Reverse(chain)
	mt.chainBuf = chain
	segs := mt.segsBuf[:0]
	for range len(chain) + 1 {
		segs = append(segs, [2]int{})
	}
	if len(starts) == 0 {
		segs[0] = [2]int{0, len(wasm)}
		return segs, false
	}
	// The frames above the outermost activation's start, and below the
	// innermost's (its own frame stands for the JS frame).
	segs[0] = [2]int{0, starts[0]}
	segs[len(chain)] = [2]int{starts[len(starts)-1] + 1, len(wasm)}
	unaligned := func() ([][2]int, bool) {
		clear(segs[1:len(chain)])
		return segs, false
	}
	if len(starts) != len(acts) {
		return unaligned()
	}
	// last[i]: the last activation in the chain's i-th context; each
	// chain position's segment is the one below it, down to the next
	// activation's start.
	if len(chain) > maxAlignedDepth {
		return unaligned()
	}
	last := mt.lastBuf[:0]
	for range chain {
		last = append(last, -1)
	}
	mt.lastBuf = last
	prev := 0
	for j, b := range acts {
		c := mt.ctxByBlock[b]
		if c == nil || c.depth >= len(chain) || chain[c.depth] != c || c.depth < prev {
			return unaligned()
		}
		last[c.depth], prev = j, c.depth
	}
	if last[len(chain)-1] != len(acts)-1 {
		// the innermost activation is not ctx's
		return unaligned()
	}
	for i := 0; i < len(chain)-1; i++ {
		j := last[i]
		if j < 0 {
			// A context on the chain with no activation on the stack.
			return unaligned()
		}
		segs[i+1] = [2]int{starts[j] + 1, starts[j+1]}
	}
	return segs, true
}

// strip leaves the rewrite's own frames out; it allocates only for the
// caller to keep the result.
func strip(ws []costs.WasmFrame) []costs.WasmFrame {
	out := ws[:0:0]
	for _, w := range ws {
		if !w.Injected {
			out = append(out, w)
		}
	}
	return out
}

// walkWasm reads the Wasm stack at the sample trampoline, outermost first,
// into mt.wasmBuf, without the trampoline itself. With inner, it stops at
// the innermost activation's start (activationStart): what a context's
// known outer segments leave to read, a few frames where the whole stack
// of a deep recursion is hundreds; ok is false if it found none.
func (mt *Meter) walkWasm(si experimental.StackIterator, inner bool) (frames []costs.WasmFrame, ok bool) {
	mt.wasmBuf = mt.wasmBuf[:0]
	first := true
	cfunc := -1 // the position of a js_call_c_function frame just read
	for si.Next() {
		if first { // the trampoline itself
			first = false
			continue
		}
		frame := mt.frameAt(si)
		if inner && cfunc >= 0 && !(mt.ours(frame) && frame.Index == mt.plan.OriginalDispatchFunc) {
			// js_call_c_function not called by the interpreter pushed an
			// activation of its own (activationStarts): it starts it.
			mt.wasmBuf = mt.wasmBuf[:cfunc+1]
			slices.Reverse(mt.wasmBuf)
			return mt.wasmBuf, true
		}
		mt.wasmBuf = append(mt.wasmBuf, frame)
		cfunc = -1
		if !inner || !mt.ours(frame) {
			continue
		}
		switch {
		case frame.Index == mt.plan.OriginalDispatchFunc:
			// js_call_c_function called by the interpreter is part of the
			// interpreter's activation; the interpreter's frame starts it.
			slices.Reverse(mt.wasmBuf)
			return mt.wasmBuf, true
		case mt.plan.Natives != nil && frame.Index == mt.plan.Natives.Func:
			cfunc = len(mt.wasmBuf) - 1
		}
	}
	if inner && cfunc >= 0 { // js_call_c_function at the root
		slices.Reverse(mt.wasmBuf)
		return mt.wasmBuf, true
	}
	slices.Reverse(mt.wasmBuf)
	return mt.wasmBuf, !inner
}

// frameAt is the frame the iterator is at. The code does not move during a
// run, so a return address names its frame for good: resolving each once
// halves the walk's cost.
func (mt *Meter) frameAt(si experimental.StackIterator) costs.WasmFrame {
	pc := si.ProgramCounter()
	if frame, ok := mt.framesByPC[pc]; ok {
		return frame
	}
	var frame costs.WasmFrame
	fn := si.Function()
	def := fn.Definition()
	idx := def.Index()
	if def.ModuleName() != mt.plan.ModuleName {
		// Another module's frame (the instrumented module has a name of
		// its own, Plan.ModuleName): its index means nothing in ours.
		name := def.DebugName()
		if exports := def.ExportNames(); len(exports) > 0 {
			name = exports[0]
		}
		frame = costs.WasmFrame{Index: idx, Foreign: name}
	} else {
		orig, ours := mt.plan.OriginalIndex(idx)
		if !ours {
			orig = idx
		}
		frame = costs.WasmFrame{Index: orig, Injected: !ours, Offset: fn.SourceOffsetForPC(pc)}
	}
	mt.framesByPC[pc] = frame
	return frame
}

// ours says whether a frame is of the profiled module's own code.
func (mt *Meter) ours(w costs.WasmFrame) bool { return !w.Injected && w.Foreign == "" }

// outerSegments are the outer segments of the contexts whose stacks were
// aligned, by the contexts' indices in the results.
func (mt *Meter) outerSegments(ctxIndex map[*callContext]int) map[int][][]costs.WasmFrame {
	out := make(map[int][][]costs.WasmFrame, len(mt.outerSegs))
	for c, segs := range mt.outerSegs {
		if i, ok := ctxIndex[c]; ok {
			out[i] = segs
		}
	}
	return out
}

// wasmSplits is what the samples filed, by the contexts' indices in the
// results.
func (mt *Meter) wasmSplits(ctxIndex map[*callContext]int) []costs.WasmSplit {
	out := make([]costs.WasmSplit, 0, len(mt.splitOrder))
	for _, acc := range mt.splitOrder {
		s := acc.split
		if acc.ctx != nil {
			i, ok := ctxIndex[acc.ctx]
			if !ok {
				continue
			}
			s.Context = i
		}
		out = append(out, s)
	}
	return out
}
