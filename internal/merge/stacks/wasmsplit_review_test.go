package stacks

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

func TestApportionAddsUp(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range 2000 {
		n := 1 + rng.Intn(40)
		weights := make([]uint64, n)
		var wsum uint64
		for j := range weights {
			switch rng.Intn(4) {
			case 0: // zero
			case 1:
				weights[j] = uint64(rng.Intn(5))
			default:
				weights[j] = uint64(rng.Int63n(1 << 40))
			}
			wsum += weights[j]
		}
		total := uint64(rng.Int63())
		if i%3 == 0 {
			total = uint64(rng.Intn(10))
		}
		parts := apportion(total, weights)
		require.Len(t, parts, n)
		var sum uint64
		for j, p := range parts {
			sum += p
			if wsum > 0 {
				// within one unit of the exact share
				exact := float64(total) * float64(weights[j]) / float64(wsum)
				assert.InDelta(t, exact, float64(p), 1+exact*1e-9, "part %d", j)
			}
		}
		require.Equal(t, total, sum, "total %d weights %v", total, weights)
	}
}

// valueAt sums the instructions of the samples whose stack holds a frame
// named name.
func valueAt(p *profile.Profile, name string) int64 {
	var v int64
	for _, s := range p.Sample {
		for _, l := range s.Location {
			if l.Line[0].Function.Name == name {
				v += s.Value[jsprofile.ValueInstructions]
				break
			}
		}
	}
	return v
}

// nativeChainResults: A (JS) calls native N (JSON.parse-like, in place),
// which calls back C (JS); the outside bucket before and after the first
// activation; the native bucket.
func nativeChainResults(splits []costs.WasmSplit, outer map[int][][]costs.WasmFrame) *costs.Results {
	return &costs.Results{
		TotalInstructions: 50 + 30 + 40 + 7 + 13 + 11,
		Functions: []costs.FunctionCost{
			{Address: 0x100, Length: 4, Code: []byte{1, 2, 3, 4}},
			{Address: 0x200, Length: 2, Code: []byte{1, 2}},
		},
		Natives: []costs.NativeCost{{TableIndex: 77}},
		Contexts: []costs.ContextCost{
			{Function: 0, Native: -1, Parent: -1, Calls: 1, PCs: []costs.PCCost{{PC: 3, Opcode: 4, Executions: 1, Instructions: 50}}},
			{Function: -1, Native: 0, Parent: 0, CallSite: 3, HasCallSite: true, Calls: 1, NativeInstructions: 30},
			{Function: 1, Native: -1, Parent: 1, Calls: 2, PCs: []costs.PCCost{{PC: 1, Opcode: 2, Executions: 2, Instructions: 40}}},
		},
		Buckets:           []costs.BucketCost{{Name: jsprofile.BucketOutside, Instructions: 7 + 13}, {Name: jsprofile.BucketNative, Instructions: 11}},
		OutsideBeforeJS:   7,
		WasmSplits:        splits,
		OuterWasmSegments: outer,
	}
}

var reviewNames = WasmNames{Extra: map[uint32]string{
	1: "_start", 2: "eval_glue", 3: "call_glue", 4: "native_body", 5: "cb_glue", 6: "helper", 7: "JS_RunGC", 8: "parser", 9: "loop",
}}

func TestLayeredNativeChain(t *testing.T) {
	w := func(i uint32) costs.WasmFrame { return costs.WasmFrame{Index: i} }
	res := nativeChainResults([]costs.WasmSplit{
		// C's pc 1: above A, between A and N, between N and C, below C's op
		{Context: 2, Slot: 1, Segments: [][]costs.WasmFrame{{w(1), w(2)}, {w(3)}, {w(5)}, {w(6)}}, Aligned: true, Weight: 3},
		// same slot, stack not aligned: middle segments empty
		{Context: 2, Slot: 1, Segments: [][]costs.WasmFrame{{w(1)}, nil, nil, {w(7)}}, Weight: 1},
		// N itself
		{Context: 1, Segments: [][]costs.WasmFrame{{w(1), w(2)}, {w(3)}, {w(4)}}, Aligned: true, Weight: 1},
		// buckets
		{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(1), w(8)}}, BeforeJS: true, Weight: 2},
		{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(1), w(9)}}, Weight: 0},
		{Context: -1, Bucket: jsprofile.BucketNative, Segments: [][]costs.WasmFrame{{w(1), w(3)}}, Weight: 5},
	}, map[int][][]costs.WasmFrame{1: {{w(1), w(2)}, {w(3)}}, 2: {{w(1), w(2)}, {w(3)}, {w(5)}}})
	p, err := ExactProfile(res, jsprofile.Meta{}, OpcodeNamer{"", "one", "two", "three", "call"}, AddressIdentity{}, reviewNames)
	require.NoError(t, err)
	got := stacksOf(t, p)
	a, c, n := "bytecode@0x100", "bytecode@0x200", "native@table[77]"
	js := "phase: JS program;"
	want := map[string]int64{
		js + "_start;eval_glue;" + a + ";op:call;call_glue;" + n + ";cb_glue;" + c + ";op:two;helper": 30,
		"phase: garbage collection;_start;" + a + ";op:call;" + n + ";" + c + ";op:two;JS_RunGC":      10,
		js + "_start;eval_glue;" + a + ";op:call;call_glue;" + n + ";native_body":                     30,
		js + a + ";op:call": 50,
		"phase: engine start-up;(outside JS);_start;parser":            7,
		"phase: engine, between and after JS;(outside JS);_start;loop": 13,
		js + jsprofile.BucketNative + ";_start;call_glue":              11,
	}
	for k, v := range want {
		assert.Equal(t, v, got[k], k)
	}
	var sum int64
	for k, v := range got {
		sum += v
		if _, ok := want[k]; !ok && v != 0 {
			t.Errorf("unexpected stack %q: %d", k, v)
		}
	}
	assert.Equal(t, int64(res.TotalInstructions), sum)
}

