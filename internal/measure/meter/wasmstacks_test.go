package meter

import (
	"fmt"
	"testing"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Indices used by the review tests: the interpreter (dispatch function)
// and js_call_c_function, in the original numbering.
const (
	revDispatch = 10
	revCFunc    = 20
)

func reviewMeter() *Meter {
	return &Meter{
		plan:       &Plan{OriginalDispatchFunc: revDispatch, Natives: &NativeCalls{Func: revCFunc}},
		ctxByBlock: map[uint32]*callContext{},
		splits:     map[string]*splitAcc{},
		outerSegs:  map[*callContext][][]costs.WasmFrame{},
		framesByPC: map[experimental.ProgramCounter]costs.WasmFrame{},
	}
}

// ctxChain makes contexts with the given blocks, each the parent of the
// next; fn/nat marks JS or native.
func (mt *Meter) reviewCtx(block uint32, parent *callContext, isNative bool) *callContext {
	c := &callContext{block: block, parent: parent}
	if parent != nil {
		c.depth = parent.depth + 1
	}
	if isNative {
		c.nat = &native{block: block}
	} else {
		c.fn = &function{block: block}
	}
	mt.ctxByBlock[block] = c
	return c
}

func wf(i uint32) costs.WasmFrame { return costs.WasmFrame{Index: i} }

func TestCutByChain(t *testing.T) {
	mt := reviewMeter()
	a := mt.reviewCtx(0x1000, nil, false)
	b := mt.reviewCtx(0x2000, a, false)
	n := mt.reviewCtx(0x3000, b, true)  // a native called by b
	c := mt.reviewCtx(0x4000, n, false) // JS called back by the native
	tests := []struct {
		name    string
		wasm    []costs.WasmFrame
		acts    []uint32
		ctx     *callContext
		want    [][2]int
		aligned bool
	}{
		{
			name: "one activation",
			wasm: []costs.WasmFrame{wf(1), wf(2), wf(revDispatch), wf(3)},
			acts: []uint32{a.block}, ctx: a,
			want: [][2]int{{0, 2}, {3, 4}}, aligned: true,
		},
		{
			name: "a → b, between and below",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch), wf(6), wf(7)},
			acts: []uint32{a.block, b.block}, ctx: b,
			want: [][2]int{{0, 1}, {2, 3}, {4, 6}}, aligned: true,
		},
		{
			name: "recursion folded: a → b → b → b",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch), wf(8), wf(revDispatch), wf(8), wf(revDispatch), wf(9)},
			acts: []uint32{a.block, b.block, b.block, b.block}, ctx: b,
			want: [][2]int{{0, 1}, {2, 3}, {8, 9}}, aligned: true,
		},
		{
			name: "native in place (interpreter → js_call_c_function) and JS called back",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch), wf(6), wf(revDispatch), wf(revCFunc), wf(11), wf(revDispatch), wf(12)},
			acts: []uint32{a.block, b.block, n.block, c.block}, ctx: c,
			want: [][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 8}, {9, 10}}, aligned: true,
		},
		{
			name: "native pushed by js_call_c_function (a constructor)",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch), wf(6), wf(30), wf(revCFunc), wf(11)},
			acts: []uint32{a.block, b.block, n.block}, ctx: n,
			want: [][2]int{{0, 1}, {2, 3}, {4, 6}, {7, 8}}, aligned: true,
		},
		{
			name: "the innermost start is the last frame",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch)},
			acts: []uint32{a.block}, ctx: a,
			want: [][2]int{{0, 1}, {2, 2}}, aligned: true,
		},
		{
			name: "empty Wasm stack",
			wasm: nil,
			acts: []uint32{a.block}, ctx: a,
			want: [][2]int{{0, 0}, {0, 0}}, aligned: false,
		},
		{
			name: "more activations than starts",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(2)},
			acts: []uint32{a.block, b.block}, ctx: b,
			want: [][2]int{{0, 1}, {0, 0}, {2, 3}}, aligned: false,
		},
		{
			name: "no activations at all",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(2)},
			acts: nil, ctx: a,
			want: [][2]int{{0, 1}, {2, 3}}, aligned: false,
		},
		{
			name: "mutual recursion a → b → a (a folded): not aligned",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch), wf(6), wf(revDispatch), wf(7)},
			acts: []uint32{a.block, b.block, a.block}, ctx: a,
			want: [][2]int{{0, 1}, {6, 7}}, aligned: false,
		},
		{
			name: "unknown block",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch)},
			acts: []uint32{a.block, 0xdead}, ctx: b,
			want: [][2]int{{0, 1}, {0, 0}, {4, 4}}, aligned: false,
		},
		// Not reachable from exactSample/contextSegments today (the last act is
		// always ctx's block), but cutByChain indexes starts[j+1] without
		// checking that the innermost activation is ctx's.
		{
			name: "innermost activation is not ctx's: must not panic",
			wasm: []costs.WasmFrame{wf(1), wf(revDispatch), wf(2)},
			acts: []uint32{a.block}, ctx: b,
			want: [][2]int{{0, 1}, {0, 0}, {2, 3}}, aligned: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var segs [][2]int
			var aligned bool
			require.NotPanics(t, func() {
				segs, aligned = mt.cutByChain(tt.wasm, mt.activationStarts(tt.wasm), tt.acts, tt.ctx)
			})
			assert.Equal(t, tt.want, segs)
			assert.Equal(t, tt.aligned, aligned)
		})
	}
}

