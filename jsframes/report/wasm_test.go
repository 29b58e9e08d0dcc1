package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// wasmStack is one sampled stack of a hand-made profile, root first.
type wasmStack struct {
	frames []jsprofile.Frame
	instr  int64
}

// wasmProfile builds a sample-mode profile of stacks, its total their sum
// plus extra (instructions the samples missed).
func wasmProfile(t *testing.T, meta jsprofile.Meta, stacks []wasmStack, extra uint64) *Tables {
	t.Helper()
	var total uint64
	for _, s := range stacks {
		total += uint64(s.instr)
	}
	meta.TotalInstructions = total + extra
	b := jsprofile.NewBuilder(meta)
	for _, s := range stacks {
		b.Add(s.frames, s.instr, 0, 0)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	d, err := FromProfile(p)
	require.NoError(t, err)
	return d
}

// The frames of the hand-made profiles: an engine whose get_field handler
// calls GetProp (which calls FindShape), whose add handler calls AddSlow,
// and whose JSON.parse runs parse_json, which calls GetProp too.
var (
	wStart     = jsprofile.WasmFrame(1, "_start", "", 0, 0x10)
	wMain      = jsprofile.WasmFrame(2, "main", "", 0, 0x20)
	wGetProp   = jsprofile.WasmFrame(10, "GetProp", "", 0, 0x100)
	wFindShape = jsprofile.WasmFrame(11, "FindShape", "", 0, 0x110)
	wAddSlow   = jsprofile.WasmFrame(12, "AddSlow", "", 0, 0x120)
	wParseJSON = jsprofile.WasmFrame(13, "parse_json", "", 0, 0x130)
	wRec       = jsprofile.WasmFrame(14, "rec", "", 0, 0x140)
	wGC        = jsprofile.WasmFrame(15, "gc", "", 0, 0x150)
	wFree      = jsprofile.WasmFrame(16, "free", "", 0, 0x160)
	jF         = jsprofile.JSFrame("f", "app.js", 1, 2, 0x1000, 4)
	jG         = jsprofile.JSFrame("g", "app.js", 9, 10, 0x2000, 8)
	oGetField  = jsprofile.OpcodeFrame("get_field", 65)
	oAdd       = jsprofile.OpcodeFrame("add", 157)
	oCall      = jsprofile.OpcodeFrame("call_method", 36)
	nParse     = jsprofile.NativeFrame("JSON.parse", 412, 0)
	bOutside   = jsprofile.BucketFrame(jsprofile.BucketOutside)
)

// The samples' weights, named so that expected values read as sums.
const (
	sShape     = 100 // get_field → GetProp → FindShape
	sProp      = 40  // get_field → GetProp
	sAddSlow   = 30  // add → AddSlow
	sParse     = 20  // call_method → JSON.parse → parse_json → GetProp → FindShape
	sAddInline = 50  // add, in the interpreter's own code
	sFree      = 25  // outside JS: gc → free
	sRec       = 10  // call_method → rec → rec → rec
	sGetter    = 15  // get_field → GetProp → g (a getter) → add → AddSlow
	sBucket    = 5   // (outside JS) alone
	sMissed    = 7   // in the total, in no sample
)

func wasmStacks() []wasmStack {
	js := func(fs ...jsprofile.Frame) []jsprofile.Frame {
		return append([]jsprofile.Frame{wStart, wMain, jF}, fs...)
	}
	return []wasmStack{
		{js(oGetField, wGetProp, wFindShape), sShape},
		{js(oGetField, wGetProp), sProp},
		{js(oAdd, wAddSlow), sAddSlow},
		{js(oCall, nParse, wParseJSON, wGetProp, wFindShape), sParse},
		{js(oAdd), sAddInline},
		{[]jsprofile.Frame{wStart, wGC, wFree}, sFree},
		{js(oCall, wRec, wRec, wRec), sRec},
		{js(oGetField, wGetProp, jG, oAdd, wAddSlow), sGetter},
		{[]jsprofile.Frame{bOutside}, sBucket},
	}
}

func wasmNamed(fs []WasmFunctionStats, name string) *WasmFunctionStats {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

func callerNamed(cs []WasmCaller, name string) *WasmCaller {
	for i := range cs {
		if cs[i].Label() == name {
			return &cs[i]
		}
	}
	return nil
}

// TestReportWasm: self is the samples where the function is the leaf,
// total those with it anywhere on the stack, once; the callers are the
// innermost opcode or native outside its innermost frame.
func TestReportWasm(t *testing.T) {
	d := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, wasmStacks(), sMissed)
	type caller struct {
		name        string
		self, total uint64
	}
	tests := []struct {
		name        string
		index       int
		self, total uint64
		callers     []caller // all of them, in order
	}{
		{"FindShape", 11, sShape + sParse, sShape + sParse, []caller{{"op:get_field", sShape, sShape}, {"JSON.parse (native)", sParse, sParse}}},
		{"GetProp", 10, sProp, sShape + sProp + sParse + sGetter,
			[]caller{{"op:get_field", sProp, sShape + sProp + sGetter}, {"JSON.parse (native)", 0, sParse}}},
		{"AddSlow", 12, sAddSlow + sGetter, sAddSlow + sGetter, []caller{{"op:add", sAddSlow + sGetter, sAddSlow + sGetter}}},
		{"free", 16, sFree, sFree, []caller{{"(outside JS)", sFree, sFree}}},
		{"rec", 14, sRec, sRec, []caller{{"op:call_method", sRec, sRec}}},
		{"parse_json", 13, 0, sParse, []caller{{"JSON.parse (native)", 0, sParse}}},
		{"_start", 1, 0, sShape + sProp + sAddSlow + sParse + sAddInline + sFree + sRec + sGetter,
			[]caller{{"(outside JS)", 0, sShape + sProp + sAddSlow + sParse + sAddInline + sFree + sRec + sGetter}}},
		{"gc", 15, 0, sFree, []caller{{"(outside JS)", 0, sFree}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := wasmNamed(d.WasmFunctions, tt.name)
			require.NotNil(t, f)
			assert.Equal(t, WasmKindFunction, f.Kind)
			assert.Equal(t, tt.index, f.Index)
			assert.Equal(t, tt.self, f.SelfWasmInstructions, "self")
			assert.Equal(t, tt.total, f.TotalWasmInstructions, "total")
			assert.InDelta(t, float64(tt.self)/float64(d.TotalWasmInstructions), f.Share, 1e-12)
			assert.InDelta(t, float64(tt.total)/float64(d.TotalWasmInstructions), f.TotalShare, 1e-12)
			var got []caller
			for _, c := range f.Callers {
				got = append(got, caller{c.Label(), c.SelfWasmInstructions, c.TotalWasmInstructions})
			}
			assert.Equal(t, tt.callers, got)
		})
	}

	// Sorted by self, most first; ties by name.
	var names []string
	for _, f := range d.WasmFunctions {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"FindShape", "AddSlow", "GetProp", "free", "rec", "_start", "gc", "main", "parse_json"}, names)

	// The interpreter loop: the samples whose innermost frame is an
	// opcode; its total, those in an interpreter activation.
	require.Len(t, d.WasmBuckets, 2)
	interp := d.WasmBuckets[0]
	assert.Equal(t, WasmInterpreterName, interp.Name)
	assert.Equal(t, WasmKindInterpreter, interp.Kind)
	assert.Equal(t, uint64(sAddInline), interp.SelfWasmInstructions)
	assert.Equal(t, uint64(sShape+sProp+sAddSlow+sParse+sAddInline+sRec+sGetter), interp.TotalWasmInstructions)
	add := callerNamed(interp.Callers, "op:add")
	require.NotNil(t, add)
	assert.Equal(t, uint64(sAddInline), add.SelfWasmInstructions)
	assert.Equal(t, uint64(sAddSlow+sAddInline+sGetter), add.TotalWasmInstructions, "the innermost opcode of each stack")
	none := d.WasmBuckets[1]
	assert.Equal(t, WasmNoFrameName, none.Name)
	assert.Equal(t, uint64(sBucket), none.SelfWasmInstructions)
	assert.Equal(t, []WasmCaller{{Name: jsprofile.BucketOutside, Kind: CallerBucket, SelfWasmInstructions: sBucket, TotalWasmInstructions: sBucket}}, none.Callers)

	// Every sample is some row's self, once.
	var self uint64
	for _, f := range append(append([]WasmFunctionStats(nil), d.WasmFunctions...), d.WasmBuckets...) {
		self += f.SelfWasmInstructions
		var cs, ct uint64
		for _, c := range f.Callers {
			cs, ct = cs+c.SelfWasmInstructions, ct+c.TotalWasmInstructions
		}
		assert.Equal(t, f.SelfWasmInstructions, cs, "%s: its callers' selves add up to its self", f.Name)
		assert.Equal(t, f.TotalWasmInstructions, ct, "%s: its callers' totals add up to its total", f.Name)
	}
	assert.Equal(t, d.SampledWasmInstructions, self)
}

