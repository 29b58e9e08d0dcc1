package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readFixture reads a fixture profile from its file, as jsprof report does.
func readFixture(t *testing.T, name string) *Tables {
	t.Helper()
	return readTables(t, reporttest.ProfilePath(t, name))
}

// readReal reads one of the real profiles (reporttest.RealPath).
func readReal(t *testing.T, name string) *Tables {
	t.Helper()
	return readTables(t, reporttest.RealPath(name))
}

// goldenFormats checks the report in text, CSV and JSON against the
// goldens name.txt, name.csv and name.json.
func goldenFormats(t *testing.T, r *Report, name string) {
	t.Helper()
	for _, f := range []struct {
		ext   string
		write func(io.Writer) error
	}{{"txt", r.WriteText}, {"csv", r.WriteCSV}, {"json", r.WriteJSON}} {
		var out bytes.Buffer
		require.NoError(t, f.write(&out))
		reporttest.Golden(t, name+"."+f.ext, out.Bytes())
	}
}

func readTables(t *testing.T, path string) *Tables {
	t.Helper()
	d, err := ReadFile(path)
	require.NoError(t, err)
	return d
}

// tablesOf computes the tables of a built profile.
func tablesOf(t *testing.T, p *profile.Profile) *Tables {
	t.Helper()
	d, err := FromProfile(p)
	require.NoError(t, err)
	return d
}

func TestReportReadProfile(t *testing.T) {
	d := readFixture(t, "fib-base.pb.gz")
	// The file matches its description.
	var sum uint64
	for _, s := range reporttest.BaseFixture.Samples {
		sum += uint64(s.Instr)
	}
	for _, b := range reporttest.BaseFixture.Buckets {
		sum += uint64(b.Instr)
	}
	assert.Equal(t, sum, d.TotalWasmInstructions)
	assert.Equal(t, d.TotalWasmInstructions, d.SampledWasmInstructions)
	assert.Equal(t, "exact", d.Mode)
	assert.Equal(t, jsprofile.EngineInfo{Family: "quickjs", Releases: []string{"2024-01-13", "2024-02-14"}, OpcodeNamesSource: "aligned-table"}, d.Engine)
	assert.Equal(t, []int{36}, d.UncertainOpcodes)
	assert.Equal(t, "fib-base.wasm", d.Module)
	require.NotNil(t, d.ExitCode)
	assert.Equal(t, 0, *d.ExitCode)
	var calls uint64
	for _, f := range reporttest.BaseFixture.Functions {
		calls += uint64(f.Calls)
	}
	assert.Equal(t, calls, d.Calls)

	// Opcodes and buckets add up to the total; functions and buckets too;
	// lines and buckets too.
	var ops, fns, lines, buckets uint64
	for _, o := range d.Opcodes {
		ops += o.WasmInstructions
	}
	for _, f := range d.Functions {
		fns += f.SelfWasmInstructions
		assert.Equal(t, f.SelfWasmInstructions, f.TotalWasmInstructions, "exact mode: one JS frame per stack")
	}
	for _, l := range d.Lines {
		lines += l.SelfWasmInstructions
		assert.Equal(t, l.SelfWasmInstructions, l.TotalWasmInstructions, "exact mode: one JS frame per stack")
	}
	for _, b := range d.Buckets {
		buckets += b.WasmInstructions
	}
	assert.Equal(t, d.TotalWasmInstructions, ops+buckets)
	assert.Equal(t, d.TotalWasmInstructions, fns+buckets)
	assert.Equal(t, d.TotalWasmInstructions, lines+buckets)
	assert.Equal(t, []BucketCost{{"(native functions)", 183_004}, {"(outside JS)", 2_402_117}}, d.Buckets)

	// Each opcode's row is what the fixture's samples of it add up to,
	// across functions and lines.
	for _, tt := range []struct {
		name   string
		opcode int
		uncert bool
	}{
		{"call1", 36, true},
		{"(call setup)", 256, false},
		{"get_arg0", 198, false},
		{"add", 157, false},
		{"with_get_var", 116, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var execs, instr uint64
			for _, s := range reporttest.BaseFixture.Samples {
				if s.Op == tt.name {
					execs += uint64(s.Execs)
					instr += uint64(s.Instr)
				}
			}
			require.NotZero(t, execs, "the fixture has %s", tt.name)
			o := opcodeNamed(d.Opcodes, tt.name)
			require.NotNil(t, o)
			assert.Equal(t, tt.opcode, o.Opcode)
			assert.Equal(t, execs, o.Executions)
			assert.Equal(t, instr, o.WasmInstructions)
			assert.InDelta(t, float64(instr)/float64(execs), o.PerExecution, 1e-9)
			assert.InDelta(t, float64(instr)/float64(d.TotalWasmInstructions), o.Share, 1e-12)
			assert.Equal(t, tt.uncert, o.UncertainName)
		})
	}
	assert.Equal(t, "call1", d.Opcodes[0].Name, "sorted by instructions")

	fib := d.Functions[0]
	assert.Equal(t, "fib", fib.Name)
	assert.Equal(t, "function.mjs", fib.File)
	assert.Equal(t, 1, fib.Line)
	assert.Equal(t, uint64(0x10100), fib.Address)
	assert.Equal(t, uint64(21891), fib.Calls)
	assert.Equal(t, "fib (function.mjs:1)", fib.Label())
	c := opcodeNamed(fib.Opcodes, "call1")
	require.NotNil(t, c)
	assert.Equal(t, uint64(21890), c.Executions, "fib's own call1, not <eval>'s")

	// The heaviest line is fib's line 3: what the fixture's samples there
	// add up to.
	line3 := LineStats{Function: "fib", FunctionLine: 1, File: "function.mjs", Line: 3}
	for _, s := range reporttest.BaseFixture.Samples {
		if s.Fn == "fib" && s.Line == 3 {
			line3.Executions += uint64(s.Execs)
			line3.SelfWasmInstructions += uint64(s.Instr)
		}
	}
	line3.TotalWasmInstructions = line3.SelfWasmInstructions
	line3.Share = float64(line3.SelfWasmInstructions) / float64(d.TotalWasmInstructions)
	line3.TotalShare = line3.Share
	assert.Equal(t, line3, d.Lines[0])
}