// TestReviewBucketFrameExact: docs/profile-format.md says every value at a
// bucket frame is exact, "the same as with --wasm-frames=false"; the
// outside bucket's frame is left out of the stacks that have Wasm frames
// (layered: k.bucket == BucketOutside), so its value is only what no
// sample fell in.
func TestBucketFrameExact(t *testing.T) {
	w := func(i uint32) costs.WasmFrame { return costs.WasmFrame{Index: i} }
	with := nativeChainResults([]costs.WasmSplit{
		{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(1), w(8)}}, BeforeJS: true, Weight: 2},
	}, nil)
	without := nativeChainResults(nil, nil)
	pw, err := ExactProfile(with, jsprofile.Meta{}, OpcodeNamer{}, AddressIdentity{}, reviewNames)
	require.NoError(t, err)
	po, err := ExactProfile(without, jsprofile.Meta{}, OpcodeNamer{}, AddressIdentity{}, reviewNames)
	require.NoError(t, err)
	assert.Equal(t, int64(20), valueAt(po, jsprofile.BucketOutside))
	assert.Equal(t, valueAt(po, jsprofile.BucketOutside), valueAt(pw, jsprofile.BucketOutside),
		"the (outside JS) frame's value with Wasm frames: %v", stacksOf(t, pw))
}

// TestReviewSplitsSumToTotal: whatever the splits (zero weights, a slot
// with no instructions, unaligned, a split for a context whose own outer
// segments are unknown), the profile adds up to the total, and every JS,
// opcode and native frame keeps its value without Wasm frames.
func TestSplitsSumToTotal(t *testing.T) {
	w := func(i uint32) costs.WasmFrame { return costs.WasmFrame{Index: i} }
	splits := []costs.WasmSplit{
		{Context: 0, Slot: 3, Segments: [][]costs.WasmFrame{{w(1)}, {w(6)}}, Aligned: true, Weight: 0},
		{Context: 0, Slot: 3, Segments: [][]costs.WasmFrame{{w(1)}, {w(7)}}, Aligned: true, Weight: 0},
		{Context: 0, Slot: 2, Segments: [][]costs.WasmFrame{{w(1)}, {w(7)}}, Aligned: true, Weight: 9}, // a slot with no count
		{Context: 2, Slot: 1, Segments: [][]costs.WasmFrame{{w(1)}, nil, nil, {w(6)}}, Weight: 1 << 50},
		{Context: 2, Slot: 1, Segments: [][]costs.WasmFrame{{w(2)}, {w(3)}, {w(5)}, {w(6)}}, Aligned: true, Weight: 1},
		{Context: -1, Bucket: jsprofile.BucketNative, Segments: [][]costs.WasmFrame{nil}, Weight: 1},
	}
	pw, err := ExactProfile(nativeChainResults(splits, nil), jsprofile.Meta{}, OpcodeNamer{}, AddressIdentity{}, reviewNames)
	require.NoError(t, err)
	po, err := ExactProfile(nativeChainResults(nil, nil), jsprofile.Meta{}, OpcodeNamer{}, AddressIdentity{}, reviewNames)
	require.NoError(t, err)
	var sum int64
	for _, v := range stacksOf(t, pw) {
		sum += v
	}
	assert.Equal(t, int64(nativeChainResults(nil, nil).TotalInstructions), sum)
	for _, name := range []string{"bytecode@0x100", "bytecode@0x200", "native@table[77]", jsprofile.BucketNative} {
		assert.Equal(t, valueAt(po, name), valueAt(pw, name), name)
	}
	for k := range stacksOf(t, pw) {
		assert.False(t, strings.Contains(k, ";;"), k)
	}
}
