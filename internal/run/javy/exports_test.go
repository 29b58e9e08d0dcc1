package javy

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestExportsNamed: kebab-case names become exports of their camelCase JS
// names, as Javy's convert_case does; other names are refused.
func TestExportsNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		names   []string
		want    []Export
		wantErr string
	}{
		{[]string{"cart-lines-discounts-generate-run", "cart-delivery-options-discounts-generate-run"}, []Export{
			{"cart-lines-discounts-generate-run", "cartLinesDiscountsGenerateRun"},
			{"cart-delivery-options-discounts-generate-run", "cartDeliveryOptionsDiscountsGenerateRun"}}, ""},
		{[]string{"run"}, []Export{{"run", "run"}}, ""},
		{[]string{"fetch-v2"}, []Export{{"fetch-v2", "fetchV2"}}, ""},
		{nil, nil, ""},
		{[]string{"cartLinesRun"}, nil, "not kebab-case"},
		{[]string{"a--b"}, nil, "not kebab-case"},
		{[]string{"-a"}, nil, "not kebab-case"},
		{[]string{"a-"}, nil, "not kebab-case"},
		{[]string{"2run"}, nil, "not kebab-case"},
		{[]string{"_start"}, nil, "not kebab-case"},
		{[]string{""}, nil, "not kebab-case"},
		{[]string{"run", "run"}, nil, "given twice"},
	}
	for _, tt := range tests {
		got, err := ExportsNamed(tt.names)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, "%q", tt.names)
			continue
		}
		require.NoError(t, err, "%q", tt.names)
		assert.Equal(t, tt.want, got)
	}
}

// TestBuiltModuleExports: a module built with exports, static and
// dynamic, on a newer and an older plugin ABI, exports each after _start,
// and each export's function is the one Javy's codegen writes: the
// bytecode and the JS name copied into memory the plugin allocates, then
// invoke with them (and the has-name flag where invoke has one).
func TestBuiltModuleExports(t *testing.T) {
	ctx := context.Background()
	src := []byte("function h(x) { return x * 2 }\nexport function fooBar() { return h(1) }\nexport function baz() { return h(2) }\n")
	exports, err := ExportsNamed([]string{"foo-bar", "baz"})
	require.NoError(t, err)
	for _, engine := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		wasm := fixtures.EngineBytes(t, engine)
		pm, err := wasmcore.Decode(wasm)
		require.NoError(t, err)
		plugin, err := Inspect(pm)
		require.NoError(t, err)
		cache := fixtures.CompilationCache(t)
		for _, dynamic := range []bool{true, false} {
			t.Run(engine+map[bool]string{true: "/dynamic", false: "/static"}[dynamic], func(t *testing.T) {
				out, err := BuildJS(ctx, plugin, wasm, pm, src, dynamic, cache, exports...)
				require.NoError(t, err)
				m, err := wasmcore.Decode(out)
				require.NoError(t, err)
				n := len(m.Exports)
				require.GreaterOrEqual(t, n, 3)
				assert.Equal(t, []string{"_start", "foo-bar", "baz"}, []string{m.Exports[n-3].Name, m.Exports[n-2].Name, m.Exports[n-1].Name})
				run, _ := pm.ExportedFunc(plugin.Run)
				runType, err := pm.FuncTypeOf(run)
				require.NoError(t, err)
				for i, e := range exports {
					seg := len(m.Data) - len(exports) + i
					assert.Equal(t, []byte(e.JS), m.Data[seg].Init, "the JS name's segment")
					assert.Equal(t, wasmcore.DataPassive, m.Data[seg].Mode)
					f := m.Functions[m.Exports[n-2+i].Index-m.NumImportedFuncs()]
					code, err := wasmcore.DecodeInstructions(f.Body)
					require.NoError(t, err)
					var ops []wasmcore.Opcode
					for _, in := range code {
						ops = append(ops, in.Op)
					}
					assert.Equal(t, wasmcore.OpMemoryInit, ops[8])
					assert.Equal(t, uint32(seg), code[18].Index, "memory.init of the name")
					args := code[20 : len(code)-2]
					if len(runType.Params) == 5 {
						assert.Equal(t, int32(1), args[2].I32, "has-name")
					}
					assert.Len(t, args, len(runType.Params))
					assert.Equal(t, int32(len(e.JS)), args[len(args)-1].I32, "the name's length")
				}
				require.NotNil(t, m.DataCount)
				assert.Equal(t, uint32(len(m.Data)), *m.DataCount)
			})
		}
	}
}

// TestExportsRefused: an export the JS does not name, and exports on a
// plugin whose invoke takes neither 4 nor 5 parameters, fail the build.
func TestExportsRefused(t *testing.T) {
	t.Parallel()
	exports, err := ExportsNamed([]string{"foo-bar"})
	require.NoError(t, err)
	assert.ErrorContains(t, checkExports([]byte("bytecode naming baz"), exports), "does not export fooBar")
	assert.NoError(t, checkExports([]byte("bytecode naming fooBar"), exports))
	m := &wasmcore.Module{}
	assert.ErrorContains(t, addExports(m, 0, 1, 2, 0, 10, exports), "takes 2 parameters")
}

