package reporttest

import (
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// WasmStack is one sampled stack of a hand-made profile, root first.
type WasmStack struct {
	Frames []jsprofile.Frame
	Instr  int64
}

// WasmProfile builds a profile of stacks (their executions and calls
// none), its total their sum plus extra (instructions the samples
// missed).
func WasmProfile(t testing.TB, meta jsprofile.Meta, stacks []WasmStack, extra uint64) *profile.Profile {
	t.Helper()
	var total uint64
	for _, s := range stacks {
		total += uint64(s.Instr)
	}
	meta.TotalInstructions = total + extra
	b := jsprofile.NewBuilder(meta)
	for _, s := range stacks {
		b.Add(s.Frames, s.Instr, 0, 0)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	return p
}

// The frames of the hand-made profiles of WasmStacks: an engine whose
// get_field handler calls GetProp (which calls FindShape), whose add
// handler calls AddSlow, and whose JSON.parse runs parse_json, which calls
// GetProp too.
var (
	WStart     = jsprofile.WasmFrame(1, "_start", "", 0, 0x10)
	WMain      = jsprofile.WasmFrame(2, "main", "", 0, 0x20)
	WGetProp   = jsprofile.WasmFrame(10, "GetProp", "", 0, 0x100)
	WFindShape = jsprofile.WasmFrame(11, "FindShape", "", 0, 0x110)
	WAddSlow   = jsprofile.WasmFrame(12, "AddSlow", "", 0, 0x120)
	WParseJSON = jsprofile.WasmFrame(13, "parse_json", "", 0, 0x130)
	WRec       = jsprofile.WasmFrame(14, "rec", "", 0, 0x140)
	WGC        = jsprofile.WasmFrame(15, "gc", "", 0, 0x150)
	WFree      = jsprofile.WasmFrame(16, "free", "", 0, 0x160)
	JF         = jsprofile.JSFrame("f", "app.js", 1, 2, 0x1000, 4)
	JG         = jsprofile.JSFrame("g", "app.js", 9, 10, 0x2000, 8)
	OGetField  = jsprofile.OpcodeFrame("get_field", 65)
	OAdd       = jsprofile.OpcodeFrame("add", 157)
	OCall      = jsprofile.OpcodeFrame("call_method", 36)
	NParse     = jsprofile.NativeFrame("JSON.parse", 412, 0)
	BOutside   = jsprofile.BucketFrame(jsprofile.BucketOutside)
)

// The weights of WasmStacks' samples, named so that expected values read
// as sums.
const (
	SShape     = 100 // get_field → GetProp → FindShape
	SProp      = 40  // get_field → GetProp
	SAddSlow   = 30  // add → AddSlow
	SParse     = 20  // call_method → JSON.parse → parse_json → GetProp → FindShape
	SAddInline = 50  // add, in the interpreter's own code
	SFree      = 25  // outside JS: gc → free
	SRec       = 10  // call_method → rec → rec → rec
	SGetter    = 15  // get_field → GetProp → g (a getter) → add → AddSlow
	SBucket    = 5   // (outside JS) alone
	SMissed    = 7   // in the total, in no sample
)

// JS returns the frames under the JS function f of WasmStacks' engine
// (_start → main → f), then fs.
func JS(fs ...jsprofile.Frame) []jsprofile.Frame {
	return append([]jsprofile.Frame{WStart, WMain, JF}, fs...)
}

// WasmStacks are the stacks of a sampled run with every way of reaching
// a Wasm function: from an opcode's handler, from a native, from outside
// JS, recursively, and under a getter the handler called back.
func WasmStacks() []WasmStack {
	return []WasmStack{
		{JS(OGetField, WGetProp, WFindShape), SShape},
		{JS(OGetField, WGetProp), SProp},
		{JS(OAdd, WAddSlow), SAddSlow},
		{JS(OCall, NParse, WParseJSON, WGetProp, WFindShape), SParse},
		{JS(OAdd), SAddInline},
		{[]jsprofile.Frame{WStart, WGC, WFree}, SFree},
		{JS(OCall, WRec, WRec, WRec), SRec},
		{JS(OGetField, WGetProp, JG, OAdd, WAddSlow), SGetter},
		{[]jsprofile.Frame{BOutside}, SBucket},
	}
}

// PhaseStacks are the stacks of an exact run with phase frames at their
// roots, in another order than the run's: engine start-up (100
// instructions), input decoding (60), the JS program (300), the engine
// after JS (40), and output encoding, which ran none.
func PhaseStacks() []WasmStack {
	phase := jsprofile.PhaseFrame
	fn := jsprofile.JSFrame("main", "index.js", 1, 2, 0x100, 4)
	op := jsprofile.OpcodeFrame("get_field", 65)
	return []WasmStack{
		{[]jsprofile.Frame{phase(jsprofile.PhaseJS), fn, op}, 300},
		{[]jsprofile.Frame{phase(jsprofile.PhaseEngine), jsprofile.BucketFrame(jsprofile.BucketOutside), WStart}, 40},
		{[]jsprofile.Frame{phase(jsprofile.PhaseStartup), jsprofile.BucketFrame(jsprofile.BucketOutside), WStart, WMain}, 100},
		{[]jsprofile.Frame{phase(jsprofile.PhaseInput), fn, jsprofile.CalledNativeFrame("ShopifyFunction.readInput")}, 60},
		{[]jsprofile.Frame{phase(jsprofile.PhaseOutput), fn}, 0},
	}
}

// NativeProfile is an exact profile with natives as package stacks writes
// them: <eval> calls JSON.parse, Array.prototype.sort (its comparator cmp
// under it, calling Math.sign) and a host function (the (native
// functions) bucket in its context); JSON.parse's table index is
// parseIndex, as an engine numbers it, and it runs parseInstr
// instructions.
func NativeProfile(t testing.TB, parseIndex uint32, parseInstr int64) *profile.Profile {
	t.Helper()
	eval := jsprofile.JSFrame("<eval>", "app.js", 1, 1, 0x1000, 0)
	cmp := jsprofile.JSFrame("cmp", "app.js", 5, 6, 0x2000, 0)
	callMethod := jsprofile.OpcodeFrame("call_method", 36)
	sub := jsprofile.OpcodeFrame("sub", 150)
	parse := jsprofile.NativeFrame("JSON.parse", parseIndex, 0)
	sortFn := jsprofile.NativeFrame("Array.prototype.sort", 529, 0)
	sign := jsprofile.NativeFrame("Math.sign", 600, 3)
	host := jsprofile.BucketFrame(jsprofile.BucketNative)
	total := 100 + parseInstr + 300 + 200 + 50 + 40 + 500 + 10
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: uint64(total)})
	stacks := []struct {
		stack               []jsprofile.Frame
		instr, execs, calls int64
	}{
		{[]jsprofile.Frame{eval}, 0, 0, 1},
		{[]jsprofile.Frame{eval, callMethod}, 100, 4, 0},
		{[]jsprofile.Frame{eval, callMethod, parse}, parseInstr, 0, 2},
		{[]jsprofile.Frame{eval, callMethod, sortFn}, 300, 0, 1},
		{[]jsprofile.Frame{eval, callMethod, sortFn, cmp}, 0, 0, 10},
		{[]jsprofile.Frame{eval, callMethod, sortFn, cmp, sub}, 200, 10, 0},
		{[]jsprofile.Frame{eval, callMethod, sortFn, cmp, callMethod, sign}, 50, 0, 10},
		{[]jsprofile.Frame{eval, callMethod, host}, 40, 0, 0},
		{[]jsprofile.Frame{jsprofile.BucketFrame(jsprofile.BucketOutside)}, 500, 0, 0},
		{[]jsprofile.Frame{host}, 10, 0, 0},
	}
	for _, s := range stacks {
		b.Add(s.stack, s.instr, s.execs, s.calls)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	return p
}
