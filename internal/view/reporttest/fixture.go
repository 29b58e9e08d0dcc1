package reporttest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files and fixture profiles under testdata")

// Update reports whether the tests run with -update: golden files, the
// fixture profiles and the documentation's screenshots are rewritten
// rather than checked.
func Update() bool { return *update }

// JSFn is a JS function of a fixture profile.
type JSFn struct {
	Name, File string
	Line       int
	Addr       uint64
	Calls      int64
}

// OpSample is one (JS function, line, opcode, instructions, executions)
// tuple: an exact-mode sample.
type OpSample struct {
	Fn     string
	Line   int
	Op     string // name without op:
	Value  int    // opcode value in this engine
	Instr  int64
	Execs  int64
	Handle []string // Wasm frames of the handler, outermost first (sampling mode)
}

// Bucket is instructions outside JS.
type Bucket struct {
	Name  string // "(outside JS)" or "(native functions)"
	Instr int64
}

// Fixture describes a profile as jsprof writes it
// (docs/profile-format.md), built by Build.
type Fixture struct {
	Mode                               string
	Family, Releases, Names, Uncertain string
	Module                             string
	ExitCode                           int
	Functions                          []JSFn
	Samples                            []OpSample
	Buckets                            []Bucket
	TotalDelta                         int64    // added to the total comment (to break it)
	ExtraComments                      []string // after the standard ones
	OmitComments                       bool
}

// Build makes the pprof profile: one Function per JS function, opcode,
// Wasm function and bucket; exact-mode stacks JS frame → opcode frame;
// a calls sample per function on a stack ending at its frame.
func (fp Fixture) Build(t testing.TB) *profile.Profile {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "wasm_instructions", Unit: "count"},
			{Type: "opcode_executions", Unit: "count"},
			{Type: "calls", Unit: "count"},
		},
		DefaultSampleType: "wasm_instructions",
	}
	fns := map[string]*profile.Function{}
	function := func(name, sys, file string, start int64) *profile.Function {
		if f := fns[sys]; f != nil {
			return f
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: sys, Filename: file, StartLine: start}
		p.Function = append(p.Function, f)
		fns[sys] = f
		return f
	}
	locs := map[string]*profile.Location{}
	location := func(f *profile.Function, addr uint64, line int64) *profile.Location {
		key := fmt.Sprintf("%d/%d/%d", f.ID, addr, line)
		if l := locs[key]; l != nil {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Address: addr, Line: []profile.Line{{Function: f, Line: line}}}
		p.Location = append(p.Location, l)
		locs[key] = l
		return l
	}
	byName := map[string]JSFn{}
	var total int64
	for _, f := range fp.Functions {
		byName[f.Name] = f
		jf := function(f.Name, fmt.Sprintf("js:%s@%#x", f.Name, f.Addr), f.File, int64(f.Line))
		if f.Calls > 0 {
			p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{location(jf, f.Addr, int64(f.Line))}, Value: []int64{0, 0, f.Calls}})
		}
	}
	for i, s := range fp.Samples {
		f, ok := byName[s.Fn]
		require.True(t, ok, "sample %d: no function %s", i, s.Fn)
		jf := fns[fmt.Sprintf("js:%s@%#x", f.Name, f.Addr)]
		of := function("op:"+s.Op, fmt.Sprintf("op:%d", s.Value), "", 0)
		// The pc: any address inside the function, one per (line, opcode).
		pc := f.Addr + uint64(s.Line)*16 + uint64(s.Value%16)
		stack := []*profile.Location{location(of, 0, 0), location(jf, pc, int64(s.Line))}
		for k, h := range s.Handle {
			wf := function(h, fmt.Sprintf("wasm:%d", 100+k), "", 0)
			stack = append([]*profile.Location{location(wf, uint64(0x1000+k), 0)}, stack...)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{s.Instr, s.Execs, 0}})
		total += s.Instr
	}
	for _, b := range fp.Buckets {
		sys := map[string]string{"(outside JS)": "bucket:outside", "(native functions)": "bucket:native"}[b.Name]
		require.NotEmpty(t, sys, "bucket %s", b.Name)
		bf := function(b.Name, sys, "", 0)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{location(bf, 0, 0)}, Value: []int64{b.Instr, 0, 0}})
		total += b.Instr
	}
	if !fp.OmitComments {
		mode := fp.Mode
		if mode == "" {
			mode = "exact"
		}
		p.Comments = []string{
			"jsprof.mode=" + mode,
			fmt.Sprintf("jsprof.total_wasm_instructions=%d", total+fp.TotalDelta),
			"jsprof.engine.family=" + fp.Family,
			"jsprof.engine.releases=" + fp.Releases,
			"jsprof.engine.opcode_names_source=" + fp.Names,
			"jsprof.engine.uncertain_opcodes=" + fp.Uncertain,
			"jsprof.module=" + fp.Module,
			fmt.Sprintf("jsprof.exit_code=%d", fp.ExitCode),
		}
	}
	p.Comments = append(p.Comments, fp.ExtraComments...)
	require.NoError(t, p.CheckValid())
	return p
}

