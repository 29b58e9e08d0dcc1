package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files and fixture profiles under testdata")

// jsFn is a JS function of a fixture profile.
type jsFn struct {
	name, file string
	line       int
	addr       uint64
	calls      int64
}

// opSample is one (JS function, line, opcode, instructions, executions)
// tuple: an exact-mode sample.
type opSample struct {
	fn     string
	line   int
	op     string // name without op:
	value  int    // opcode value in this engine
	instr  int64
	execs  int64
	handle []string // Wasm frames of the handler, outermost first (sampling mode)
}

// bucket is instructions outside JS.
type bucket struct {
	name  string // "(outside JS)" or "(native functions)"
	instr int64
}

// fixtureProfile describes a profile as jsprof writes it
// (docs/profile-format.md), built by build.
type fixtureProfile struct {
	mode                               string
	family, releases, names, uncertain string
	module                             string
	exitCode                           int
	functions                          []jsFn
	samples                            []opSample
	buckets                            []bucket
	totalDelta                         int64    // added to the total comment (to break it)
	extraComments                      []string // after the standard ones
	omitComments                       bool
}

// build makes the pprof profile: one Function per JS function, opcode,
// Wasm function and bucket; exact-mode stacks JS frame → opcode frame;
// a calls sample per function on a stack ending at its frame.
func (fp fixtureProfile) build(t testing.TB) *profile.Profile {
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
	byName := map[string]jsFn{}
	var total int64
	for _, f := range fp.functions {
		byName[f.name] = f
		jf := function(f.name, fmt.Sprintf("js:%s@%#x", f.name, f.addr), f.file, int64(f.line))
		if f.calls > 0 {
			p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{location(jf, f.addr, int64(f.line))}, Value: []int64{0, 0, f.calls}})
		}
	}
	for i, s := range fp.samples {
		f, ok := byName[s.fn]
		require.True(t, ok, "sample %d: no function %s", i, s.fn)
		jf := fns[fmt.Sprintf("js:%s@%#x", f.name, f.addr)]
		of := function("op:"+s.op, fmt.Sprintf("op:%d", s.value), "", 0)
		// The pc: any address inside the function, one per (line, opcode).
		pc := f.addr + uint64(s.line)*16 + uint64(s.value%16)
		stack := []*profile.Location{location(of, 0, 0), location(jf, pc, int64(s.line))}
		for k, h := range s.handle {
			wf := function(h, fmt.Sprintf("wasm:%d", 100+k), "", 0)
			stack = append([]*profile.Location{location(wf, uint64(0x1000+k), 0)}, stack...)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{s.instr, s.execs, 0}})
		total += s.instr
	}
	for _, b := range fp.buckets {
		sys := map[string]string{"(outside JS)": "bucket:outside", "(native functions)": "bucket:native"}[b.name]
		require.NotEmpty(t, sys, "bucket %s", b.name)
		bf := function(b.name, sys, "", 0)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{location(bf, 0, 0)}, Value: []int64{b.instr, 0, 0}})
		total += b.instr
	}
	if !fp.omitComments {
		mode := fp.mode
		if mode == "" {
			mode = "exact"
		}
		p.Comments = []string{
			"jsprof.mode=" + mode,
			fmt.Sprintf("jsprof.total_wasm_instructions=%d", total+fp.totalDelta),
			"jsprof.engine.family=" + fp.family,
			"jsprof.engine.releases=" + fp.releases,
			"jsprof.engine.opcode_names_source=" + fp.names,
			"jsprof.engine.uncertain_opcodes=" + fp.uncertain,
			"jsprof.module=" + fp.module,
			fmt.Sprintf("jsprof.exit_code=%d", fp.exitCode),
		}
	}
	p.Comments = append(p.Comments, fp.extraComments...)
	require.NoError(t, p.CheckValid())
	return p
}

// The fixture profiles: fib.js on two engines, with opcode values that
// differ between them (the real numbering of each line of QuickJS does).
var (
	fibFunctions = func(base uint64) []jsFn {
		return []jsFn{
			{name: "fib", file: "function.mjs", line: 1, addr: base + 0x100, calls: 21891},
			{name: "fibLoop", file: "function.mjs", line: 7, addr: base + 0x200, calls: 1},
			{name: "<eval>", file: "function.mjs", line: 1, addr: base, calls: 1},
		}
	}

	// baseFixture: a Bellard QuickJS of early 2024, one name uncertain.
	baseFixture = fixtureProfile{
		family: "quickjs", releases: "2024-01-13,2024-02-14", names: "aligned-table", uncertain: "36", module: "fib-base.wasm",
		functions: fibFunctions(0x10000),
		samples: []opSample{
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
		buckets: []bucket{{"(outside JS)", 2_402_117}, {"(native functions)", 183_004}},
	}

	// newFixture: QuickJS-NG v0.10, other opcode values, a cheaper call,
	// a costlier get_var, and opcodes the other lacks.
	newFixture = fixtureProfile{
		family: "quickjs-ng", releases: "v0.10.0,v0.10.1", names: "table", module: "fib-new.wasm",
		functions: fibFunctions(0x20000),
		samples: []opSample{
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
		buckets: []bucket{{"(outside JS)", 3_114_950}, {"(native functions)", 171_220}},
	}
)

// fixtureFiles are the fixture profiles under testdata, rewritten by
// -update and read by the golden tests here and by cmd/jsprof's tests.
var fixtureFiles = map[string]fixtureProfile{
	"fib-base.pb.gz": baseFixture,
	"fib-new.pb.gz":  newFixture,
}

// fixtureProfilePath returns the path of a fixture profile, written from
// its description with -update and checked against it otherwise.
func fixtureProfilePath(t *testing.T, name string) string {
	t.Helper()
	fp, ok := fixtureFiles[name]
	require.True(t, ok, name)
	path := filepath.Join("testdata", name)
	var want bytes.Buffer
	require.NoError(t, fp.build(t).Write(&want))
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, want.Bytes(), 0o644))
	}
	have, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./jsframes -update writes it")
	require.True(t, bytes.Equal(want.Bytes(), have), "%s is not what its description builds (go test ./jsframes -update rewrites it)", path)
	return path
}
