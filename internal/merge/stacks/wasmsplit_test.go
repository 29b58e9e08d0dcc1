package stacks

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

func TestApportion(t *testing.T) {
	tests := []struct {
		name    string
		total   uint64
		weights []uint64
		want    []uint64
	}{
		{"even", 90, []uint64{1, 1, 1}, []uint64{30, 30, 30}},
		{"remainder to the earliest of equal remainders", 10, []uint64{1, 1, 1}, []uint64{4, 3, 3}},
		{"remainder to the largest remainder", 10, []uint64{1, 2, 4}, []uint64{1, 3, 6}},
		{"proportional", 100, []uint64{3, 1}, []uint64{75, 25}},
		{"zero weights: all to the first", 7, []uint64{0, 0}, []uint64{7, 0}},
		{"one part", 12345, []uint64{99}, []uint64{12345}},
		{"no overflow near 2^64", 1 << 62, []uint64{1 << 62, 1 << 62, 1 << 61}, []uint64{1844674407370955162, 1844674407370955161, 922337203685477581}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := apportion(tt.total, tt.weights)
			var sum uint64
			for _, g := range got {
				sum += g
			}
			assert.Equal(t, tt.total, sum, "the parts add up")
			assert.Equal(t, tt.want, got)
		})
	}
}

// stacksOf is each sample's stack root first, as "name" per frame, and its
// instructions.
func stacksOf(t *testing.T, p *profile.Profile) map[string]int64 {
	t.Helper()
	require.NoError(t, p.CheckValid())
	_, err := jsprofile.Read(p) // the builder no longer reads back what it built
	require.NoError(t, err)
	out := map[string]int64{}
	for _, s := range p.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			names = append(names, s.Location[i].Line[0].Function.Name)
		}
		out[strings.Join(names, ";")] += s.Value[jsprofile.ValueInstructions]
	}
	return out
}

// TestExactProfileLaysWasmFramesAround: a JS function B called from A,
// its pc 0 sampled in two Wasm stacks (weights 3 and 1) and its pc 1 in
// none; the outside bucket in one. Each slot's exact count is split 3:1
// over the first, goes whole onto the context's outer segments for the
// second, and the bucket's stack replaces its frame.
func TestExactProfileLaysWasmFramesAround(t *testing.T) {
	w := func(i uint32) costs.WasmFrame { return costs.WasmFrame{Index: i} }
	res := &costs.Results{
		TotalInstructions: 100 + 20 + 8 + 10,
		Functions: []costs.FunctionCost{
			{Address: 0x100, Length: 4, Code: []byte{1, 2, 3, 4}},
			{Address: 0x200, Length: 2, Code: []byte{1, 2}},
		},
		Contexts: []costs.ContextCost{
			{Function: 0, Native: -1, Parent: -1, Calls: 1, PCs: []costs.PCCost{{PC: 2, Opcode: 3, Executions: 1, Instructions: 8}}},
			{Function: 1, Native: -1, Parent: 0, CallSite: 2, HasCallSite: true, Calls: 1, PCs: []costs.PCCost{
				{PC: 0, Opcode: 1, Executions: 5, Instructions: 100},
				{PC: 1, Opcode: 2, Executions: 2, Instructions: 20},
			}},
		},
		Buckets: []costs.BucketCost{{Name: jsprofile.BucketOutside, Instructions: 10}, {Name: jsprofile.BucketNative}},
		WasmSplits: []costs.WasmSplit{
			{Context: 1, Slot: 0, Segments: [][]costs.WasmFrame{{w(0), w(1)}, {w(5)}, {w(7)}}, Aligned: true, Weight: 3},
			{Context: 1, Slot: 0, Segments: [][]costs.WasmFrame{{w(0), w(1)}, {w(5)}, {w(8), w(9)}}, Aligned: true, Weight: 1},
			{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(0), {Foreign: "_start"}}}, Weight: 4},
		},
		OuterWasmSegments: map[int][][]costs.WasmFrame{1: {{w(0), w(1)}, {w(5)}}},
		WasmStackSamples:  5,
	}
	names := WasmNames{Extra: map[uint32]string{0: "main", 1: "eval", 5: "call glue", 7: "helper", 8: "other", 9: "deeper"}}
	p, err := ExactProfile(res, jsprofile.Meta{}, OpcodeNamer{"", "one", "two", "call"}, AddressIdentity{}, names)
	require.NoError(t, err)
	got := stacksOf(t, p)
	var withInstr []string
	for k, v := range got {
		if v != 0 {
			withInstr = append(withInstr, k)
		}
	}
	sort.Strings(withInstr)
	a, b := "bytecode@0x100", "bytecode@0x200"
	js, engine := "phase: JS program;", "phase: engine, between and after JS;"
	want := map[string]int64{
		// B's pc 0: 100 split 3:1, the segments around A's call and B's opcode
		js + "main;eval;" + a + ";op:call;call glue;" + b + ";op:one;helper":       75,
		js + "main;eval;" + a + ";op:call;call glue;" + b + ";op:one;other;deeper": 25,
		// B's pc 1: no sample, the context's outer segments
		js + "main;eval;" + a + ";op:call;call glue;" + b + ";op:two": 20,
		// A's pc 2: no sample and no outer segments of its own or an ancestor's
		js + a + ";op:call":                 8,
		engine + "(outside JS);main;_start": 10,
	}
	for k, v := range want {
		assert.Equal(t, v, got[k], k)
	}
	assert.Len(t, withInstr, len(want), "%v", withInstr)
	var sum int64
	for _, v := range got {
		sum += v
	}
	assert.Equal(t, int64(res.TotalInstructions), sum)
	// Executions stay on the JS stack alone.
	for _, s := range p.Sample {
		if s.Value[jsprofile.ValueExecutions] == 5 {
			assert.Len(t, s.Location, 5, "B's pc 0 executions: its phase, A, op:call, B, op:one")
		}
	}
	assert.Contains(t, p.Comments, "jsprof.wasm_frames.apportioned_from_stacks=5")
}

