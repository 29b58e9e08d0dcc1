package diff

import (
	"bytes"
	"testing"

	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wasmTables are the tables of reporttest.WasmProfile.
func wasmTables(t *testing.T, meta jsprofile.Meta, stacks []reporttest.WasmStack, extra uint64) *report.Tables {
	t.Helper()
	return tablesOf(t, reporttest.WasmProfile(t, meta, stacks, extra))
}

// TestDiffWasm: Wasm functions aligned by name, with their self
// instructions in each, the change and the ratio.
func TestDiffWasm(t *testing.T) {
	base := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, reporttest.WasmStacks(), 0)
	// The new engine: FindShape cheaper, AddSlow dearer, free gone, a new
	// helper under add; GetProp at another index.
	wGetProp2 := jsprofile.WasmFrame(20, "GetProp", "", 0, 0x200)
	wAddFast := jsprofile.WasmFrame(21, "AddFast", "", 0, 0x210)
	const nShape, nProp, nAddSlow, nAddFast, nInline = 60, 40, 90, 12, 45
	new := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, []reporttest.WasmStack{
		{Frames: reporttest.JS(reporttest.OGetField, wGetProp2, reporttest.WFindShape), Instr: nShape},
		{Frames: reporttest.JS(reporttest.OGetField, wGetProp2), Instr: nProp},
		{Frames: reporttest.JS(reporttest.OAdd, reporttest.WAddSlow), Instr: nAddSlow},
		{Frames: reporttest.JS(reporttest.OAdd, wAddFast), Instr: nAddFast},
		{Frames: reporttest.JS(reporttest.OAdd), Instr: nInline},
	}, 0)
	df := New(base, new, "base.pb.gz", "new.pb.gz")

	byName := map[string]WasmFunction{}
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
		{"FindShape", "", &WasmSide{11, reporttest.SShape + reporttest.SParse, reporttest.SShape + reporttest.SParse}, &WasmSide{11, nShape, nShape}, nShape - (reporttest.SShape + reporttest.SParse), ratio(nShape, reporttest.SShape+reporttest.SParse)},
		{"GetProp", "", &WasmSide{10, reporttest.SProp, reporttest.SShape + reporttest.SProp + reporttest.SParse + reporttest.SGetter}, &WasmSide{20, nProp, nShape + nProp}, nProp - reporttest.SProp, ratio(nProp, reporttest.SProp)},
		{"AddSlow", "", &WasmSide{12, reporttest.SAddSlow + reporttest.SGetter, reporttest.SAddSlow + reporttest.SGetter}, &WasmSide{12, nAddSlow, nAddSlow}, nAddSlow - (reporttest.SAddSlow + reporttest.SGetter), ratio(nAddSlow, reporttest.SAddSlow+reporttest.SGetter)},
		{"free", OnlyBase, &WasmSide{16, reporttest.SFree, reporttest.SFree}, nil, -reporttest.SFree, nil},
		{"AddFast", OnlyNew, nil, &WasmSide{21, nAddFast, nAddFast}, nAddFast, nil},
		{"_start", "", &WasmSide{1, 0, reporttest.SShape + reporttest.SProp + reporttest.SAddSlow + reporttest.SParse + reporttest.SAddInline + reporttest.SFree + reporttest.SRec + reporttest.SGetter},
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
	assert.Equal(t, report.WasmInterpreterName, df.WasmBuckets[0].Name)
	assert.Equal(t, int64(nInline-reporttest.SAddInline), df.WasmBuckets[0].DeltaSelfWasmInstructions)
	assert.Equal(t, report.WasmNoFrameName, df.WasmBuckets[1].Name)
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
		reporttest.Golden(t, "diff-wasm."+f.ext, out.Bytes())
	}

	// Profiles without Wasm frames: said, and nothing aligned.
	none := New(readFixture(t, "fib-base.pb.gz"), readFixture(t, "fib-new.pb.gz"), "fib-base.pb.gz", "fib-new.pb.gz")
	assert.Empty(t, none.Wasm)
	assert.Equal(t, []string{
		"the base profile has no Wasm frames (jsprof run --mode sample records them)",
		"the new profile has no Wasm frames (jsprof run --mode sample records them)",
	}, none.WasmWarnings)
}