// TestDynamicModuleIsJavys: the dynamic module of Javy's own codegen test
// (crates/codegen tests: sample-scripts/exported-functions.js with a world
// exporting log and log2, snapshot integration_test__default_dynamic.snap
// of Javy 9.0.0, transcribed here) is what BuildDynamic builds, but for
// the plugin's namespace, the bytecode and the custom sections: the same
// types in the same order, imports, exports, functions (the exports'
// before _start) and their instructions, and data segments.
func TestDynamicModuleIsJavys(t *testing.T) {
	t.Parallel()
	src := []byte("export function log() {\n    console.log(\"Hello from function!\");\n}\n\nexport function log2() {\n    console.log(\"Hello from function2!\");\n}\n\nconsole.log(\"Hello from top-level scope\");\n")
	wasm := fixtures.EngineBytes(t, "javy-plugin-1.7.0")
	pm, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	plugin, err := Inspect(pm)
	require.NoError(t, err)
	exports, err := ExportsNamed([]string{"log", "log2"})
	require.NoError(t, err)
	out, err := BuildJS(context.Background(), plugin, wasm, pm, src, true, fixtures.CompilationCache(t), exports...)
	require.NoError(t, err)
	m, err := wasmcore.Decode(out)
	require.NoError(t, err)

	i32 := wasmcore.ValI32
	assert.Equal(t, []wasmcore.FuncType{{}, {Params: []wasmcore.ValType{i32, i32, i32, i32}, Results: []wasmcore.ValType{i32}},
		{Params: []wasmcore.ValType{i32, i32, i32, i32, i32}}}, m.Types)
	ns := plugin.Namespace
	var imports []string
	for _, imp := range m.Imports {
		imports = append(imports, fmt.Sprintf("%s.%s %d", imp.Module, imp.Name, imp.Kind))
	}
	assert.Equal(t, []string{ns + ".cabi_realloc 0", ns + ".invoke 0", ns + ".memory 2"}, imports)
	var exported []string
	for _, e := range m.Exports {
		exported = append(exported, fmt.Sprintf("%s %d", e.Name, e.Index))
	}
	assert.Equal(t, []string{"_start 4", "log 2", "log2 3"}, exported)

	n := int32(len(m.Data[0].Init))
	c := func(v int32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpI32Const, I32: v} }
	op := func(o wasmcore.Opcode, idx uint32) wasmcore.Instr { return wasmcore.Instr{Op: o, Index: idx} }
	export := func(name uint32, nameLen int32) []wasmcore.Instr {
		return []wasmcore.Instr{c(0), c(0), c(1), c(n), op(wasmcore.OpCall, 0), op(wasmcore.OpLocalTee, 0), c(0), c(n),
			op(wasmcore.OpMemoryInit, 0), op(wasmcore.OpDataDrop, 0),
			c(0), c(0), c(1), c(nameLen), op(wasmcore.OpCall, 0), op(wasmcore.OpLocalTee, 1), c(0), c(nameLen),
			op(wasmcore.OpMemoryInit, name), op(wasmcore.OpDataDrop, name),
			op(wasmcore.OpLocalGet, 0), c(n), c(1), op(wasmcore.OpLocalGet, 1), c(nameLen), op(wasmcore.OpCall, 1), op(wasmcore.OpEnd, 0)}
	}
	start := []wasmcore.Instr{c(0), c(0), c(1), c(n), op(wasmcore.OpCall, 0), op(wasmcore.OpLocalTee, 0), c(0), c(n),
		op(wasmcore.OpMemoryInit, 0), op(wasmcore.OpLocalGet, 0), c(n), c(0), c(0), c(0), op(wasmcore.OpCall, 1), op(wasmcore.OpEnd, 0)}
	want := []struct {
		locals uint32
		code   []wasmcore.Instr
	}{{2, export(1, 3)}, {2, export(2, 4)}, {1, start}}
	require.Len(t, m.Functions, len(want))
	for i, w := range want {
		f := m.Functions[i]
		assert.Equal(t, uint32(0), f.Type)
		assert.Equal(t, []wasmcore.Local{{Count: w.locals, Type: i32}}, f.Locals)
		code, err := wasmcore.DecodeInstructions(f.Body)
		require.NoError(t, err)
		var got []wasmcore.Instr
		for _, in := range code {
			got = append(got, wasmcore.Instr{Op: in.Op, Index: in.Index, I32: in.I32})
		}
		assert.Equal(t, w.code, got, "function %d", i+2)
	}
	require.Len(t, m.Data, 3)
	assert.Equal(t, []byte("log"), m.Data[1].Init)
	assert.Equal(t, []byte("log2"), m.Data[2].Init)
}