// The fixture profiles: fib.js on two engines, with opcode values that
// differ between them (the real numbering of each line of QuickJS does).
var (
	fibFunctions = func(base uint64) []JSFn {
		return []JSFn{
			{Name: "fib", File: "function.mjs", Line: 1, Addr: base + 0x100, Calls: 21891},
			{Name: "fibLoop", File: "function.mjs", Line: 7, Addr: base + 0x200, Calls: 1},
			{Name: "<eval>", File: "function.mjs", Line: 1, Addr: base, Calls: 1},
		}
	}

	// BaseFixture: a Bellard QuickJS of early 2024, one name uncertain.
	BaseFixture = Fixture{
		Family: "quickjs", Releases: "2024-01-13,2024-02-14", Names: "aligned-table", Uncertain: "36", Module: "fib-base.wasm",
		Functions: fibFunctions(0x10000),
		Samples: []OpSample{
			{"fib", 1, "(call setup)", 256, 3_502_560, 21891, nil},
			{"fib", 2, "get_arg0", 198, 218_910, 21891, nil},
			{"fib", 2, "push_2", 180, 131_346, 21891, nil},
			{"fib", 2, "lt", 164, 459_711, 21891, nil},
			{"fib", 2, "if_false8", 236, 284_583, 21891, nil},
			{"fib", 2, "return", 40, 601_255, 10946, nil},
			{"fib", 3, "get_arg0", 198, 109_450, 10945, nil},
			{"fib", 3, "dec", 145, 153_230, 10945, nil},
			{"fib", 3, "get_var", 55, 1_050_720, 21890, nil},
			{"fib", 3, "call1", 36, 5_910_300, 21890, nil},
			{"fib", 3, "push_2", 180, 65_670, 10945, nil},
			{"fib", 3, "sub", 159, 240_790, 10945, nil},
			{"fib", 3, "add", 157, 328_350, 10945, nil},
			{"fib", 3, "return", 40, 601_975, 10945, nil},
			{"fibLoop", 8, "push_0", 179, 12, 2, nil},
			{"fibLoop", 10, "get_loc", 88, 840, 84, nil},
			{"fibLoop", 11, "add", 157, 600, 20, nil},
			{"fibLoop", 10, "inc_loc", 154, 400, 20, nil},
			{"fibLoop", 15, "return", 40, 55, 1, nil},
			{"<eval>", 19, "get_var", 55, 144, 3, nil},
			{"<eval>", 19, "call1", 36, 700, 2, nil},
			{"<eval>", 20, "strict_neq", 172, 30, 1, nil},
			{"<eval>", 23, "add", 157, 2_400, 4, nil},
			{"<eval>", 23, "call_method", 38, 900, 1, nil},
			{"<eval>", 23, "with_get_var", 116, 20, 1, nil},
		},
		Buckets: []Bucket{{"(outside JS)", 2_402_117}, {"(native functions)", 183_004}},
	}

	// NewFixture: QuickJS-NG v0.10, other opcode values, a cheaper call,
	// a costlier get_var, and opcodes the other lacks.
	NewFixture = Fixture{
		Family: "quickjs-ng", Releases: "v0.10.0,v0.10.1", Names: "table", Module: "fib-new.wasm",
		Functions: fibFunctions(0x20000),
		Samples: []OpSample{
			{"fib", 1, "(call setup)", 256, 2_889_612, 21891, nil},
			{"fib", 2, "get_arg0", 192, 218_910, 21891, nil},
			{"fib", 2, "push_2", 174, 131_346, 21891, nil},
			{"fib", 2, "lt", 160, 481_602, 21891, nil},
			{"fib", 2, "if_false8", 230, 284_583, 21891, nil},
			{"fib", 2, "return", 41, 579_358, 10946, nil},
			{"fib", 3, "get_arg0", 192, 109_450, 10945, nil},
			{"fib", 3, "dec", 141, 153_230, 10945, nil},
			{"fib", 3, "get_var", 56, 1_313_400, 21890, nil},
			{"fib", 3, "call1", 37, 4_640_680, 21890, nil},
			{"fib", 3, "push_2", 174, 65_670, 10945, nil},
			{"fib", 3, "sub", 155, 240_790, 10945, nil},
			{"fib", 3, "add", 153, 328_350, 10945, nil},
			{"fib", 3, "return", 41, 579_085, 10945, nil},
			{"fibLoop", 8, "push_0", 173, 12, 2, nil},
			{"fibLoop", 10, "get_loc_check", 90, 1008, 84, nil},
			{"fibLoop", 11, "add", 153, 600, 20, nil},
			{"fibLoop", 10, "inc_loc", 150, 400, 20, nil},
			{"fibLoop", 15, "return", 41, 52, 1, nil},
			{"<eval>", 19, "get_var", 56, 180, 3, nil},
			{"<eval>", 19, "call1", 37, 600, 2, nil},
			{"<eval>", 20, "strict_neq", 168, 30, 1, nil},
			{"<eval>", 23, "add", 153, 2_400, 4, nil},
			{"<eval>", 23, "call_method", 39, 800, 1, nil},
			{"<eval>", 23, "push_const8", 245, 24, 2, nil},
		},
		Buckets: []Bucket{{"(outside JS)", 3_114_950}, {"(native functions)", 171_220}},
	}
)