// TestExactProfilePhases: the outside bucket is start-up until the first
// activation and the engine's after it, each part on its own samples; an
// input native and the JS it calls back are input decoding; a stack with
// the cycle collector on it is garbage collection; the phases add up to
// the total.
func TestExactProfilePhases(t *testing.T) {
	w := func(i uint32) costs.WasmFrame { return costs.WasmFrame{Index: i} }
	res := &costs.Results{
		TotalInstructions: 50 + 30 + 40 + 12 + 6,
		Functions: []costs.FunctionCost{
			{Address: 0x100, Length: 4, Code: []byte{1, 2, 3, 4}},
			{Address: 0x200, Length: 2, Code: []byte{1, 2}},
		},
		Natives: []costs.NativeCost{{TableIndex: 7}},
		Contexts: []costs.ContextCost{
			{Function: 0, Native: -1, Parent: -1, Calls: 1, PCs: []costs.PCCost{{PC: 2, Opcode: 3, Executions: 1, Instructions: 12}}},
			{Function: -1, Native: 0, Parent: 0, CallSite: 2, HasCallSite: true, Calls: 1, NativeInstructions: 30},
			{Function: 1, Native: -1, Parent: 1, Calls: 2, PCs: []costs.PCCost{{PC: 0, Opcode: 1, Executions: 2, Instructions: 6}}},
		},
		Buckets:         []costs.BucketCost{{Name: jsprofile.BucketOutside, Instructions: 90}, {Name: jsprofile.BucketNative}},
		OutsideBeforeJS: 50,
		WasmSplits: []costs.WasmSplit{
			{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(0), w(2)}}, BeforeJS: true, Weight: 1},
			{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(0), w(3)}}, Weight: 1},
			{Context: -1, Bucket: jsprofile.BucketOutside, Segments: [][]costs.WasmFrame{{w(0), w(4)}}, Weight: 3},
		},
		WasmStackSamples: 5,
	}
	res.TotalInstructions = 90 + 30 + 12 + 6
	names := WasmNames{Extra: map[uint32]string{0: "main", 2: "JS_ReadObject", 3: "js_std_loop", 4: jsprofile.GCFunction}}
	p, err := ExactProfile(res, jsprofile.Meta{}, OpcodeNamer{"", "one", "two", "call"}, natives{7: "Javy.JSON.fromStdin"}, names)
	require.NoError(t, err)
	phases := map[string]int64{}
	for _, s := range p.Sample {
		phases[s.Location[len(s.Location)-1].Line[0].Function.Name] += s.Value[jsprofile.ValueInstructions]
	}
	assert.Equal(t, map[string]int64{
		"phase: " + jsprofile.PhaseStartup: 50,
		"phase: " + jsprofile.PhaseEngine:  10, // 40 split 1:3
		"phase: " + jsprofile.PhaseGC:      30,
		"phase: " + jsprofile.PhaseInput:   30 + 6,
		"phase: " + jsprofile.PhaseJS:      12,
	}, phases)
	got := stacksOf(t, p)
	assert.Equal(t, int64(50), got["phase: engine start-up;(outside JS);main;JS_ReadObject"])
	assert.Equal(t, int64(6), got["phase: input decoding;bytecode@0x100;op:call;Javy.JSON.fromStdin;bytecode@0x200;op:one"])
}

// natives names natives by table index, functions by address.
type natives map[uint32]string

func (natives) Function(f costs.FunctionCost) (string, string, int, int) {
	return AddressIdentity{}.Function(f)
}
func (natives) Line(costs.FunctionCost, uint32) (int, int) { return 0, 0 }
func (n natives) NativeName(index uint32, _ int16) string  { return n[index] }

// TestExactProfileUnreadCode: pcs of a function whose buffer the meter
// could not read carry opcode -1; their stacks, and a call made from one
// of them, end at or pass through the JS frame alone, and the profile
// still adds up.
func TestExactProfileUnreadCode(t *testing.T) {
	res := &costs.Results{
		TotalInstructions: 7 + 5,
		Functions: []costs.FunctionCost{
			{Address: 0x100, Length: 8, PCs: []costs.PCCost{{PC: 3, Opcode: -1, Executions: 1, Instructions: 7}}}, // not read
			{Address: 0x200, Length: 2, Code: []byte{1, 2}, PCs: []costs.PCCost{{PC: 1, Opcode: 2, Executions: 1, Instructions: 5}}},
		},
		Contexts: []costs.ContextCost{
			{Function: 0, Native: -1, Parent: -1, Calls: 1, PCs: []costs.PCCost{{PC: 3, Opcode: -1, Executions: 1, Instructions: 7}}},
			{Function: 1, Native: -1, Parent: 0, CallSite: 3, HasCallSite: true, Calls: 1, PCs: []costs.PCCost{{PC: 1, Opcode: 2, Executions: 1, Instructions: 5}}},
		},
		Buckets: []costs.BucketCost{{Name: jsprofile.BucketOutside}, {Name: jsprofile.BucketNative}},
	}
	p, err := ExactProfile(res, jsprofile.Meta{}, OpcodeNamer{"", "one", "two"}, nil, WasmNames{})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{
		"phase: JS program;bytecode@0x100":                       7, // and its calls, at pc 0
		"phase: JS program;bytecode@0x100;bytecode@0x200":        0, // the callee's calls
		"phase: JS program;bytecode@0x100;bytecode@0x200;op:two": 5,
	}, stacksOf(t, p))
}