func opcodeNamed(ops []OpcodeStats, name string) *OpcodeStats {
	for i := range ops {
		if ops[i].Name == name {
			return &ops[i]
		}
	}
	return nil
}

// TestReportSampleMode: full stacks, nested interpreter activations: the
// innermost JS frame and the opcode under it take the sample; every JS
// function on the stack its cumulative cost.
func TestReportSampleMode(t *testing.T) {
	// The instructions of each sample, and the run's total (the profile's
	// comment: more than the samples hold).
	const outer, inner, bucketed, wasmOnlyStack, total = 1000, 300, 50, 25, 1400
	p := reporttest.Fixture{Mode: "sample", Family: "quickjs-ng", Functions: []reporttest.JSFn{
		{Name: "outer", File: "a.js", Line: 1, Addr: 0x100, Calls: 1},
		{Name: "inner", File: "a.js", Line: 9, Addr: 0x200, Calls: 3},
	}, Samples: []reporttest.OpSample{
		{Fn: "outer", Line: 2, Op: "call1", Value: 36, Instr: outer, Execs: 1, Handle: []string{"JS_CallInternal"}},
		{Fn: "inner", Line: 10, Op: "add", Value: 150, Instr: inner, Execs: 3, Handle: []string{"JS_CallInternal", "js_add_slow"}},
	}, Buckets: []reporttest.Bucket{{Name: "(outside JS)", Instr: bucketed}}}.Build(t)
	// Nest inner under outer's call1, as a sampled stack would be.
	var innerSample *profile.Sample
	var outerStack []*profile.Location
	for _, s := range p.Sample {
		if s.Value[0] == inner {
			innerSample = s
		}
		if s.Value[0] == outer {
			outerStack = s.Location
		}
	}
	innerSample.Location = append(innerSample.Location, outerStack...)
	// A sampled stack of Wasm frames only, no bucket frame: outside JS.
	wasmOnly := &profile.Function{ID: uint64(len(p.Function) + 1), Name: "_start", SystemName: "wasm:7"}
	p.Function = append(p.Function, wasmOnly)
	loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: wasmOnly}}}
	p.Location = append(p.Location, loc)
	p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{wasmOnlyStack, 0, 0}})
	p.Comments[1] = fmt.Sprint("jsprof.total_wasm_instructions=", total)

	d, err := FromProfile(p)
	require.NoError(t, err)
	assert.Equal(t, uint64(total), d.TotalWasmInstructions, "the profile's comment")
	assert.Equal(t, uint64(outer+inner+bucketed+wasmOnlyStack), d.SampledWasmInstructions)
	assert.Equal(t, []BucketCost{{"(outside JS)", bucketed + wasmOnlyStack}}, d.Buckets, "the bucket frame's and the Wasm-only stack's")
	require.Len(t, d.Functions, 2)
	assert.Equal(t, "outer", d.Functions[0].Name)
	assert.Equal(t, uint64(outer), d.Functions[0].SelfWasmInstructions)
	assert.Equal(t, uint64(outer+inner), d.Functions[0].TotalWasmInstructions, "inner runs under outer's call1")
	assert.Equal(t, uint64(inner), d.Functions[1].SelfWasmInstructions)
	assert.Equal(t, uint64(inner), d.Functions[1].TotalWasmInstructions)
	add := opcodeNamed(d.Opcodes, "add")
	require.NotNil(t, add)
	assert.Equal(t, uint64(inner), add.WasmInstructions, "the innermost opcode takes the sample")
	call := opcodeNamed(d.Opcodes, "call1")
	require.NotNil(t, call)
	assert.Equal(t, uint64(outer), call.WasmInstructions, "not the nested activation's cost")
	// Lines are charged as functions are: outer's line has inner's cost in
	// its total, the sum of the lines' self and the buckets is the samples'.
	var self uint64
	for _, l := range d.Lines {
		self += l.SelfWasmInstructions
		if l.Function == "outer" {
			assert.Equal(t, uint64(outer+inner), l.TotalWasmInstructions, "outer's line calls inner")
		} else {
			assert.Equal(t, l.SelfWasmInstructions, l.TotalWasmInstructions)
		}
	}
	assert.Equal(t, d.SampledWasmInstructions, self+bucketed+wasmOnlyStack)

	r, err := NewReport(d, ReportOptions{By: ByFunction})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.WriteText(&out))
	reporttest.Golden(t, "sample-by-function.txt", out.Bytes())
}