// fixtureFiles are the fixture profiles of testdata, rewritten by -update
// and read by the golden tests of report, diff and htmlview and by
// cmd/jsprof's tests.
var fixtureFiles = map[string]Fixture{
	"fib-base.pb.gz": BaseFixture,
	"fib-new.pb.gz":  NewFixture,
}

// dir is this package's directory, whose testdata holds the profiles
// that the tests of several packages read.
func dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("reporttest: no caller information")
	}
	return filepath.Dir(file)
}

// ProfilePath returns the path of a fixture profile (fib-base.pb.gz,
// fib-new.pb.gz), written from its description with -update and checked
// against it otherwise.
func ProfilePath(t testing.TB, name string) string {
	t.Helper()
	fp, ok := fixtureFiles[name]
	require.True(t, ok, name)
	path := filepath.Join(dir(), "testdata", name)
	var want bytes.Buffer
	require.NoError(t, fp.Build(t).Write(&want))
	have, err := os.ReadFile(path)
	if *update && !bytes.Equal(want.Bytes(), have) {
		replaceFile(t, path, want.Bytes())
		have, err = want.Bytes(), nil
	}
	require.NoError(t, err, "go test ./internal/view/... -update writes it")
	require.True(t, bytes.Equal(want.Bytes(), have), "%s is not what its description builds (go test ./internal/view/... -update rewrites it)", path)
	return path
}

// replaceFile writes a file whole, through a temporary one: the tests of
// several packages read the fixture profiles, perhaps while one rewrites
// them, and never see one half written.
func replaceFile(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	require.NoError(t, err)
	_, err = tmp.Write(data)
	require.NoError(t, errors.Join(err, tmp.Chmod(0o644), tmp.Close()))
	require.NoError(t, os.Rename(tmp.Name(), path))
}

// RealPath returns the path of one of the real profiles of
// testdata/real (make.sh writes them).
func RealPath(name string) string { return filepath.Join(dir(), "testdata", "real", name) }

// Golden compares got with the test's package's testdata/golden/name, or
// rewrites it with -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), string(got), "%s differs (go test -update rewrites it)", path)
}
