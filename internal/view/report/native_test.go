package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// nativeTables are the tables of reporttest.NativeProfile.
func nativeTables(t *testing.T, parseIndex uint32, parseInstr int64) *Tables {
	t.Helper()
	return tablesOf(t, reporttest.NativeProfile(t, parseIndex, parseInstr))
}

func functionNamed(d *Tables, kind, name string) *FunctionStats {
	for i := range d.Functions {
		if d.Functions[i].Kind == kind && d.Functions[i].Name == name {
			return &d.Functions[i]
		}
	}
	return nil
}

// TestReportNatives: natives are functions of kind native, with calls,
// self and total instructions; their instructions are in no opcode and no
// line; opcodes, natives and buckets add up to the total.
func TestReportNatives(t *testing.T) {
	d := nativeTables(t, 412, 1000)
	type row struct {
		kind, name         string
		calls, self, total uint64
		opcodes            int
	}
	for _, want := range []row{
		{FunctionNative, "JSON.parse", 2, 1000, 1000, 0},
		{FunctionNative, "Array.prototype.sort", 1, 300, 550, 0},
		{FunctionNative, "Math.sign", 10, 50, 50, 0},
		{FunctionJS, "cmp", 10, 200, 250, 1},
		{FunctionJS, "<eval>", 1, 100, 1690, 1},
	} {
		f := functionNamed(d, want.kind, want.name)
		require.NotNil(t, f, want.name)
		assert.Equal(t, want, row{f.Kind, f.Name, f.Calls, f.SelfWasmInstructions, f.TotalWasmInstructions, len(f.Opcodes)}, want.name)
	}
	assert.Len(t, d.Functions, 5)
	assert.Equal(t, uint64(1350), d.NativeWasmInstructions)
	assert.Equal(t, uint64(13), d.NativeCalls)
	assert.Equal(t, uint64(11), d.Calls, "JS calls only")
	assert.Equal(t, []BucketCost{{jsprofile.BucketNative, 50}, {jsprofile.BucketOutside, 500}}, d.Buckets, "the host function in context, and at the root")
	var ops, lines, buckets uint64
	for _, o := range d.Opcodes {
		ops += o.WasmInstructions
	}
	for _, l := range d.Lines {
		lines += l.SelfWasmInstructions
	}
	for _, b := range d.Buckets {
		buckets += b.WasmInstructions
	}
	assert.Equal(t, uint64(300), ops, "call_method and sub only")
	assert.Equal(t, ops, lines)
	assert.Equal(t, d.TotalWasmInstructions, ops+d.NativeWasmInstructions+buckets)

	parse := functionNamed(d, FunctionNative, "JSON.parse")
	assert.Equal(t, "JSON.parse (native)", parse.Label())
	assert.Equal(t, "native\x00JSON.parse", parse.Key())
}

// TestReportNativesViews: every view shows natives as such: the function
// view lists them, the opcode view has their instructions in a row of
// their own, JSON says "kind".
func TestReportNativesViews(t *testing.T) {
	d := nativeTables(t, 412, 1000)
	tests := []struct {
		by   string
		want []string
	}{
		{ByFunction, []string{"JSON.parse (native)", "Array.prototype.sort (native)", "cmp (app.js:5)"}},
		{ByOpcode, []string{"native functions (--by function)", "1350", "61.4%", "(native functions)", "call_method"}},
		{BySummary, []string{"11 JS calls, 2 JS functions; 13 native calls of 3 native functions", "JSON.parse (native)", "native functions (--by function)"}},
	}
	for _, tt := range tests {
		t.Run(tt.by, func(t *testing.T) {
			r, err := NewReport(d, ReportOptions{By: tt.by})
			require.NoError(t, err)
			var text bytes.Buffer
			require.NoError(t, r.WriteText(&text))
			for _, w := range tt.want {
				assert.Contains(t, text.String(), w)
			}
		})
	}
	r, err := NewReport(d, ReportOptions{By: ByFunction})
	require.NoError(t, err)
	var doc bytes.Buffer
	require.NoError(t, r.WriteJSON(&doc))
	var got struct {
		NativeWasm uint64 `json:"native_wasm_instructions"`
		Functions  []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"functions"`
	}
	require.NoError(t, json.Unmarshal(doc.Bytes(), &got))
	assert.Equal(t, uint64(1350), got.NativeWasm)
	kinds := map[string]string{}
	for _, f := range got.Functions {
		kinds[f.Name] = f.Kind
	}
	assert.Equal(t, map[string]string{"JSON.parse": "native", "Array.prototype.sort": "native", "Math.sign": "native", "cmp": "js", "<eval>": "js"}, kinds)

	only, err := NewReport(d, ReportOptions{By: ByFunction, Function: "JSON.parse"})
	require.NoError(t, err)
	assert.Equal(t, uint64(2), only.Data().NativeCalls)
	assert.Equal(t, uint64(1000), only.Data().NativeWasmInstructions)
}

// TestReportUnnamedWasm: a sampled profile says how much of its weight is
// in Wasm functions without a name.
func TestReportUnnamedWasm(t *testing.T) {
	start := jsprofile.WasmFrame(0, "_start", "", 0, 10)
	unnamed := jsprofile.WasmFrame(7, "wasm-function[7]", "", 0, 20)
	named := jsprofile.WasmFrame(8, "JSON.stringify (native)", "", 0, 30)
	eval := jsprofile.JSFrame("<eval>", "app.js", 1, 1, 0x1000, 0)
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeSample, TotalInstructions: 100})
	b.Add([]jsprofile.Frame{start, unnamed}, 30, 0, 0)
	b.Add([]jsprofile.Frame{start, eval, jsprofile.OpcodeFrame("call_method", 36), jsprofile.NativeFrame("JSON.stringify", 413, 0), named}, 50, 0, 0)
	b.Add([]jsprofile.Frame{start, eval, jsprofile.OpcodeFrame("call_method", 36), jsprofile.NativeFrame("JSON.stringify", 413, 0), named, unnamed}, 20, 0, 0)
	p, err := b.Profile()
	require.NoError(t, err)
	d, err := FromProfile(p)
	require.NoError(t, err)
	assert.Equal(t, uint64(50), d.UnnamedWasmInstructions)
	assert.Equal(t, uint64(70), functionNamed(d, FunctionNative, "JSON.stringify").SelfWasmInstructions)
	r, err := NewReport(d, ReportOptions{By: BySummary})
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Contains(t, text.String(), "in Wasm functions without a name (wasm-function[N]): 50.0% of the samples")
}