func TestReportReadProfileErrors(t *testing.T) {
	good := func() reporttest.Fixture {
		return reporttest.Fixture{Family: "quickjs", Functions: []reporttest.JSFn{{Name: "f", File: "a.js", Line: 1, Addr: 0x10, Calls: 1}},
			Samples: []reporttest.OpSample{{Fn: "f", Line: 1, Op: "add", Value: 3, Instr: 10, Execs: 1}}}
	}
	tests := []struct {
		name   string
		mutate func(p *profile.Profile)
		want   string
	}{
		{"a Go CPU profile", func(p *profile.Profile) {
			p.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
		}, "not a jsprof profile: its sample types are [samples/count cpu/nanoseconds], a jsprof profile's are [wasm_instructions/count opcode_executions/count calls/count]"},
		{"no comments", func(p *profile.Profile) { p.Comments = nil }, "not a jsprof profile: no jsprof.mode comment"},
		{"unknown mode", func(p *profile.Profile) { p.Comments[0] = "jsprof.mode=cpu" }, "jsprof.mode=cpu: want exact or sample"},
		{"no total", func(p *profile.Profile) { p.Comments = p.Comments[:1] }, "no jsprof.total_wasm_instructions comment"},
		{"bad total", func(p *profile.Profile) { p.Comments[1] = "jsprof.total_wasm_instructions=lots" }, "jsprof.total_wasm_instructions=lots: not a count"},
		{"exact total does not add up", func(p *profile.Profile) { p.Comments[1] = "jsprof.total_wasm_instructions=11" },
			"exact profile's samples sum to 10 wasm_instructions, but its jsprof.total_wasm_instructions comment says 11"},
		{"bad uncertain", func(p *profile.Profile) { p.Comments[5] = "jsprof.engine.uncertain_opcodes=1,x" }, `"x" is not an opcode value`},
		{"foreign function", func(p *profile.Profile) { p.Function[0].SystemName = "main.main" },
			`not a jsprof profile: function "f" has system_name "main.main", want js:, native:, op:, wasm: or bucket:`},
		{"opcode frame without a value", func(p *profile.Profile) { p.Function[1].SystemName = "op:add" }, `system_name "op:add": want op: and an opcode value 0-256`},
		{"negative value", func(p *profile.Profile) { p.Sample[1].Value[1] = -1 }, "sample 1: negative opcode_executions -1"},
		{"executions outside JS", func(p *profile.Profile) { p.Sample[1].Location = p.Sample[1].Location[:1] }, "opcode executions outside any JS function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good().Build(t)
			tt.mutate(p)
			_, err := FromProfile(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	dir := t.TempDir()
	notPprof := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notPprof, []byte("hello"), 0o644))
	_, err := ReadFile(notPprof)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "notes.txt: not a pprof profile")
	_, err = ReadFile(filepath.Join(dir, "missing.pb.gz"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.pb.gz")

	cpu := filepath.Join(dir, "cpu.pb.gz")
	p := good().Build(t)
	p.Comments = nil
	f, err := os.Create(cpu)
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())
	_, err = ReadFile(cpu)
	require.Error(t, err)
	assert.Equal(t, cpu+": not a jsprof profile: no jsprof.mode comment", err.Error())
}

// TestReportGolden: every view in every format, on the fixture profiles.
func TestReportGolden(t *testing.T) {
	tests := []struct {
		name    string
		profile string
		opts    ReportOptions
	}{
		{"base-by-opcode", "fib-base.pb.gz", ReportOptions{Source: "fib-base.pb.gz"}},
		{"base-by-opcode-top5", "fib-base.pb.gz", ReportOptions{Source: "fib-base.pb.gz", Top: 5}},
		{"base-by-function", "fib-base.pb.gz", ReportOptions{Source: "fib-base.pb.gz", By: ByFunction}},
		{"base-by-function-top3", "fib-base.pb.gz", ReportOptions{Source: "fib-base.pb.gz", By: ByFunction, Top: 3}},
		{"base-by-line", "fib-base.pb.gz", ReportOptions{Source: "fib-base.pb.gz", By: ByLine}},
		{"base-fibloop-by-opcode", "fib-base.pb.gz", ReportOptions{Source: "fib-base.pb.gz", Function: "fibLoop"}},
		{"new-by-opcode", "fib-new.pb.gz", ReportOptions{Source: "fib-new.pb.gz"}},
		{"new-fib-by-line", "fib-new.pb.gz", ReportOptions{Source: "fib-new.pb.gz", By: ByLine, Function: "fib"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReport(readFixture(t, tt.profile), tt.opts)
			require.NoError(t, err)
			goldenFormats(t, r, "report-"+tt.name)
		})
	}
}

// TestReportFormatsAgree: the CSV and JSON carry the exact counts the
// profile holds, and text the same rows, human-scaled.
func TestReportFormatsAgree(t *testing.T) {
	d := readFixture(t, "fib-base.pb.gz")
	r, err := NewReport(d, ReportOptions{})
	require.NoError(t, err)

	var csvOut, jsonOut, textOut bytes.Buffer
	require.NoError(t, r.WriteCSV(&csvOut))
	require.NoError(t, r.WriteJSON(&jsonOut))
	require.NoError(t, r.WriteText(&textOut))

	rows, err := csv.NewReader(&csvOut).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, len(d.Opcodes)+1)
	var doc struct {
		Total   uint64        `json:"total_wasm_instructions"`
		Opcodes []OpcodeStats `json:"opcodes"`
		Buckets []BucketCost  `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal(jsonOut.Bytes(), &doc))
	require.Equal(t, d.Opcodes, doc.Opcodes)
	var sum uint64
	for i, o := range d.Opcodes {
		row := rows[i+1]
		assert.Equal(t, o.Name, row[0])
		assert.Equal(t, strconv.Itoa(o.Opcode), row[1])
		assert.Equal(t, strconv.FormatUint(o.Executions, 10), row[3])
		assert.Equal(t, strconv.FormatUint(o.WasmInstructions, 10), row[4])
		pe, err := strconv.ParseFloat(row[5], 64)
		require.NoError(t, err)
		assert.Equal(t, o.PerExecution, pe, "CSV ratios round-trip")
		sum += o.WasmInstructions
		assert.Contains(t, textOut.String(), "\n"+o.Name)
	}
	for _, b := range doc.Buckets {
		sum += b.WasmInstructions
	}
	assert.Equal(t, doc.Total, sum)
	// Columns line up: every table row is as wide as the header.
	lines := strings.Split(textOut.String(), "\n")
	var header string
	for _, l := range lines {
		if strings.HasPrefix(l, "opcode ") {
			header = l
		}
	}
	require.NotEmpty(t, header)
	for _, l := range lines {
		if strings.HasSuffix(l, "%") {
			assert.Equal(t, len([]rune(header)), len([]rune(l)), "%q", l)
		}
	}
}

func TestReportOptionsErrors(t *testing.T) {
	d := readFixture(t, "fib-base.pb.gz")
	tests := []struct {
		opts ReportOptions
		want string
	}{
		{ReportOptions{By: "file"}, "--by file: want opcode, function, line, summary or wasm"},
		{ReportOptions{Top: -1}, "--top -1"},
		{ReportOptions{Function: "nope"}, `no JS function named "nope" in the profile (it has fib, <eval>, fibLoop)`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := NewReport(d, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestDiffFunctionKey: functions align by name, file and first line; an
// address in a name does not stop them aligning where file and line say
// which function it is.
func TestDiffFunctionKey(t *testing.T) {
	tests := []struct {
		a, b  FunctionStats
		align bool
	}{
		{FunctionStats{Name: "fib", File: "index.js", Line: 1, Address: 0x100}, FunctionStats{Name: "fib", File: "index.js", Line: 1, Address: 0x900}, true},
		{FunctionStats{Name: "fib", File: "index.js", Line: 1}, FunctionStats{Name: "fib", File: "index.js", Line: 7}, false},
		{FunctionStats{Name: "fib", File: "a.js", Line: 1}, FunctionStats{Name: "fib", File: "b.js", Line: 1}, false},
		{FunctionStats{Name: "anonymous@0x148ac4", File: "index.js", Line: 9}, FunctionStats{Name: "anonymous@0x1321bc", File: "index.js", Line: 9}, true},
		{FunctionStats{Name: "bytecode@0x148ac4"}, FunctionStats{Name: "bytecode@0x1321bc"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.a.Name+"/"+tt.b.Name, func(t *testing.T) {
			assert.Equal(t, tt.align, tt.a.Key() == tt.b.Key())
		})
	}
}

// TestLineNote: the line views warn of QuickJS-NG's coarse line table,
// and only of that engine's.
func TestLineNote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		family string
		want   bool
	}{{"quickjs-ng", true}, {"quickjs", false}, {"", false}} {
		d := &Tables{Engine: jsprofile.EngineInfo{Family: c.family}}
		assert.Equal(t, c.want, d.LineNote() != "", c.family)
	}
}