// TestReportWasmGolden: the Wasm view in every format, cut by --top.
func TestReportWasmGolden(t *testing.T) {
	d := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10, Module: "app.wasm",
		Engine: jsprofile.EngineInfo{Family: "quickjs", Releases: []string{"2024-01-13"}, OpcodeNamesSource: "table"}}, wasmStacks(), sMissed)
	for _, tt := range []struct {
		name string
		top  int
	}{{"all", 0}, {"top3", 3}, {"top1", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReport(d, ReportOptions{By: ByWasm, Top: tt.top, Source: "app.pb.gz"})
			require.NoError(t, err)
			for _, f := range []struct {
				ext   string
				write func(*bytes.Buffer) error
			}{
				{"txt", func(b *bytes.Buffer) error { return r.WriteText(b) }},
				{"csv", func(b *bytes.Buffer) error { return r.WriteCSV(b) }},
				{"json", func(b *bytes.Buffer) error { return r.WriteJSON(b) }},
			} {
				var out bytes.Buffer
				require.NoError(t, f.write(&out))
				golden(t, "wasm-"+tt.name+"."+f.ext, out.Bytes())
			}
		})
	}
}

// TestReportWasmFormatsAgree: CSV and JSON carry the tables' exact counts.
func TestReportWasmFormatsAgree(t *testing.T) {
	d := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, wasmStacks(), sMissed)
	r, err := NewReport(d, ReportOptions{By: ByWasm})
	require.NoError(t, err)
	var csvOut, jsonOut bytes.Buffer
	require.NoError(t, r.WriteCSV(&csvOut))
	require.NoError(t, r.WriteJSON(&jsonOut))

	var doc struct {
		By            string              `json:"by"`
		WasmFunctions []WasmFunctionStats `json:"wasm_functions"`
		WasmBuckets   []WasmFunctionStats `json:"wasm_buckets"`
	}
	require.NoError(t, json.Unmarshal(jsonOut.Bytes(), &doc))
	assert.Equal(t, ByWasm, doc.By)
	assert.Equal(t, d.WasmFunctions, doc.WasmFunctions)
	assert.Equal(t, d.WasmBuckets, doc.WasmBuckets)

	rows, err := csv.NewReader(&csvOut).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	// A row per function × caller: the callers' counts, and the function's
	// on each of its rows.
	n := 0
	for _, f := range append(append([]WasmFunctionStats(nil), d.WasmFunctions...), d.WasmBuckets...) {
		for _, c := range f.Callers {
			n++
			require.Less(t, n, len(rows))
			row := rows[n]
			assert.Equal(t, []string{f.Name, f.Kind, strconv.Itoa(f.Index), strconv.FormatUint(f.SelfWasmInstructions, 10), strconv.FormatUint(f.TotalWasmInstructions, 10)}, row[:5])
			assert.Equal(t, []string{c.Name, c.Kind, "false", strconv.FormatUint(c.SelfWasmInstructions, 10), strconv.FormatUint(c.TotalWasmInstructions, 10)}, row[7:])
		}
	}
	assert.Len(t, rows, n+1)
}

