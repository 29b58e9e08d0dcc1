package javy

import (
	"context"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/wasmcore"
)

func exportNames(m *wasmcore.Module) []string {
	var names []string
	for _, e := range m.Exports {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names
}

// TestBuiltModuleShapes checks the Javy shapes a Javy build has: what a
// static and a dynamic module export, import and carry.
func TestBuiltModuleShapes(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile(fixtures.Path("js", "fib.js"))
	require.NoError(t, err)
	tests := []struct {
		engine        string
		abi           ABI
		namespace     string
		staticExports []string
		dynamicImport []string
	}{
		{"javy-plugin-1.7.0", ABINewer, "javy_chainlink_sdk", []string{"_start", "cabi_realloc", "memory"},
			[]string{"javy_chainlink_sdk.cabi_realloc", "javy_chainlink_sdk.invoke", "javy_chainlink_sdk.memory"}},
		{"javy-plugin-1.1.0", ABIOlder, "javy_chainlink_sdk", []string{"_start", "canonical_abi_free", "canonical_abi_realloc", "memory"},
			[]string{"javy_chainlink_sdk.canonical_abi_realloc", "javy_chainlink_sdk.invoke", "javy_chainlink_sdk.memory"}},
	}
	for _, tt := range tests {
		t.Run(tt.engine, func(t *testing.T) {
			wasm := fixtures.EngineBytes(t, tt.engine)
			pm, err := wasmcore.Decode(wasm)
			require.NoError(t, err)
			plugin, err := Inspect(pm)
			require.NoError(t, err)
			assert.Equal(t, tt.abi, plugin.ABI)
			assert.Equal(t, tt.namespace, plugin.Namespace)

			bytecode, err := Compile(ctx, plugin, wasm, src, fixtures.CompilationCache(t))
			require.NoError(t, err)
			require.Greater(t, len(bytecode), 100)

			static, err := BuildStatic(ctx, wasm, plugin, bytecode, fixtures.CompilationCache(t))
			require.NoError(t, err)
			sm, err := wasmcore.Decode(static)
			require.NoError(t, err)
			assert.Equal(t, tt.staticExports, exportNames(sm))
			last := sm.Data[len(sm.Data)-1]
			assert.Equal(t, wasmcore.DataPassive, last.Mode)
			assert.Equal(t, bytecode, last.Init)
			require.NotNil(t, sm.DataCount)
			assert.Equal(t, uint32(len(sm.Data)), *sm.DataCount)
			for _, c := range sm.Customs {
				assert.NotEqual(t, ImportNamespaceSection, c.Name)
			}
			assert.GreaterOrEqual(t, sm.Memories[0].Limits.Min, pm.Memories[0].Limits.Min)
			assert.Equal(t, pm.NumFuncs()+1, sm.NumFuncs(), "only _start is added: function indices, and names, stay valid")

			dynamic, err := BuildDynamic(pm, plugin, bytecode)
			require.NoError(t, err)
			dm, err := wasmcore.Decode(dynamic)
			require.NoError(t, err)
			var imports []string
			for _, imp := range dm.Imports {
				imports = append(imports, imp.Module+"."+imp.Name)
			}
			sort.Strings(imports)
			assert.Equal(t, tt.dynamicImport, imports)
			assert.Equal(t, []string{"_start"}, exportNames(dm))
			assert.Less(t, len(dynamic), len(bytecode)+300, "a dynamic module is the bytecode and a few instructions")
		})
	}
}
