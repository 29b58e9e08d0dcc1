package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// wasmTables are the tables of reporttest.WasmProfile.
func wasmTables(t *testing.T, meta jsprofile.Meta, stacks []reporttest.WasmStack, extra uint64) *Tables {
	t.Helper()
	return tablesOf(t, reporttest.WasmProfile(t, meta, stacks, extra))
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
	d := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, reporttest.WasmStacks(), reporttest.SMissed)
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
		{"FindShape", 11, reporttest.SShape + reporttest.SParse, reporttest.SShape + reporttest.SParse, []caller{{"op:get_field", reporttest.SShape, reporttest.SShape}, {"JSON.parse (native)", reporttest.SParse, reporttest.SParse}}},
		{"GetProp", 10, reporttest.SProp, reporttest.SShape + reporttest.SProp + reporttest.SParse + reporttest.SGetter,
			[]caller{{"op:get_field", reporttest.SProp, reporttest.SShape + reporttest.SProp + reporttest.SGetter}, {"JSON.parse (native)", 0, reporttest.SParse}}},
		{"AddSlow", 12, reporttest.SAddSlow + reporttest.SGetter, reporttest.SAddSlow + reporttest.SGetter, []caller{{"op:add", reporttest.SAddSlow + reporttest.SGetter, reporttest.SAddSlow + reporttest.SGetter}}},
		{"free", 16, reporttest.SFree, reporttest.SFree, []caller{{"(outside JS)", reporttest.SFree, reporttest.SFree}}},
		{"rec", 14, reporttest.SRec, reporttest.SRec, []caller{{"op:call_method", reporttest.SRec, reporttest.SRec}}},
		{"parse_json", 13, 0, reporttest.SParse, []caller{{"JSON.parse (native)", 0, reporttest.SParse}}},
		{"_start", 1, 0, reporttest.SShape + reporttest.SProp + reporttest.SAddSlow + reporttest.SParse + reporttest.SAddInline + reporttest.SFree + reporttest.SRec + reporttest.SGetter,
			[]caller{{"(outside JS)", 0, reporttest.SShape + reporttest.SProp + reporttest.SAddSlow + reporttest.SParse + reporttest.SAddInline + reporttest.SFree + reporttest.SRec + reporttest.SGetter}}},
		{"gc", 15, 0, reporttest.SFree, []caller{{"(outside JS)", 0, reporttest.SFree}}},
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
	assert.Equal(t, uint64(reporttest.SAddInline), interp.SelfWasmInstructions)
	assert.Equal(t, uint64(reporttest.SShape+reporttest.SProp+reporttest.SAddSlow+reporttest.SParse+reporttest.SAddInline+reporttest.SRec+reporttest.SGetter), interp.TotalWasmInstructions)
	add := callerNamed(interp.Callers, "op:add")
	require.NotNil(t, add)
	assert.Equal(t, uint64(reporttest.SAddInline), add.SelfWasmInstructions)
	assert.Equal(t, uint64(reporttest.SAddSlow+reporttest.SAddInline+reporttest.SGetter), add.TotalWasmInstructions, "the innermost opcode of each stack")
	none := d.WasmBuckets[1]
	assert.Equal(t, WasmNoFrameName, none.Name)
	assert.Equal(t, uint64(reporttest.SBucket), none.SelfWasmInstructions)
	assert.Equal(t, []WasmCaller{{Name: jsprofile.BucketOutside, Kind: CallerBucket, SelfWasmInstructions: reporttest.SBucket, TotalWasmInstructions: reporttest.SBucket}}, none.Callers)

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
	d := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10, Module: "app.wasm",
		Engine: jsprofile.EngineInfo{Family: "quickjs", Releases: []string{"2024-01-13"}, OpcodeNamesSource: "table"}}, reporttest.WasmStacks(), reporttest.SMissed)
	for _, tt := range []struct {
		name string
		top  int
	}{{"all", 0}, {"top3", 3}, {"top1", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReport(d, ReportOptions{By: ByWasm, Top: tt.top, Source: "app.pb.gz"})
			require.NoError(t, err)
			goldenFormats(t, r, "wasm-"+tt.name)
		})
	}
}

// TestReportWasmFormatsAgree: CSV and JSON carry the tables' exact counts.
func TestReportWasmFormatsAgree(t *testing.T) {
	d := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, reporttest.WasmStacks(), reporttest.SMissed)
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
	d := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, reporttest.WasmStacks(), 0)
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