// TestReportWasmNoFrames: exact profiles without Wasm frames have an empty
// Wasm view, which says why; --function does not apply to it.
func TestReportWasmNoFrames(t *testing.T) {
	d := readFixture(t, "fib-base.pb.gz")
	assert.Empty(t, d.WasmFunctions)
	assert.Empty(t, d.WasmBuckets)
	r, err := NewReport(d, ReportOptions{By: ByWasm})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.WriteText(&out))
	assert.Contains(t, out.String(), "the profile has no Wasm frames (jsprof run --mode sample records them)\n")
	assert.NotContains(t, out.String(), "wasm function")

	_, err = NewReport(d, ReportOptions{By: ByWasm, Function: "fib"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--function fib does not apply")
}

// TestReportWasmApportioned: a profile whose Wasm frames are apportioned
// says so in the heading.
func TestReportWasmApportioned(t *testing.T) {
	d := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, wasmStacks(), 0)
	for _, tt := range []struct {
		apportioned bool
		want        bool
	}{{false, false}, {true, true}} {
		d.WasmApportioned = tt.apportioned
		r, err := NewReport(d, ReportOptions{By: ByWasm})
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, r.WriteText(&out))
		assert.Equal(t, tt.want, bytes.Contains(out.Bytes(), []byte("Wasm functions' instructions (apportioned)")), "apportioned %v", tt.apportioned)
	}
}

