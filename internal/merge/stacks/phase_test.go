package stacks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestPhasesFollowWhatTheCodeDid: a native is input decoding or output
// encoding for what the code did with it, not for its name: JSON.parse of
// the program's own data is the JS program's, JSON.parse of what the
// program read from its input (there, or in a function it called) is
// input decoding; JSON.stringify before the output is written is output
// encoding, after it the program's. (Issue 39: a Javy program's own
// JSON.parse and JSON.stringify were 35.20M of 51.04M as input and output.)
func TestPhasesFollowWhatTheCodeDid(t *testing.T) {
	t.Parallel()
	const (
		in, out, js = jsprofile.PhaseInput, jsprofile.PhaseOutput, jsprofile.PhaseJS
	)
	// A context: a native's (called: its name) or a JS function's
	// (called: its call site's callee, "" unknown), under parent (-1: the
	// top), called at site (-1: no call site).
	type ctx struct {
		called string
		native bool
		parent int
		site   int
	}
	n := func(name string, parent, site int) ctx { return ctx{name, true, parent, site} }
	j := func(called string, parent, site int) ctx { return ctx{called, false, parent, site} }
	top := j("", -1, -1)
	tests := []struct {
		name string
		ctxs []ctx
		want []string
	}{
		{"own data parsed and printed", []ctx{top, n("JSON.parse", 0, 4), n("JSON.stringify", 0, 9), n("console.log", 0, 12)},
			[]string{js, js, js, js}},
		{"javy_io's readAll and write", []ctx{
			top, n("Javy.IO.readSync", 0, 3), n("decode", 0, 8), n("JSON.parse", 0, 10),
			n("JSON.stringify", 0, 20), n("encode", 0, 22), n("Javy.IO.writeSync", 0, 24)},
			[]string{js, in, in, in, out, out, out}},
		{"parsed before the read, stringified after the write", []ctx{
			top, n("JSON.parse", 0, 1), n("Javy.IO.readSync", 0, 3), n("Javy.IO.writeSync", 0, 24), n("JSON.stringify", 0, 30)},
			[]string{js, js, in, out, js}},
		{"read in a function the caller called", []ctx{
			top, j("readAll", 0, 2), n("Javy.IO.readSync", 1, 5), n("decode", 0, 6), n("JSON.parse", 0, 7)},
			[]string{js, js, in, in, in}},
		{"the engine's JS wrapping the host function", []ctx{
			top, j("Javy.IO.readSync", 0, 3), n("(native functions)", 1, 4), n("JSON.parse", 0, 10)},
			[]string{js, in, in, in}},
		{"a Shopify Function parsing a metafield", []ctx{
			top, n("ShopifyFunction.readInput", 0, 2), j("run", 0, 4), n("JSON.parse", 2, 9), n("ShopifyFunction.writeOutput", 0, 6)},
			[]string{js, in, js, js, out}},
		{"JS called back by an input native", []ctx{
			top, n("Javy.JSON.fromStdin", 0, 2), j("", 1, -1), n("JSON.parse", 2, 1)},
			[]string{js, in, in, in}},
		{"no call sites: siblings are taken", []ctx{
			top, n("Javy.IO.readSync", 0, -1), n("JSON.parse", 0, 1)},
			[]string{js, in, in}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctxs := make([]costs.ContextCost, len(tt.ctxs))
			names := make([]string, len(tt.ctxs))
			for i, c := range tt.ctxs {
				ctxs[i] = costs.ContextCost{Function: 0, Native: -1, Parent: c.parent, CallSite: uint32(max(c.site, 0)), HasCallSite: c.site >= 0}
				names[i] = c.called
				if c.native {
					ctxs[i].Function, ctxs[i].Native = -1, i
				}
			}
			p := newPhaser()
			p.contexts(ctxs, names)
			assert.Equal(t, tt.want, p.phases)
		})
	}
	// By name alone (sample mode, results without contexts), only the
	// natives that read and write are input and output.
	for name, want := range map[string]string{"ShopifyFunction.readInput": in, "Javy.IO.readSync": in, "Javy.JSON.toStdout": out,
		"JSON.parse": "", "JSON.stringify": "", "TextDecoder.prototype.decode": "", "Math.max": ""} {
		assert.Equal(t, want, nativePhase(name), name)
	}
}

// calling names natives by table index, and call sites by pc.
type calling struct {
	natives
	calls map[uint32]string
}

func (c calling) CallName(_ costs.FunctionCost, pc uint32) string { return c.calls[pc] }

// TestUndeclaredNativesNamedByCallSite: a native no function list
// declares (native@table[N], a trampoline serving many host functions) is
// named, in an exact profile, after what its call site called, as the
// unidentified native is: two calls of one table index from different
// call sites are two natives, and the same call on two engines (table
// indices apart) one name (issue 39). A declared native keeps its name,
// and a call site that cannot be read leaves native@table[N].
func TestUndeclaredNativesNamedByCallSite(t *testing.T) {
	t.Parallel()
	res := &costs.Results{
		TotalInstructions: 10 + 20 + 30 + 40 + 50,
		Functions:         []costs.FunctionCost{{Address: 0x100, Length: 16, Code: make([]byte, 16)}},
		Natives:           []costs.NativeCost{{TableIndex: 312}, {TableIndex: 7}, {Unidentified: true}},
		Contexts: []costs.ContextCost{
			{Function: 0, Native: -1, Parent: -1, Calls: 1},
			{Function: -1, Native: 0, Parent: 0, CallSite: 2, HasCallSite: true, Calls: 1, NativeInstructions: 10},
			{Function: -1, Native: 0, Parent: 0, CallSite: 4, HasCallSite: true, Calls: 1, NativeInstructions: 20},
			{Function: -1, Native: 0, Parent: 0, CallSite: 6, HasCallSite: true, Calls: 1, NativeInstructions: 30},
			{Function: -1, Native: 1, Parent: 0, CallSite: 8, HasCallSite: true, Calls: 1, NativeInstructions: 40},
			{Function: -1, Native: 2, Parent: 0, CallSite: 10, HasCallSite: true, Calls: 1, NativeInstructions: 50},
		},
	}
	id := calling{natives{7: "JSON.parse"}, map[uint32]string{2: "Javy.IO.readSync", 4: "Javy.IO.writeSync", 8: "parse", 10: "console.log"}}
	p, err := ExactProfile(res, jsprofile.Meta{}, OpcodeNamer{}, id, WasmNames{})
	require.NoError(t, err)
	self := map[string]int64{}
	for _, s := range p.Sample {
		if v := s.Value[jsprofile.ValueInstructions]; v > 0 {
			self[s.Location[0].Line[0].Function.Name] += v
		}
	}
	assert.Equal(t, map[string]int64{"Javy.IO.readSync": 10, "Javy.IO.writeSync": 20, "native@table[312]": 30, "JSON.parse": 40, "console.log": 50}, self)
	got := stacksOf(t, p)
	assert.Equal(t, int64(10), got["phase: input decoding;bytecode@0x100;op:op_0;Javy.IO.readSync"], "named, its phase follows: %v", got)
	assert.Equal(t, int64(20), got["phase: output encoding;bytecode@0x100;op:op_0;Javy.IO.writeSync"], "%v", got)
}
