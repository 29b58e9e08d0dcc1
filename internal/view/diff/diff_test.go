package diff

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readFixture reads a fixture profile (reporttest.ProfilePath).
func readFixture(t *testing.T, name string) *report.Tables {
	t.Helper()
	return readTables(t, reporttest.ProfilePath(t, name))
}

// readReal reads one of the real profiles (reporttest.RealPath).
func readReal(t *testing.T, name string) *report.Tables {
	t.Helper()
	return readTables(t, reporttest.RealPath(name))
}

func readTables(t *testing.T, path string) *report.Tables {
	t.Helper()
	d, err := report.ReadFile(path)
	require.NoError(t, err)
	return d
}

// tablesOf computes the tables of a built profile.
func tablesOf(t *testing.T, p *profile.Profile) *report.Tables {
	t.Helper()
	d, err := report.FromProfile(p)
	require.NoError(t, err)
	return d
}

// fixtureDiff compares the fixture profiles, fib.js on two engines.
func fixtureDiff(t *testing.T) *Diff {
	t.Helper()
	return New(readFixture(t, "fib-base.pb.gz"), readFixture(t, "fib-new.pb.gz"), "fib-base.pb.gz", "fib-new.pb.gz")
}

func TestDiffAlignsByName(t *testing.T) {
	base, new := readFixture(t, "fib-base.pb.gz"), readFixture(t, "fib-new.pb.gz")
	df := New(base, new, "fib-base.pb.gz", "fib-new.pb.gz")

	assert.Equal(t, base.TotalWasmInstructions, df.Base.TotalWasmInstructions)
	assert.Equal(t, new.TotalWasmInstructions, df.New.TotalWasmInstructions)
	assert.Equal(t, int64(new.TotalWasmInstructions)-int64(base.TotalWasmInstructions), df.DeltaWasmInstructions)
	// The opcodes' and buckets' deltas add up to the totals' delta, and
	// each side to its profile's total.
	var sum int64
	var baseSum, newSum uint64
	for _, o := range df.Opcodes {
		sum += o.DeltaWasmInstructions
		if o.Base != nil {
			baseSum += o.Base.WasmInstructions
		}
		if o.New != nil {
			newSum += o.New.WasmInstructions
		}
	}
	for _, b := range df.Buckets {
		sum += b.DeltaWasmInstructions
		baseSum += b.BaseWasmInstructions
		newSum += b.NewWasmInstructions
	}
	assert.Equal(t, df.DeltaWasmInstructions, sum)
	assert.Equal(t, base.TotalWasmInstructions, baseSum)
	assert.Equal(t, new.TotalWasmInstructions, newSum)

	byName := map[string]Opcode{}
	for _, o := range df.Opcodes {
		byName[o.Name] = o
	}
	tests := []struct {
		name             string
		only             string
		baseOp, newOp    int
		deltaInstr       int64
		deltaPerExec     float64
		deltaExecutions  int64
		uncertainInEther bool
	}{
		{"call1", "", 36, 37, 4_641_280 - 5_911_000, (4_641_280.0 - 5_911_000.0) / 21892, 0, true},
		{"get_var", "", 55, 56, 1_313_580 - 1_050_864, 1_313_580.0/21893 - 1_050_864.0/21893, 0, false},
		{"(call setup)", "", 256, 256, 2_889_612 - 3_502_560, (2_889_612.0 - 3_502_560.0) / 21891, 0, false},
		{"get_loc", OnlyBase, 88, -1, -840, 0, -84, false},
		{"with_get_var", OnlyBase, 116, -1, -20, 0, -1, false},
		{"get_loc_check", OnlyNew, -1, 90, 1008, 0, 84, false},
		{"push_const8", OnlyNew, -1, 245, 24, 0, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := byName[tt.name]
			require.True(t, ok)
			assert.Equal(t, tt.only, o.Only)
			if tt.baseOp >= 0 {
				require.NotNil(t, o.Base)
				assert.Equal(t, tt.baseOp, o.Base.Opcode)
			} else {
				assert.Nil(t, o.Base)
			}
			if tt.newOp >= 0 {
				require.NotNil(t, o.New)
				assert.Equal(t, tt.newOp, o.New.Opcode)
			} else {
				assert.Nil(t, o.New)
			}
			assert.Equal(t, tt.deltaInstr, o.DeltaWasmInstructions)
			assert.Equal(t, tt.deltaExecutions, o.DeltaExecutions)
			assert.InDelta(t, tt.deltaPerExec, o.DeltaPerExecution, 1e-9)
			assert.Equal(t, tt.uncertainInEther, o.Uncertain())
		})
	}
	assert.Equal(t, "call1", df.Opcodes[0].Name, "largest change first")

	require.Len(t, df.Functions, 3)
	assert.Equal(t, "fib", df.Functions[0].Name)
	assert.Equal(t, uint64(0x10100), df.Functions[0].Base.Address)
	assert.Equal(t, uint64(0x20100), df.Functions[0].New.Address, "aligned by name, file and line, not address")
	assert.Empty(t, df.Functions[0].Only)
	assert.Equal(t, []Bucket{
		{"(native functions)", 183_004, 171_220, 171_220 - 183_004},
		{"(outside JS)", 2_402_117, 3_114_950, 3_114_950 - 2_402_117},
	}, df.Buckets)
	assert.Equal(t, []string{"the base engine's names of 1 opcode are guesses (marked ?)"}, df.Warnings)
}