// TestDiffWasm: Wasm functions aligned by name, with their self
// instructions in each, the change and the ratio.
func TestDiffWasm(t *testing.T) {
	base := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, wasmStacks(), 0)
	// The new engine: FindShape cheaper, AddSlow dearer, free gone, a new
	// helper under add; GetProp at another index.
	wGetProp2 := jsprofile.WasmFrame(20, "GetProp", "", 0, 0x200)
	wAddFast := jsprofile.WasmFrame(21, "AddFast", "", 0, 0x210)
	js := func(fs ...jsprofile.Frame) []jsprofile.Frame {
		return append([]jsprofile.Frame{wStart, wMain, jF}, fs...)
	}
	const nShape, nProp, nAddSlow, nAddFast, nInline = 60, 40, 90, 12, 45
	new := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, []wasmStack{
		{js(oGetField, wGetProp2, wFindShape), nShape},
		{js(oGetField, wGetProp2), nProp},
		{js(oAdd, wAddSlow), nAddSlow},
		{js(oAdd, wAddFast), nAddFast},
		{js(oAdd), nInline},
	}, 0)
	df := NewDiff(base, new, "base.pb.gz", "new.pb.gz")

	byName := map[string]WasmDiff{}
	for _, w := range df.Wasm {
		byName[w.Name] = w
	}
	ratio := func(n, b float64) *float64 { r := n / b; return &r }
	tests := []struct {
		name      string
		only      string
		base, new *WasmSide
		delta     int64
		ratio     *float64
	}{
		{"FindShape", "", &WasmSide{11, sShape + sParse, sShape + sParse}, &WasmSide{11, nShape, nShape}, nShape - (sShape + sParse), ratio(nShape, sShape+sParse)},
		{"GetProp", "", &WasmSide{10, sProp, sShape + sProp + sParse + sGetter}, &WasmSide{20, nProp, nShape + nProp}, nProp - sProp, ratio(nProp, sProp)},
		{"AddSlow", "", &WasmSide{12, sAddSlow + sGetter, sAddSlow + sGetter}, &WasmSide{12, nAddSlow, nAddSlow}, nAddSlow - (sAddSlow + sGetter), ratio(nAddSlow, sAddSlow+sGetter)},
		{"free", OnlyBase, &WasmSide{16, sFree, sFree}, nil, -sFree, nil},
		{"AddFast", OnlyNew, nil, &WasmSide{21, nAddFast, nAddFast}, nAddFast, nil},
		{"_start", "", &WasmSide{1, 0, sShape + sProp + sAddSlow + sParse + sAddInline + sFree + sRec + sGetter},
			&WasmSide{1, 0, nShape + nProp + nAddSlow + nAddFast + nInline}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := byName[tt.name]
			require.True(t, ok)
			assert.Equal(t, tt.only, w.Only)
			assert.Equal(t, tt.base, w.Base)
			assert.Equal(t, tt.new, w.New)
			assert.Equal(t, tt.delta, w.DeltaSelfWasmInstructions)
			if tt.ratio == nil {
				assert.Nil(t, w.Ratio)
			} else {
				require.NotNil(t, w.Ratio)
				assert.InDelta(t, *tt.ratio, *w.Ratio, 1e-12)
			}
		})
	}
	// By the size of the change.
	for i := 1; i < len(df.Wasm); i++ {
		assert.GreaterOrEqual(t, abs64(df.Wasm[i-1].DeltaSelfWasmInstructions), abs64(df.Wasm[i].DeltaSelfWasmInstructions))
	}
	require.Len(t, df.WasmBuckets, 2)
	assert.Equal(t, WasmInterpreterName, df.WasmBuckets[0].Name)
	assert.Equal(t, int64(nInline-sAddInline), df.WasmBuckets[0].DeltaSelfWasmInstructions)
	assert.Equal(t, WasmNoFrameName, df.WasmBuckets[1].Name)
	assert.Equal(t, OnlyBase, df.WasmBuckets[1].Only)
	assert.Empty(t, df.WasmWarnings)

	for _, f := range []struct {
		ext   string
		write func(*bytes.Buffer) error
	}{
		{"txt", func(b *bytes.Buffer) error { return df.WriteWasmText(b, 4) }},
		{"csv", func(b *bytes.Buffer) error { return df.WriteWasmCSV(b) }},
		{"json", func(b *bytes.Buffer) error { return df.WriteWasmJSON(b) }},
	} {
		var out bytes.Buffer
		require.NoError(t, f.write(&out))
		golden(t, "diff-wasm."+f.ext, out.Bytes())
	}

	// Profiles without Wasm frames: said, and nothing aligned.
	none := NewDiff(readFixture(t, "fib-base.pb.gz"), readFixture(t, "fib-new.pb.gz"), "fib-base.pb.gz", "fib-new.pb.gz")
	assert.Empty(t, none.Wasm)
	assert.Equal(t, []string{
		"the base profile has no Wasm frames (jsprof run --mode sample records them)",
		"the new profile has no Wasm frames (jsprof run --mode sample records them)",
	}, none.WasmWarnings)
}

// TestReportWasmHTML: the report page lists the Wasm functions, then the
// view's buckets, each with what reached it; a profile without Wasm
// frames has no such table.
func TestReportWasmHTML(t *testing.T) {
	d := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, wasmStacks(), 0)
	r, err := NewReport(d, ReportOptions{Top: 3})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, r.WriteHTML(&page))
	html := page.String()
	assert.Equal(t, 3+len(d.WasmBuckets), strings.Count(html, `<tr class="wasm-function" `))
	assert.Contains(t, html, `<tr class="wasm-function" data-name="FindShape" data-kind="wasm"><td class="name">FindShape</td><td title="120">120</td>`)
	assert.Contains(t, html, `<span title="100 Wasm instructions">op:get_field</span>, <span title="20 Wasm instructions">JSON.parse (native)</span></td>`)
	assert.Contains(t, html, `… 6 more Wasm functions`)
	assert.Contains(t, html, `data-name="(interpreter loop)" data-kind="interpreter"`)

	r, err = NewReport(readFixture(t, "fib-base.pb.gz"), ReportOptions{})
	require.NoError(t, err)
	page.Reset()
	require.NoError(t, r.WriteHTML(&page))
	assert.NotContains(t, page.String(), `id="wasm"`)
}