// fakeStack is a StackIterator over program counters, innermost first,
// the first being the trampoline's; frameAt answers from framesByPC.
type fakeStack struct {
	pcs []experimental.ProgramCounter
	i   int
}

func (s *fakeStack) Next() bool {
	s.i++
	return s.i <= len(s.pcs)
}
func (s *fakeStack) Function() experimental.InternalFunction { panic("not cached") }
func (s *fakeStack) ProgramCounter() experimental.ProgramCounter {
	return s.pcs[s.i-1]
}

// stackOf registers frames (outermost first) under made-up pcs and returns
// an iterator over them, innermost first, with a trampoline frame on top.
func (mt *Meter) stackOf(frames []costs.WasmFrame) *fakeStack {
	s := &fakeStack{pcs: []experimental.ProgramCounter{1}}
	mt.framesByPC[1] = costs.WasmFrame{Index: 999, Injected: true}
	for i := len(frames) - 1; i >= 0; i-- {
		pc := experimental.ProgramCounter(1000 + i)
		mt.framesByPC[pc] = frames[i]
		s.pcs = append(s.pcs, pc)
	}
	return s
}

type fakeGlobal uint64

func (g fakeGlobal) String() string    { return fmt.Sprint(uint64(g)) }
func (fakeGlobal) Type() api.ValueType { return api.ValueTypeI32 }
func (g fakeGlobal) Get() uint64       { return uint64(g) }
func (mt *Meter) setRunning(block, slot uint32) {
	mt.stackGlobals.block, mt.stackGlobals.slot, mt.stackGlobals.flags, mt.stackGlobals.sp = fakeGlobal(block), fakeGlobal(slot), fakeGlobal(0), fakeGlobal(0)
}

// TestReviewFastPathPushedNative: a native that js_call_c_function pushed
// (a constructor called by JS_CallConstructorInternal from an opcode's
// handler) starts at js_call_c_function's frame, but walkWasm(inner) only
// stops at the interpreter's: once the native context's outer segments
// are known, its samples' innermost segment repeats the frames between its
// caller and it (already the outer segments' last) and js_call_c_function.
// The first sample (cut by the chain) and later ones of the same stack
// then disagree.
func TestFastPathPushedNative(t *testing.T) {
	mt := reviewMeter()
	a := mt.reviewCtx(0x1000, nil, false)
	n := mt.reviewCtx(0x3000, a, true)
	const handler, ctorInternal, nativeCode = 5, 30, 11
	wasm := []costs.WasmFrame{wf(1), wf(revDispatch), wf(handler), wf(ctorInternal), wf(revCFunc), wf(nativeCode)}

	// What exactSample's slow path (or contextSegments) does for the first
	// stack: cut by the chain, keep the outer segments.
	segs, aligned := mt.cutByChain(wasm, mt.activationStarts(wasm), []uint32{a.block, n.block}, n)
	require.True(t, aligned)
	require.Equal(t, [][2]int{{0, 1}, {2, 4}, {5, 6}}, segs)
	outer := [][]costs.WasmFrame{strip(wasm[0:1]), strip(wasm[2:4])}
	mt.outerSegs[n] = outer

	// A later sample on the very same stack takes the fast path.
	mt.setRunning(n.block, 0)
	mt.exactSample(mt.stackOf(wasm), 7)
	require.Len(t, mt.splitOrder, 1)
	got := mt.splitOrder[0].split.Segments
	assert.Equal(t, []costs.WasmFrame{wf(nativeCode)}, got[len(got)-1],
		"the innermost segment of a pushed native is what ran below js_call_c_function, as cutByChain makes it")
}

