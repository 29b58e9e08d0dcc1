package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/wasmcore"
)

func decodeFile(t testing.TB, path string) *wasmcore.Module {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	m, err := wasmcore.Decode(b)
	require.NoError(t, err, path)
	return m
}

func analyze(t testing.TB, m *wasmcore.Module) *dispatch.Report {
	t.Helper()
	rep, err := dispatch.Analyze(context.Background(), m)
	require.NoError(t, err)
	require.NotNil(t, rep)
	return rep
}

// engineCase is what we know of a real engine (the shapes of docs/analyze.md, checked
// with wasm-objdump -d).
type engineCase struct {
	name        string
	funcIndex   uint32
	funcName    string
	brTable     uint32 // file offset
	byteLoad    uint32 // file offset of the opcode load
	opcodes     int
	bias        int64
	pcKind      string
	pcLocal     uint32 // kind local: the local the opcode load reads; kind memory: the base local
	pcOffset    uint64 // kind memory
	family      string
	match       string
	releases    []string
	tables      []string
	namesSource string
	javyKind    string
	pluginABI   string
	namespace   string
}

var engineCases = []engineCase{
	{name: "javy-plugin-1.7.0", funcIndex: 338, brTable: 0x2d912, byteLoad: 0x2d90a, opcodes: 248, bias: 1, pcKind: "local", pcLocal: 11,
		family: dispatch.FamilyQuickJSNG, match: dispatch.MatchExact, releases: []string{"v0.10.0", "v0.10.1", "v0.11.0"},
		tables: []string{"quickjs-ng-2025-04-02-bd5be754"}, namesSource: dispatch.NamesTable,
		javyKind: dispatch.JavyPlugin, pluginABI: "newer", namespace: "javy_chainlink_sdk"},
	{name: "javy-plugin-1.1.0", funcIndex: 591, funcName: "JS_CallInternal", brTable: 0x2e812, byteLoad: 0x2e80a, opcodes: 248, bias: 1, pcKind: "local", pcLocal: 10,
		family: dispatch.FamilyQuickJS, match: dispatch.MatchAligned, releases: []string{"release 2024-01-13", "release 2024-02-14"},
		tables: []string{"bellard-2024-02-10-1e182125", "bellard-2024-01-09-6d2d6e9f"}, namesSource: dispatch.NamesAligned,
		javyKind: dispatch.JavyPlugin, pluginABI: "older", namespace: "javy_chainlink_sdk"},
	{name: "jitl-debug-0.32.0", funcIndex: 414, brTable: 0x20677, byteLoad: 0x2048d, opcodes: 244, bias: 0, pcKind: "memory", pcLocal: 10, pcOffset: 1648,
		family: dispatch.FamilyQuickJS, match: dispatch.MatchExact, releases: []string{},
		tables: []string{"bellard-2025-12-22-7b98ddf0"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-release-0.25.0", funcIndex: 227, brTable: 0xef08, byteLoad: 0xef00, opcodes: 246, bias: 1, pcKind: "local", pcLocal: 10,
		family: dispatch.FamilyQuickJS, match: dispatch.MatchExact, releases: []string{"release 2023-12-09"},
		tables: []string{"bellard-2023-12-07-15a9fce6"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-release-0.28.0", funcIndex: 244, brTable: 0xf754, byteLoad: 0xf74c, opcodes: 248, bias: 1, pcKind: "local", pcLocal: 10,
		family: dispatch.FamilyQuickJS, match: dispatch.MatchExact, releases: []string{"release 2024-01-13", "release 2024-02-14"},
		tables: []string{"bellard-2024-02-10-1e182125", "bellard-2024-01-09-6d2d6e9f"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-release-0.32.0", funcIndex: 221, brTable: 0xf319, byteLoad: 0xf311, opcodes: 244, bias: 1, pcKind: "local", pcLocal: 6,
		family: dispatch.FamilyQuickJS, match: dispatch.MatchExact, releases: []string{},
		tables: []string{"bellard-2025-12-22-7b98ddf0"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-ng-release-0.26.0", funcIndex: 232, brTable: 0xe25d, byteLoad: 0xe255, opcodes: 248, bias: 1, pcKind: "local", pcLocal: 10,
		family: dispatch.FamilyQuickJSNG, match: dispatch.MatchExact, releases: []string{"v0.3.0", "v0.4.0", "v0.4.1", "v0.5.0"},
		tables: []string{"quickjs-ng-2024-03-27-0681e926", "quickjs-ng-2023-12-14-fb55c55c"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-ng-release-0.29.0", funcIndex: 232, brTable: 0xe310, byteLoad: 0xe308, opcodes: 248, bias: 1, pcKind: "local", pcLocal: 10,
		family: dispatch.FamilyQuickJSNG, match: dispatch.MatchExact, releases: []string{"v0.3.0", "v0.4.0", "v0.4.1", "v0.5.0"},
		tables: []string{"quickjs-ng-2024-03-27-0681e926", "quickjs-ng-2023-12-14-fb55c55c"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-ng-release-0.32.0", funcIndex: 251, brTable: 0x12078, byteLoad: 0x12070, opcodes: 246, bias: 1, pcKind: "local", pcLocal: 6,
		family: dispatch.FamilyQuickJSNG, match: dispatch.MatchExact, releases: []string{"v0.12.0", "v0.12.1", "v0.13.0", "v0.14.0"},
		tables: []string{"quickjs-ng-2026-01-29-909fd718"}, namesSource: dispatch.NamesBinary, javyKind: dispatch.JavyNone},
	// The asyncify builds of the two releases above: the same interpreter
	// read in the normal asyncify state (budget_test.go checks its cost).
	{name: "jitl-asyncify-0.32.0", funcIndex: 222, brTable: 0x228e3, byteLoad: 0x226b1, opcodes: 244, bias: 1, pcKind: "local", pcLocal: 6,
		family: dispatch.FamilyQuickJS, match: dispatch.MatchExact, releases: []string{},
		tables: []string{"bellard-2025-12-22-7b98ddf0"}, namesSource: dispatch.NamesTable, javyKind: dispatch.JavyNone},
	{name: "jitl-ng-asyncify-0.32.0", funcIndex: 252, brTable: 0x262ca, byteLoad: 0x260ae, opcodes: 246, bias: 1, pcKind: "local", pcLocal: 6,
		family: dispatch.FamilyQuickJSNG, match: dispatch.MatchExact, releases: []string{"v0.12.0", "v0.12.1", "v0.13.0", "v0.14.0"},
		tables: []string{"quickjs-ng-2026-01-29-909fd718"}, namesSource: dispatch.NamesBinary, javyKind: dispatch.JavyNone},
}

func TestAnalyzeRealEngines(t *testing.T) {
	for _, tc := range engineCases {
		t.Run(tc.name, func(t *testing.T) {
			m := decodeFile(t, fixtures.EnginePath(t, tc.name))
			rep := analyze(t, m)

			d := rep.Dispatch
			require.NotNil(t, d, rep.Reason)
			assert.Equal(t, tc.funcIndex, d.FunctionIndex)
			assert.Equal(t, tc.funcName, d.FunctionName)
			assert.Equal(t, tc.brTable, d.BrTableOffset)
			assert.Equal(t, tc.opcodes, d.OpcodeCount)
			assert.Equal(t, 1.0, d.Confidence)
			assert.Equal(t, "direct", d.Selector.Kind)
			assert.Equal(t, tc.bias, d.Selector.Bias)
			assert.Equal(t, []uint32{tc.byteLoad}, d.Selector.ByteLoads)
			assert.Equal(t, tc.pcKind, d.PC.Kind)
			if tc.pcKind == "local" {
				assert.Equal(t, tc.pcLocal, d.PC.Local)
			} else {
				assert.Equal(t, tc.pcLocal, d.PC.BaseLocal)
				assert.Equal(t, tc.pcOffset, d.PC.Offset)
			}
			assert.Len(t, d.OpcodeTargets, tc.opcodes)
			assert.Len(t, d.HandlerOffsets, tc.opcodes)
			assert.Greater(t, d.DistinctHandlers, 200)
			assert.True(t, d.SelfRecursive)
			// The handlers of opcode 0 (invalid) and of the others differ.
			assert.NotEqual(t, d.OpcodeTargets[0], d.OpcodeTargets[1])
			// JS_CallInternal: pc = b->byte_code_buf, b = p->u.func.function_bytecode,
			// p = JS_VALUE_GET_OBJ(func_obj), func_obj the second parameter.
			require.NotNil(t, d.BytecodePointer)
			assert.Equal(t, 1, d.BytecodePointer.Param)
			assert.True(t, d.BytecodePointer.Wrapped)
			assert.Equal(t, []uint64{32, 20}, d.BytecodePointer.Path)
			require.NotNil(t, d.BytecodePointer.ClassIDOffset)
			assert.Equal(t, uint64(6), *d.BytecodePointer.ClassIDOffset) // JSObject.class_id
			assert.Equal(t, int64(13), *d.BytecodePointer.ClassID)       // JS_CLASS_BYTECODE_FUNCTION

			// The largest br_table is not necessarily the dispatch; the
			// chosen one beats every candidate of another function.
			require.NotEmpty(t, rep.Candidates)
			assert.Equal(t, tc.brTable, rep.Candidates[0].BrTableOffset)
			for _, c := range rep.Candidates[1:] {
				if c.FunctionIndex != tc.funcIndex {
					assert.Less(t, c.Confidence, 0.85, "candidate %+v", c)
				}
			}

			e := rep.Engine
			assert.Equal(t, tc.family, e.Family)
			assert.Equal(t, tc.match, e.Match)
			assert.Equal(t, tc.releases, e.Releases)
			var ids []string
			for _, tr := range e.Tables {
				ids = append(ids, tr.ID)
			}
			assert.ElementsMatch(t, tc.tables, ids)
			assert.Equal(t, tc.namesSource, e.OpcodeNamesSource)
			assert.Equal(t, tc.opcodes, e.OpcodeCount)
			require.Len(t, e.OpcodeNames, tc.opcodes)
			assert.Equal(t, "invalid", e.OpcodeNames[0])
			assert.Contains(t, e.OpcodeNames, "push_i32")
			assert.Empty(t, e.UncertainOpcodes)

			assert.Equal(t, tc.javyKind, rep.Javy.Kind)
			assert.Equal(t, tc.pluginABI, rep.Javy.PluginABI)
			assert.Equal(t, tc.namespace, rep.Javy.ImportNamespace)
		})
	}
}

// TestPatchedEngine: the 1.1.0 plugin's opcode_info[] has one record more
// than its nearest tables; the analysis names it as a temporary opcode and
// reports the engine as aligned, not exact.
func TestPatchedEngine(t *testing.T) {
	rep := analyze(t, decodeFile(t, fixtures.EnginePath(t, "javy-plugin-1.1.0")))
	e := rep.Engine
	assert.Equal(t, dispatch.MatchAligned, e.Match)
	assert.InDelta(t, 1.0, e.Similarity, 1e-9)
	require.NotNil(t, e.OpcodeInfo)
	assert.Equal(t, uint64(0x114bd0), e.OpcodeInfo.Address)
	assert.Equal(t, 268, e.OpcodeInfo.Records)
	assert.Equal(t, 4, e.OpcodeInfo.Stride)
	joined := strings.Join(e.Evidence, "\n")
	assert.Contains(t, joined, "extra temporary (compiler-only) opcode")
	require.NotNil(t, e.JSCallInternal)
	assert.Equal(t, uint32(591), *e.JSCallInternal)
}

// sharedCases lists the opcodes of fixtures/interp/src/interp.c that share
// one CASE body (div/mod, the bitwise shifts and ops, the comparisons).
var sharedCases = [][]string{
	{"div", "mod"},
	{"shl", "sar", "and", "or", "xor"},
	{"lt", "lte", "gt", "gte"},
}

func TestAnalyzeOwnInterpreters(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	require.NotEmpty(t, mods)
	ops, err := interp.Opcodes()
	require.NoError(t, err)
	count := 0
	for _, v := range ops.Opcodes {
		count = max(count, v+1)
	}
	group := map[int]int{} // opcode value -> handler group
	for name, v := range ops.Opcodes {
		group[v] = 1000 + v
		for gi, g := range sharedCases {
			for _, n := range g {
				if n == name {
					group[v] = gi
				}
			}
		}
	}
	for _, mod := range mods {
		t.Run(filepath.Base(mod.File), func(t *testing.T) {
			m := decodeFile(t, interp.Path(mod.File))
			rep := analyze(t, m)
			d := rep.Dispatch
			require.NotNil(t, d, rep.Reason)
			assert.Equal(t, mod.DispatchFunc, d.FunctionIndex)
			assert.GreaterOrEqual(t, d.Confidence, 0.75)
			assert.Equal(t, count, d.OpcodeCount)
			if mod.Names {
				assert.Equal(t, "call_internal", d.FunctionName)
			} else {
				assert.Empty(t, d.FunctionName)
			}
			switch mod.DispatchShape {
			case "table":
				assert.Equal(t, "lookup", d.Selector.Kind)
				assert.Equal(t, 4, d.Selector.TableWidth)
				assert.Equal(t, tableAddress(t, mod.DispatchCode), d.Selector.TableAddress)
				assert.Equal(t, int64(2), d.Selector.Bias)
				assert.Equal(t, "local", d.PC.Kind)
				assert.Equal(t, "local.get "+strconv.Itoa(int(d.PC.Local)), mod.DispatchCode[0])
			case "bias":
				assert.Equal(t, "direct", d.Selector.Kind)
				assert.Equal(t, int64(1), d.Selector.Bias)
				assert.Equal(t, "local", d.PC.Kind)
				assert.Equal(t, "local.get "+strconv.Itoa(int(d.PC.Local)), mod.DispatchCode[0])
			case "spilled":
				assert.Equal(t, "direct", d.Selector.Kind)
				assert.Equal(t, "memory", d.PC.Kind)
			default:
				t.Fatalf("unknown dispatch shape %q", mod.DispatchShape)
			}
			// The br_table is the one modules.json describes.
			found := false
			for _, c := range rep.Candidates {
				if c.BrTableOffset == d.BrTableOffset {
					found = true
					assert.Equal(t, mod.DispatchTargets, c.Entries)
				}
			}
			assert.True(t, found)
			// Instruction sizes are 1, 2, 3 and 5; unoptimized code
			// advances the pc in several steps.
			assert.GreaterOrEqual(t, len(d.PC.Strides), 3, "pc strides %v", d.PC.Strides)
			if mod.DispatchShape != "spilled" {
				assert.Equal(t, []int64{1, 2, 3, 5}, intersect(d.PC.Strides, []int64{1, 2, 3, 5}), "pc strides %v", d.PC.Strides)
			}

			// The opcode map: opcode 0 falls to the default, every other
			// opcode reaches a handler, shared only as the C source shares.
			require.Len(t, d.OpcodeTargets, count)
			fallback := d.OpcodeTargets[0]
			for v := 1; v < count; v++ {
				assert.NotEqual(t, fallback, d.OpcodeTargets[v], "opcode %d", v)
				for w := 1; w < v; w++ {
					same := d.OpcodeTargets[v] == d.OpcodeTargets[w]
					assert.Equal(t, group[v] == group[w], same, "opcodes %d and %d", v, w)
				}
			}
			groups := map[int]bool{}
			for v := 1; v < count; v++ {
				groups[group[v]] = true
			}
			assert.Equal(t, len(groups), d.DistinctHandlers, "one handler per group of the C source's switch")

			assert.Equal(t, dispatch.FamilyUnknown, rep.Engine.Family)
			assert.Equal(t, dispatch.MatchNone, rep.Engine.Match)
		})
	}
}

// tableAddress reads the lookup table's address from modules.json's
// dispatch code: the i32.const after i32.shl.
func tableAddress(t *testing.T, code []string) uint64 {
	for i, line := range code {
		if line == "i32.shl" && i+1 < len(code) {
			f := strings.Fields(code[i+1])
			require.Len(t, f, 2)
			v, err := strconv.ParseUint(f[1], 10, 32)
			require.NoError(t, err)
			return v
		}
	}
	t.Fatalf("no table address in %v", code)
	return 0
}

func intersect(a, b []int64) []int64 {
	var out []int64
	for _, x := range b {
		for _, y := range a {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// buildGoWASI builds fixtures/plain/gowasi for GOOS=wasip1.
func buildGoWASI(tb testing.TB) string {
	tb.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			tb.Skip("no go command to build the WASI module")
		}
	}
	out := filepath.Join(tb.TempDir(), "gowasi.wasm")
	cmd := exec.Command(goBin, "build", "-o", out, ".")
	cmd.Dir = fixtures.Path("plain", "gowasi")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	msg, err := cmd.CombinedOutput()
	require.NoError(tb, err, string(msg))
	return out
}

func TestNoInterpreter(t *testing.T) {
	cases := []struct {
		name string
		path func(t *testing.T) string
	}{
		{"plain C", func(t *testing.T) string { return fixtures.Path("plain", "plain-O2.wasm") }},
		{"Go WASI", func(t *testing.T) string { return buildGoWASI(t) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyze(t, decodeFile(t, tc.path(t)))
			assert.Nil(t, rep.Dispatch)
			assert.True(t, strings.HasPrefix(rep.Reason, "no interpreter"), rep.Reason)
			assert.Equal(t, dispatch.FamilyUnknown, rep.Engine.Family)
			assert.Equal(t, dispatch.JavyNone, rep.Javy.Kind)
			for _, c := range rep.Candidates {
				assert.Less(t, c.Confidence, 0.5, "%+v", c)
			}
			b, err := json.Marshal(rep)
			require.NoError(t, err)
			var obj map[string]any
			require.NoError(t, json.Unmarshal(b, &obj))
			v, ok := obj["dispatch"]
			assert.True(t, ok)
			assert.Nil(t, v)
		})
	}
}

func TestDWARFOpcodeEnum(t *testing.T) {
	rep := analyze(t, decodeFile(t, filepath.Join("testdata", "dwarfenum.wasm")))
	e := rep.Engine
	assert.Equal(t, dispatch.MatchDWARF, e.Match)
	assert.Equal(t, dispatch.NamesDWARF, e.OpcodeNamesSource)
	assert.Equal(t, dispatch.FamilyQuickJSNG, e.Family)
	assert.Equal(t, []string{"v0.10.0", "v0.10.1", "v0.11.0"}, e.Releases)
	require.Len(t, e.OpcodeNames, 248)
	assert.Equal(t, "invalid", e.OpcodeNames[0])
	assert.Equal(t, "push_i32", e.OpcodeNames[1])
	assert.True(t, rep.Module.DWARF)
}

// withExport returns a copy of m's exports without the names in drop.
func withoutExports(m *wasmcore.Module, drop ...string) []wasmcore.Export {
	var out []wasmcore.Export
	for _, e := range m.Exports {
		keep := true
		for _, d := range drop {
			keep = keep && e.Name != d
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// startBody is `i32.const 0; i32.const 0; i32.const 4; memory.init seg; end`.
func startBody(seg int) []byte {
	b := []byte{0x41, 0, 0x41, 0, 0x41, 4, 0xFC, 0x08}
	for v := uint32(seg); ; {
		c := byte(v & 0x7F)
		v >>= 7
		if v == 0 {
			b = append(b, c)
			break
		}
		b = append(b, c|0x80)
	}
	return append(b, 0x00, 0x0B)
}

func TestJavyShapes(t *testing.T) {
	t.Run("static", func(t *testing.T) {
		// A static module is the plugin with _start copying the program's
		// bytecode from a passive segment, compile-src and invoke gone.
		m := decodeFile(t, fixtures.EnginePath(t, "javy-plugin-1.7.0"))
		m.Exports = withoutExports(m, "compile-src", "invoke")
		ti := m.AddType(wasmcore.FuncType{})
		seg := len(m.Data)
		m.Data = append(m.Data, wasmcore.DataSegment{Mode: wasmcore.DataPassive, Init: []byte{1, 2, 3, 4}})
		m.Functions = append(m.Functions, wasmcore.Function{Type: ti, Body: startBody(seg)})
		m.Exports = append(m.Exports, wasmcore.Export{Name: "_start", Kind: wasmcore.ExternFunc, Index: m.NumImportedFuncs() + uint32(len(m.Functions)-1)})
		rep := analyze(t, m)
		require.NotNil(t, rep.Dispatch)
		assert.Equal(t, dispatch.JavyStatic, rep.Javy.Kind)
		require.NotNil(t, rep.Javy.BytecodeSegment)
		assert.Equal(t, seg, *rep.Javy.BytecodeSegment)
	})
	t.Run("dynamic", func(t *testing.T) {
		ns := "javy_quickjs_provider_v3"
		m := &wasmcore.Module{
			Types: []wasmcore.FuncType{
				{},
				{Params: []wasmcore.ValType{wasmcore.ValI32, wasmcore.ValI32, wasmcore.ValI32, wasmcore.ValI32}, Results: []wasmcore.ValType{wasmcore.ValI32}},
				{Params: []wasmcore.ValType{wasmcore.ValI32, wasmcore.ValI32, wasmcore.ValI32, wasmcore.ValI32, wasmcore.ValI32}},
			},
			Imports: []wasmcore.Import{
				{Module: ns, Name: "cabi_realloc", Kind: wasmcore.ExternFunc, Func: 1},
				{Module: ns, Name: "invoke", Kind: wasmcore.ExternFunc, Func: 2},
				{Module: ns, Name: "memory", Kind: wasmcore.ExternMemory, Memory: wasmcore.MemoryType{Limits: wasmcore.Limits{Min: 0}}},
			},
			Functions: []wasmcore.Function{{Type: 0, Body: startBody(0)}},
			Exports:   []wasmcore.Export{{Name: "_start", Kind: wasmcore.ExternFunc, Index: 2}},
			Data:      []wasmcore.DataSegment{{Mode: wasmcore.DataPassive, Init: []byte{1, 2, 3, 4}}},
		}
		rep := analyze(t, m)
		assert.Nil(t, rep.Dispatch)
		assert.Contains(t, rep.Reason, ns)
		assert.Equal(t, dispatch.JavyDynamic, rep.Javy.Kind)
		assert.Equal(t, ns, rep.Javy.ImportNamespace)
		require.NotNil(t, rep.Javy.BytecodeSegment)
		assert.Equal(t, 0, *rep.Javy.BytecodeSegment)
	})
	t.Run("older", func(t *testing.T) {
		m := decodeFile(t, fixtures.EnginePath(t, "javy-plugin-1.1.0"))
		main := m.Exports[0].Index
		for _, e := range m.Exports {
			if e.Name == "compile_src" {
				main = e.Index
			}
		}
		m.Exports = withoutExports(m, "compile_src", "initialize_runtime", "invoke", "canonical_abi_realloc", "canonical_abi_free")
		m.Exports = append(m.Exports, wasmcore.Export{Name: "shopify_main", Kind: wasmcore.ExternFunc, Index: main})
		rep := analyze(t, m)
		require.NotNil(t, rep.Dispatch)
		assert.Equal(t, dispatch.JavyOlder, rep.Javy.Kind)
	})
	t.Run("oldest plugin", func(t *testing.T) {
		m := decodeFile(t, fixtures.EnginePath(t, "javy-plugin-1.1.0"))
		m.Exports = withoutExports(m, "initialize_runtime")
		m.Exports = append(m.Exports, wasmcore.Export{Name: "eval_bytecode", Kind: wasmcore.ExternFunc, Index: m.Exports[0].Index})
		var customs []wasmcore.CustomSection
		for _, c := range m.Customs {
			if c.Name != "import_namespace" {
				customs = append(customs, c)
			}
		}
		m.Customs = customs
		rep := analyze(t, m)
		assert.Equal(t, dispatch.JavyPlugin, rep.Javy.Kind)
		assert.Equal(t, "oldest", rep.Javy.PluginABI)
		assert.Equal(t, "javy_quickjs_provider_v2", rep.Javy.ImportNamespace)
	})
}

// TestJSONSchema checks the fields docs/analyze.md promises.
func TestJSONSchema(t *testing.T) {
	rep := analyze(t, decodeFile(t, fixtures.EnginePath(t, "javy-plugin-1.7.0")))
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(b, &obj))
	d, ok := obj["dispatch"].(map[string]any)
	require.True(t, ok)
	for _, k := range []string{"function_index", "function_name", "br_table_offset", "opcode_count", "confidence", "selector", "pc", "opcode_targets", "handler_offsets"} {
		assert.Contains(t, d, k)
	}
	assert.EqualValues(t, 338, d["function_index"])
	assert.Equal(t, "", d["function_name"])
	cands, ok := obj["candidates"].([]any)
	require.True(t, ok)
	assert.NotEmpty(t, cands)
	eng, ok := obj["engine"].(map[string]any)
	require.True(t, ok)
	for _, k := range []string{"family", "releases", "opcode_names_source", "opcode_names"} {
		assert.Contains(t, eng, k)
	}
	assert.Equal(t, "quickjs-ng", eng["family"])
	javy, ok := obj["javy"].(map[string]any)
	require.True(t, ok)
	assert.Equal(t, "plugin", javy["kind"])
	assert.Contains(t, obj, "reason")
}

func TestAnalyzeCancelled(t *testing.T) {
	m := decodeFile(t, fixtures.Path("plain", "plain-O2.wasm"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := dispatch.Analyze(ctx, m)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled))
	_, err = dispatch.Analyze(context.Background(), nil)
	assert.Error(t, err)
}

func BenchmarkAnalyze(b *testing.B) {
	engine := func(name string) func(b *testing.B) *wasmcore.Module {
		return func(b *testing.B) *wasmcore.Module { return decodeFile(b, fixtures.EnginePath(b, name)) }
	}
	cases := []struct {
		name   string
		module func(b *testing.B) *wasmcore.Module
	}{
		// The largest real engine (1.3 MB).
		{"javy-plugin-1.1.0", engine("javy-plugin-1.1.0")},
		{"javy-plugin-1.7.0", engine("javy-plugin-1.7.0")},
		// An asyncify build (1 MB): an if on the asyncify state around
		// every call, every local saved and restored.
		{"jitl-asyncify-0.32.0", engine("jitl-asyncify-0.32.0")},
		// 5 MB of code: the asyncify build with its functions but the
		// dispatch copied.
		{"asyncify-5MB", func(b *testing.B) *wasmcore.Module {
			return withCopies(b, decodeFile(b, fixtures.EnginePath(b, "jitl-asyncify-0.32.0")), 222, 5<<20)
		}},
		// A 2.6 MB Go module with 900 large br_tables.
		{"gowasi", func(b *testing.B) *wasmcore.Module { return decodeFile(b, buildGoWASI(b)) }},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			m := bc.module(b)
			wasm, err := m.Encode()
			require.NoError(b, err)
			b.SetBytes(int64(len(wasm)))
			var steps int64
			b.ResetTimer()
			for range b.N {
				_, st, err := dispatch.AnalyzeStats(context.Background(), m, nil)
				if err != nil {
					b.Fatal(err)
				}
				steps = st.Steps
			}
			b.ReportMetric(float64(b.Elapsed())/1e6/float64(b.N), "ms/analysis")
			b.ReportMetric(float64(steps), "steps/analysis")
		})
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "dwarfenum.wasm"),
		interp.Path("build", "bare-O2-wasmopt.wasm"),
		interp.Path("build", "bare-direct-O2.wasm"),
	} {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := wasmcore.Decode(b)
		if err != nil {
			return
		}
		rep, err := dispatch.Analyze(context.Background(), m)
		if err != nil {
			return
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteText(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	})
}
