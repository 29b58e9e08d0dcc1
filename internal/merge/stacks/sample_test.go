package stacks

import (
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// The module of these tests: function 0 is the entry point's caller
// (a foreign "_start"), 7 the interpreter, 8 and 9 what a handler calls.
const (
	testDispatch = 7
	testHelper   = 8
	testLeaf     = 9
)

// recursion is a synthetic run of a recursive JS function: a sample's
// stack at depth d is d activations of fib, each the interpreter's frame
// and the helper it called, the innermost in the leaf.
type recursion struct {
	fib *costs.FunctionCost
}

func newRecursion() recursion {
	code := make([]byte, 16)
	for i := range code {
		code[i] = byte(i % 4) // the opcode at pc is op_a, op_b, ... by pc
	}
	return recursion{fib: &costs.FunctionCost{Address: 0x1000, Length: 16, Code: code}}
}

// sample returns the Wasm frames and activations of a stack whose
// activations are at pcs (outermost first).
func (r recursion) sample(pcs []uint32) ([]costs.WasmFrame, []costs.Activation) {
	wasm := []costs.WasmFrame{{Foreign: "_start"}}
	var js []costs.Activation
	for i, pc := range pcs {
		wasm = append(wasm, costs.WasmFrame{Index: testDispatch, Offset: 100 + uint64(pc)})
		if i < len(pcs)-1 {
			wasm = append(wasm, costs.WasmFrame{Index: testHelper, Offset: 200})
		} else {
			wasm = append(wasm, costs.WasmFrame{Index: testLeaf, Offset: 300 + uint64(pc)})
		}
		js = append(js, costs.Activation{Function: r.fib, PC: pc})
	}
	return wasm, js
}

// collapsed is a profile's samples as "frame;frame weight" lines, sorted
// by pprof's own order (the builder's), for comparing stacks; each
// stack's root, its phase frame, is left out (and must be the JS
// program's: the tests' stacks are all in JS).
func collapsed(t *testing.T, p *profile.Profile) map[string]int64 {
	t.Helper()
	require.NoError(t, p.CheckValid())
	_, err := jsprofile.Read(p) // the builder no longer reads back what it built
	require.NoError(t, err)
	out := map[string]int64{}
	for _, s := range p.Sample {
		var names []string
		root := s.Location[len(s.Location)-1].Line[0].Function
		require.Equal(t, jsprofile.PhaseFrame(jsprofile.PhaseJS).SystemName, root.SystemName, "the stack's root")
		for i := len(s.Location) - 2; i >= 0; i-- {
			for j := len(s.Location[i].Line) - 1; j >= 0; j-- {
				names = append(names, s.Location[i].Line[j].Function.Name)
			}
		}
		out[strings.Join(names, ";")] += s.Value[0]
	}
	return out
}

func TestSamplerAggregatesStacks(t *testing.T) {
	r := newRecursion()
	s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a", "op_b", "op_c", "op_d"})
	add := func(weight uint64, pcs ...uint32) {
		wasm, js := r.sample(pcs)
		s.Add(weight, wasm, js)
	}
	add(10, 1, 2)
	add(20, 1, 3) // parts from the previous sample at its last activation
	window := s.Window()
	add(30, 1, 2) // the first stack again
	add(40, 1)    // a prefix of it
	add(50, 1, 2, 3)

	assert.Equal(t, uint64(150), s.Total())
	fib := "bytecode@0x1000"
	helper, leaf := "wasm-function[8]", "wasm-function[9]"
	stack := func(frames ...string) string { return strings.Join(append([]string{"_start"}, frames...), ";") }
	main, err := s.Profile(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{
		stack(fib, "op:op_b", helper, fib, "op:op_c", leaf):                         40,
		stack(fib, "op:op_b", helper, fib, "op:op_d", leaf):                         20,
		stack(fib, "op:op_b", leaf):                                                 40,
		stack(fib, "op:op_b", helper, fib, "op:op_c", helper, fib, "op:op_d", leaf): 50,
	}, collapsed(t, main), "every sample, stacks merged by their frames")

	since, err := window(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{
		stack(fib, "op:op_b", helper, fib, "op:op_c", leaf):                         30,
		stack(fib, "op:op_b", leaf):                                                 40,
		stack(fib, "op:op_b", helper, fib, "op:op_c", helper, fib, "op:op_d", leaf): 50,
	}, collapsed(t, since), "the samples since the window began")
}

// TestSamplerFoldsLongRuns: past foldEvery samples the log is folded into
// its distinct stacks, which keeps a long run's memory to them, and the
// profiles, the whole run's and a window's opened between folds, count
// every sample.
func TestSamplerFoldsLongRuns(t *testing.T) {
	r := newRecursion()
	s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a", "op_b", "op_c", "op_d"})
	pcs := [][]uint32{{1, 2}, {1, 3}, {1}}
	const half = foldEvery + foldEvery/4 // a fold in each half
	var window func(jsprofile.Meta, Identity) (*profile.Profile, error)
	all, since := make([]int64, len(pcs)), make([]int64, len(pcs))
	for i := range 2 * half {
		if i == half {
			window = s.Window()
		}
		k := i % len(pcs)
		wasm, js := r.sample(pcs[k])
		s.Add(uint64(k+1), wasm, js)
		all[k] += int64(k + 1)
		if i >= half {
			since[k] += int64(k + 1)
		}
	}
	assert.Less(t, len(s.log.samples), foldEvery, "samples still logged")
	assert.Len(t, s.log.folded, len(pcs), "distinct stacks folded")

	fib, helper, leaf := "bytecode@0x1000", "wasm-function[8]", "wasm-function[9]"
	stack := func(frames ...string) string { return strings.Join(append([]string{"_start"}, frames...), ";") }
	want := func(w []int64) map[string]int64 {
		return map[string]int64{
			stack(fib, "op:op_b", helper, fib, "op:op_c", leaf): w[0],
			stack(fib, "op:op_b", helper, fib, "op:op_d", leaf): w[1],
			stack(fib, "op:op_b", leaf):                         w[2],
		}
	}
	main, err := s.Profile(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	assert.Equal(t, want(all), collapsed(t, main), "the whole run")
	got, err := window(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	assert.Equal(t, want(since), collapsed(t, got), "the window opened after the first fold")
	assert.Equal(t, uint64(all[0]+all[1]+all[2]), s.Total())
}

// BenchmarkSamplerAdd adds the samples of a deep recursion, consecutive
// samples parting at some depth, as fib(30) sampled every million
// instructions gives them: the cost of one sample in the sampler (the
// stack walk is the meter's).
func BenchmarkSamplerAdd(b *testing.B) {
	r := newRecursion()
	const samples = 2000
	type sample struct {
		wasm []costs.WasmFrame
		js   []costs.Activation
	}
	all := make([]sample, samples)
	pcs := []uint32{1}
	seed := uint32(1)
	for i := range all {
		seed = seed*1664525 + 1013904223
		// Part from the previous stack some levels up, then descend again
		// to a depth of 20 to 30.
		keep := max(1, len(pcs)-1-int(seed>>28)%12)
		pcs = pcs[:keep]
		depth := 20 + int(seed>>8)%11
		for j := len(pcs); j < depth; j++ {
			seed = seed*1664525 + 1013904223
			pcs = append(pcs, 1+seed>>30)
		}
		all[i].wasm, all[i].js = r.sample(pcs)
	}
	b.ResetTimer()
	for range b.N {
		s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a", "op_b", "op_c", "op_d"})
		stop := s.Window() // as a run's profile is collected
		for _, x := range all {
			s.Add(1000000, x.wasm, x.js)
		}
		if _, err := stop(jsprofile.Meta{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*samples), "ns/sample")
}

// TestSamplerRecentFramesOfOnePC: two functions' frames at one pc share a
// slot of the recent-frame cache (its hash leaves the function out);
// samples alternating between them keep them apart.
func TestSamplerRecentFramesOfOnePC(t *testing.T) {
	a := &costs.FunctionCost{Address: 0x1000, Length: 16, Code: make([]byte, 16)}
	b := &costs.FunctionCost{Address: 0x2000, Length: 16, Code: make([]byte, 16)}
	at := func(fn *costs.FunctionCost) costs.Activation { return costs.Activation{Function: fn, PC: 1} }
	require.Equal(t, recentSlot(jsRaw(at(a), nil)), recentSlot(jsRaw(at(b), nil)), "one slot for both")
	s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a"})
	for i := range 6 {
		fn := a
		if i%2 == 1 {
			fn = b
		}
		wasm := []costs.WasmFrame{{Foreign: "_start"}, {Index: testDispatch, Offset: 101}, {Index: testLeaf, Offset: 301}}
		s.Add(uint64(10+i), wasm, []costs.Activation{at(fn)})
	}
	p, err := s.Profile(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{
		"_start;bytecode@0x1000;op:op_a;wasm-function[9]": 10 + 12 + 14,
		"_start;bytecode@0x2000;op:op_a;wasm-function[9]": 11 + 13 + 15,
	}, collapsed(t, p))
}

// TestSamplerEntryPointRenamed: whether a stack's root is an entry point
// is kept for the last root seen, and asked again once the Wasm names
// change: an unnamed root is not one (its stack goes under the truncated
// bucket), the same root named _start is.
func TestSamplerEntryPointRenamed(t *testing.T) {
	r := newRecursion()
	s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a", "op_b"})
	wasm := []costs.WasmFrame{{Index: 3, Offset: 50}, {Index: testDispatch, Offset: 101}, {Index: testLeaf, Offset: 301}}
	js := []costs.Activation{{Function: r.fib, PC: 1}}
	s.Add(10, wasm, js)
	s.SetWasmNames(map[uint32]string{3: "_start"})
	s.Add(20, wasm, js)
	p, err := s.Profile(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	truncated := jsprofile.BucketFrame(jsprofile.BucketTruncated).Name
	assert.Equal(t, map[string]int64{
		truncated + ";_start;bytecode@0x1000;op:op_b;wasm-function[9]": 10,
		"_start;bytecode@0x1000;op:op_b;wasm-function[9]":              20,
	}, collapsed(t, p), "the first sample's root named when the profile is built, after the rename")
}

// TestSamplerUnreadCodeKeepsTheProfile: an activation of a function whose
// buffer the meter could not read (a buffer past the guest's memory) has
// no opcode to name; its sample ends at the JS frame, and the profile is
// still written rather than rejected for an opcode frame of no opcode.
func TestSamplerUnreadCodeKeepsTheProfile(t *testing.T) {
	unread := &costs.FunctionCost{Address: 0x2000, Length: 64} // no Code
	s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a"})
	wasm := []costs.WasmFrame{{Foreign: "_start"}, {Index: testDispatch, Offset: 100}, {Index: testLeaf, Offset: 300}}
	s.Add(25, wasm, []costs.Activation{{Function: unread, PC: 12}})
	p, err := s.Profile(jsprofile.Meta{}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"_start;bytecode@0x2000;wasm-function[9]": 25}, collapsed(t, p))
}

// TestSamplerNamesUndeclaredNativesByCallSite: a native no function list
// declares is named after what its JS caller's call site called, as in
// exact mode (TestUndeclaredNativesNamedByCallSite), so that the two
// modes name it alike; a declared one keeps its name, and one called by a
// native keeps native@table[N].
func TestSamplerNamesUndeclaredNativesByCallSite(t *testing.T) {
	r := newRecursion()
	const cfunc = 10
	s := NewSampler(testDispatch, nil, OpcodeNamer{"op_a", "op_b", "op_c", "op_d"})
	s.SetNatives(cfunc, nil)
	native := func(index uint32) costs.Activation { return costs.Activation{Native: true, TableIndex: index} }
	add := func(weight uint64, pc uint32, natives ...costs.Activation) {
		wasm := []costs.WasmFrame{{Foreign: "_start"}, {Index: testDispatch, Offset: 100}}
		js := []costs.Activation{{Function: r.fib, PC: pc}}
		for _, n := range natives {
			wasm = append(wasm, costs.WasmFrame{Index: testHelper, Offset: 200}, costs.WasmFrame{Index: testDispatch, Offset: 150}, costs.WasmFrame{Index: cfunc, Offset: 400})
			js = append(js, n)
		}
		s.Add(weight, wasm, js)
	}
	add(10, 2, native(312))            // called at pc 2: readSync
	add(20, 6, native(312))            // called at pc 6: writeSync
	add(30, 5, native(7))              // declared
	add(40, 6, native(7), native(312)) // called by a native
	id := calling{natives{7: "JSON.parse"}, map[uint32]string{2: "Javy.IO.readSync", 5: "parse", 6: "Javy.IO.writeSync"}}
	p, err := s.Profile(jsprofile.Meta{}, id)
	require.NoError(t, err)
	leaves := map[string]int64{}
	for _, smp := range p.Sample {
		for _, loc := range smp.Location {
			if f := loc.Line[0].Function; strings.HasPrefix(f.SystemName, "native:") {
				leaves[f.Name] += smp.Value[0]
				break
			}
		}
	}
	assert.Equal(t, map[string]int64{"Javy.IO.readSync": 10, "Javy.IO.writeSync": 20, "JSON.parse": 30, "native@table[312]": 40}, leaves)
}