// TestReviewFastPathInPlaceNative: the in-place native (interpreter →
// js_call_c_function) agrees between the two paths.
func TestFastPathInPlaceNative(t *testing.T) {
	mt := reviewMeter()
	a := mt.reviewCtx(0x1000, nil, false)
	n := mt.reviewCtx(0x3000, a, true)
	wasm := []costs.WasmFrame{wf(1), wf(revDispatch), wf(5), wf(revDispatch), wf(revCFunc), wf(11)}
	segs, aligned := mt.cutByChain(wasm, mt.activationStarts(wasm), []uint32{a.block, n.block}, n)
	require.True(t, aligned)
	mt.outerSegs[n] = [][]costs.WasmFrame{strip(wasm[segs[0][0]:segs[0][1]]), strip(wasm[segs[1][0]:segs[1][1]])}
	mt.setRunning(n.block, 0)
	mt.exactSample(mt.stackOf(wasm), 7)
	require.Len(t, mt.splitOrder, 1)
	got := mt.splitOrder[0].split.Segments
	last := segs[len(segs)-1]
	assert.Equal(t, wasm[last[0]:last[1]], got[len(got)-1])
}

// TestDeepChainStaysCheap: past maxAlignedDepth a chain is not aligned
// (its Wasm frames above and below only), at once; up to it, the cut is
// linear in the depth.
func TestDeepChainStaysCheap(t *testing.T) {
	chain := func(depth int) (*Meter, *callContext, []uint32, []costs.WasmFrame) {
		mt := reviewMeter()
		var c *callContext
		acts := make([]uint32, 0, depth)
		wasm := make([]costs.WasmFrame, 0, 2*depth)
		for i := range depth {
			c = mt.reviewCtx(uint32(0x10000+i*64), c, false)
			acts = append(acts, c.block)
			wasm = append(wasm, wf(revDispatch), wf(5))
		}
		return mt, c, acts, wasm
	}
	for _, tt := range []struct {
		depth   int
		aligned bool
	}{{maxAlignedDepth, true}, {maxAlignedDepth + 1, false}, {4096, false}} {
		mt, c, acts, wasm := chain(tt.depth)
		starts := append([]int(nil), mt.activationStarts(wasm)...)
		segs, aligned := mt.cutByChain(wasm, starts, acts, c)
		assert.Equal(t, tt.aligned, aligned, "depth %d", tt.depth)
		require.Len(t, segs, tt.depth+1)
		assert.Equal(t, [2]int{0, 0}, segs[0], "nothing above the outermost activation")
		assert.Equal(t, [2]int{len(wasm) - 1, len(wasm)}, segs[tt.depth], "the innermost handler frame")
	}
}

// TestOuterSegmentsShared: a chain of contexts, each made below the last,
// shares its ancestors' segments rather than copying them: the frames kept
// grow with the depth, not its square.
func TestOuterSegmentsShared(t *testing.T) {
	kept := func(depth int) int {
		mt := reviewMeter()
		var c *callContext
		var wasm []costs.WasmFrame
		var acts []uint32
		for i := range depth {
			// what contextStack keeps as the new context's lookup asks the
			// host: the stack down to the new activation, which runs as the
			// native bucket until its block is known
			wasm = append(wasm, wf(revDispatch), wf(5), wf(6), wf(7))
			acts = append(acts, 0)
			c = mt.reviewCtx(uint32(0x10000+i*64), c, false)
			acts[i] = c.block
			mt.contextSegments(c, wasm, append([]uint32(nil), acts...))
			require.NotNil(t, mt.outerSegs[c], "depth %d", i)
			acts[i] = c.block
		}
		distinct := map[*costs.WasmFrame]int{}
		for _, segs := range mt.outerSegs {
			for _, s := range segs {
				if len(s) > 0 {
					distinct[&s[0]] = len(s)
				}
			}
		}
		n := 0
		for _, l := range distinct {
			n += l
		}
		return n
	}
	small, large := kept(32), kept(128)
	assert.InEpsilon(t, 4*small, large, 0.05, "x4 depth, about x4 frames kept (%d, %d)", small, large)
}
