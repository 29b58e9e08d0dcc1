package profiler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// testOutcome is a small exact run's outcome: one JS function, f, whose
// add ran 10 instructions in all.
func testOutcome(t *testing.T) *Outcome {
	t.Helper()
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 10, CostModel: jsprofile.CostFuel})
	b.Add([]jsprofile.Frame{jsprofile.JSFrame("f", "app.js", 1, 2, 0x1000, 4), jsprofile.OpcodeFrame("add", 157)}, 10, 2, 0)
	p, err := b.Profile()
	require.NoError(t, err)
	tables, err := report.FromProfile(p)
	require.NoError(t, err)
	return &Outcome{Profile: p, Tables: tables}
}

// touch makes the file path, an input of a run.
func touch(t *testing.T, path string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte("input"), 0o644))
	return path
}

// TestOpenOutputsRefusesInputs: no output may be one of the files the run
// reads, those linking found included, nor another output; each refusal
// names both. Outputs apart from every input are opened (the negative
// control), and nothing is on disk before they are written.
func TestOpenOutputsRefusesInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	module := touch(t, filepath.Join(dir, "m.wasm"))
	source := touch(t, filepath.Join(dir, "app.js"))
	input := touch(t, filepath.Join(dir, "in.json"))
	plugin := touch(t, filepath.Join(dir, "plugin.wasm"))
	providers := filepath.Join(dir, "providers")
	require.NoError(t, os.Mkdir(providers, 0o755))
	provider := touch(t, filepath.Join(providers, "shopify_functions_javy_v2.wasm"))
	job := Job{ModulePath: module, Plugins: []string{plugin, providers}, Input: input, Profile: Options{Source: source}}
	linked := Linking{Plugin: &runner.Plugin{Name: plugin}, Provider: &shopify.Resolved{Path: provider}}
	out := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name   string
		paths  OutputPaths
		linked Linking
		want   string // "": opened
	}{
		{"apart", OutputPaths{Profile: out("p.pb.gz"), Collapsed: out("c.txt"), ReportJSON: out("r.json")}, linked, ""},
		{"profile only", OutputPaths{Profile: out("p.pb.gz")}, Linking{}, ""},
		{"the module", OutputPaths{Profile: module}, linked, "-o " + module + ": that is the module being run"},
		{"the source", OutputPaths{Profile: out("p.pb.gz"), ReportJSON: source}, linked, "--report-json " + source + ": that is the --source file"},
		{"the input", OutputPaths{Profile: out("p.pb.gz"), Collapsed: input}, linked, "--collapsed " + input + ": that is the --input file"},
		{"a plugin", OutputPaths{Profile: plugin}, Linking{}, "-o " + plugin + ": that is a --plugin"},
		{"the provider linked", OutputPaths{Profile: provider}, linked, "-o " + provider + ": that is the provider linked"},
		{"two outputs", OutputPaths{Profile: out("p.pb.gz"), Collapsed: out("p.pb.gz")}, linked, "-o and --collapsed both name " + out("p.pb.gz")},
		{"no directory", OutputPaths{Profile: out("none/p.pb.gz")}, linked, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var set outfile.Set
			o, err := OpenOutputs(&set, tt.paths, job, tt.linked)
			if tt.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				assert.Nil(t, o)
				return
			}
			require.NoError(t, err)
			defer o.Discard()
			for _, p := range []string{tt.paths.Profile, tt.paths.Collapsed, tt.paths.ReportJSON} {
				if p != "" {
					assert.NoFileExists(t, p, "nothing is written before the guest ends")
				}
			}
		})
	}
}