func TestDiffWarnings(t *testing.T) {
	a := reporttest.Fixture{Functions: []reporttest.JSFn{{Name: "f", File: "a.js", Line: 1, Addr: 0x10, Calls: 1}},
		Samples: []reporttest.OpSample{{Fn: "f", Line: 1, Op: "op_3", Value: 3, Instr: 10, Execs: 1}}}.Build(t)
	b := reporttest.Fixture{Mode: "exact", Names: "table", Functions: []reporttest.JSFn{{Name: "g", File: "b.js", Line: 1, Addr: 0x10, Calls: 1}},
		Samples: []reporttest.OpSample{{Fn: "g", Line: 1, Op: "add", Value: 3, Instr: 10, Execs: 1}}}.Build(t)
	da, db := tablesOf(t, a), tablesOf(t, b)
	db.Mode = "sample"
	df := New(da, db, "a", "b")
	assert.Equal(t, []string{
		"the base engine's opcodes have no names: they are aligned by their op_N placeholders, which differ between releases",
		"the base was measured in exact mode, the new in sample mode: the opcode executions and calls, and where instructions are placed, differ by mode, not only by engine",
		"no JS function is in both profiles: are they of the same JS?",
	}, df.Warnings)
}

func TestDiffGolden(t *testing.T) {
	df := fixtureDiff(t)
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"diff.txt", func(b *bytes.Buffer) error { return df.WriteText(b, 0) }},
		{"diff-top3.txt", func(b *bytes.Buffer) error { return df.WriteText(b, 3) }},
		{"diff.csv", func(b *bytes.Buffer) error { return df.WriteCSV(b) }},
		{"diff.json", func(b *bytes.Buffer) error { return df.WriteJSON(b) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, tt.write(&out))
			reporttest.Golden(t, tt.name, out.Bytes())
		})
	}
}

// TestDiffFormatsAgree: the CSV's and JSON's totals are the profiles'.
func TestDiffFormatsAgree(t *testing.T) {
	df := fixtureDiff(t)
	var csvOut, jsonOut bytes.Buffer
	require.NoError(t, df.WriteCSV(&csvOut))
	require.NoError(t, df.WriteJSON(&jsonOut))
	rows, err := csv.NewReader(&csvOut).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	total := rows[1]
	assert.Equal(t, "total", total[col["kind"]])
	assert.Equal(t, strconv.FormatUint(df.Base.TotalWasmInstructions, 10), total[col["base_wasm_instructions"]])
	assert.Equal(t, strconv.FormatUint(df.New.TotalWasmInstructions, 10), total[col["new_wasm_instructions"]])
	var sum int64
	for _, r := range rows[2:] {
		if r[col["kind"]] == "opcode" || r[col["kind"]] == "bucket" {
			d, err := strconv.ParseInt(r[col["delta_wasm_instructions"]], 10, 64)
			require.NoError(t, err)
			sum += d
		}
	}
	assert.Equal(t, df.DeltaWasmInstructions, sum)

	var back Diff
	require.NoError(t, json.Unmarshal(jsonOut.Bytes(), &back))
	// The Wasm and line views have documents of their own (WriteWasmJSON,
	// WriteLineJSON).
	want := *df
	want.Wasm, want.WasmBuckets, want.WasmWarnings, want.Lines = nil, nil, nil, nil
	assert.Equal(t, want, back)
}