// TestOutputsWrite: Write writes each output opened, and only those: the
// profile as it is, its collapsed stacks, and the report's summary view
// as JSON, naming the profile's file, with the inputs' table.
// Discard after Write leaves the files written; Discard alone, none.
func TestOutputsWrite(t *testing.T) {
	t.Parallel()
	want := testOutcome(t)
	tests := []struct {
		name       string
		collapsed  bool
		reportJSON bool
		inputs     []report.InputRun
	}{
		{"profile", false, false, nil},
		{"all", true, true, nil},
		{"inputs", false, true, []report.InputRun{{Input: "a.json", TotalWasmInstructions: 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			paths := OutputPaths{Profile: filepath.Join(dir, "p.pb.gz")}
			if tt.collapsed {
				paths.Collapsed = filepath.Join(dir, "c.txt")
			}
			if tt.reportJSON {
				paths.ReportJSON = filepath.Join(dir, "r.json")
			}
			var set outfile.Set
			o, err := OpenOutputs(&set, paths, Job{}, Linking{})
			require.NoError(t, err)
			require.NoError(t, o.Write(want, tt.inputs))
			o.Discard()

			got, err := jsprofile.ReadFile(paths.Profile)
			require.NoError(t, err)
			assert.Equal(t, uint64(10), got.Meta.TotalInstructions)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1+btoi(tt.collapsed)+btoi(tt.reportJSON), "the outputs asked for, and no temporary file")
			if tt.collapsed {
				c, err := os.ReadFile(paths.Collapsed)
				require.NoError(t, err)
				assert.Contains(t, string(c), "f")
				assert.Contains(t, string(c), " 10\n")
			}
			if tt.reportJSON {
				b, err := os.ReadFile(paths.ReportJSON)
				require.NoError(t, err)
				var doc struct {
					Profile               string
					TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
					Inputs                []struct{ Input string }
				}
				require.NoError(t, json.Unmarshal(b, &doc), string(b))
				assert.Equal(t, "p.pb.gz", doc.Profile)
				assert.Equal(t, uint64(10), doc.TotalWasmInstructions, string(b))
				assert.Len(t, doc.Inputs, len(tt.inputs), string(b))
			}
		})
	}

	t.Run("discarded", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var set outfile.Set
		o, err := OpenOutputs(&set, OutputPaths{Profile: filepath.Join(dir, "p.pb.gz"), ReportJSON: filepath.Join(dir, "r.json")}, Job{}, Linking{})
		require.NoError(t, err)
		o.Discard()
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries)
		(*Outputs)(nil).Discard() // no outputs: nothing to release
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestOutDir: each input's profile is named after its file, in the
// folder made for them; two inputs of one name are refused, naming both,
// and nothing is made.
func TestOutDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		inputs []string
		want   []string // names in the folder
		err    string
	}{
		{"names", []string{"in/a.json", "b.json", "other/c"}, []string{"a.pb.gz", "b.pb.gz", "c.pb.gz"}, ""},
		{"none", nil, []string{}, ""},
		{"one name twice", []string{"x/a.json", "y/a.json"}, nil, "x/a.json and y/a.json would both be "},
		{"extension aside", []string{"a.json", "a.txt"}, nil, "a.json and a.txt would both be "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "out")
			names, err := OutDir(tt.inputs, dir)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.NoDirExists(t, dir)
				return
			}
			require.NoError(t, err)
			assert.DirExists(t, dir)
			got := []string{}
			for _, n := range names {
				assert.Equal(t, dir, filepath.Dir(n))
				got = append(got, filepath.Base(n))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestWriteEach: each run's profile is written to its name; a run that
// made none (it failed, or was not profiled) writes nothing.
func TestWriteEach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := testOutcome(t)
	runs := []InputRun{
		{Input: "a.json", Done: &Done{Outcome: out}},
		{Input: "b.json", Err: os.ErrNotExist},
		{Input: "c.json", Done: &Done{}},
		{Input: "d.json", Done: &Done{Outcome: out}},
	}
	names, err := OutDir([]string{"a.json", "b.json", "c.json", "d.json"}, dir)
	require.NoError(t, err)
	var set outfile.Set
	require.NoError(t, WriteEach(&set, runs, names))
	for i, want := range []bool{true, false, false, true} {
		if !want {
			assert.NoFileExists(t, names[i])
			continue
		}
		got, err := jsprofile.ReadFile(names[i])
		require.NoError(t, err)
		assert.Equal(t, uint64(10), got.Meta.TotalInstructions)
	}

	// A name that cannot be written is the error, naming it.
	bad := []string{filepath.Join(dir, "missing", "a.pb.gz")}
	err = WriteEach(&set, runs[:1], bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad[0])
}