// TestDiffAlignsNatives: natives are aligned by name across engines, whose
// table indices differ; their change is in the summary.
func TestDiffAlignsNatives(t *testing.T) {
	base, next := tablesOf(t, reporttest.NativeProfile(t, 412, 1000)), tablesOf(t, reporttest.NativeProfile(t, 397, 1200))
	df := New(base, next, "base.pb.gz", "new.pb.gz")
	var parse *Function
	for i := range df.Functions {
		f := &df.Functions[i]
		assert.Empty(t, f.Only, f.Name)
		if f.Name == "JSON.parse" {
			parse = f
		}
	}
	require.NotNil(t, parse)
	assert.Equal(t, report.FunctionNative, parse.Kind)
	assert.Equal(t, int64(200), parse.DeltaWasmInstructions)
	assert.Equal(t, int64(200), df.DeltaNativeWasmInstructions)
	assert.Len(t, df.Functions, 5)
	assert.Contains(t, df.Summary, "in native functions it rose by 200")
	assert.Contains(t, df.Summary, "By function: JSON.parse (native) +200")
	var text bytes.Buffer
	require.NoError(t, df.WriteText(&text, 0))
	assert.Contains(t, text.String(), "JSON.parse (native)")
}

// TestDiffSharedKeyTotals: two anonymous functions on one line, the inner
// called from the outer (xs.map(x => ys.map(y => …)) in a bundle), share a
// Key. Their self costs add up; their total is what ran while either was
// on the stack, not the sum, which would count the inner one's twice.
func TestDiffSharedKeyTotals(t *testing.T) {
	t.Parallel()
	outer := jsprofile.JSFrame("anonymous@0x10", "app.js", 1, 1, 0x10, 0)
	inner := jsprofile.JSFrame("anonymous@0x20", "app.js", 1, 1, 0x20, 0)
	op := jsprofile.OpcodeFrame("add", 157)
	side := func(innerInstr int64) *report.Tables {
		return tablesOf(t, reporttest.WasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeExact}, []reporttest.WasmStack{
			{Frames: []jsprofile.Frame{outer, op}, Instr: 20},
			{Frames: []jsprofile.Frame{outer, inner, op}, Instr: innerInstr},
		}, 0))
	}
	base, next := side(100), side(150)
	require.Len(t, base.Functions, 2, "two functions in each profile")
	require.Equal(t, map[string]uint64{base.Functions[0].Key(): 120}, base.SharedKeyTotals)

	df := New(base, next, "base.pb.gz", "new.pb.gz")
	require.Len(t, df.Functions, 1, "one function by Key")
	f := df.Functions[0]
	assert.Equal(t, uint64(120), f.Base.SelfWasmInstructions)
	assert.Equal(t, uint64(120), f.Base.TotalWasmInstructions, "not 120 + 100")
	assert.Equal(t, uint64(170), f.New.TotalWasmInstructions, "not 170 + 150")

	// The negative control: functions that share no Key have no shared
	// total, and keep their own.
	apart := tablesOf(t, reporttest.WasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeExact}, []reporttest.WasmStack{
		{Frames: []jsprofile.Frame{outer, jsprofile.JSFrame("g", "app.js", 2, 2, 0x30, 0), op}, Instr: 100},
	}, 0))
	assert.Nil(t, apart.SharedKeyTotals)
}
