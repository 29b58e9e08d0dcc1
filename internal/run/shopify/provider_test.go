package shopify_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		namespace string
		want      shopify.Provider
	}{
		{"javy_quickjs_provider_v1", shopify.Provider{Family: shopify.JavyQuickJS, Version: 1, Codec: shopify.JSON, IO: shopify.WASI}},
		{"javy_quickjs_provider_v3", shopify.Provider{Family: shopify.JavyQuickJS, Version: 3, Codec: shopify.JSON, IO: shopify.WASI}},
		{"shopify_functions_javy_v1", shopify.Provider{Family: shopify.ShopifyFunctionsJavy, Version: 1, Codec: shopify.JSON, IO: shopify.WASI}},
		{"shopify_functions_javy_v2", shopify.Provider{Family: shopify.ShopifyFunctionsJavy, Version: 2, Codec: shopify.MessagePack, IO: shopify.WASI}},
		{"shopify_functions_javy_v3", shopify.Provider{Family: shopify.ShopifyFunctionsJavy, Version: 3, Codec: shopify.MessagePack, IO: shopify.InMemory}},
		{"shopify_functions_javy_v4", shopify.Provider{Family: shopify.ShopifyFunctionsJavy, Version: 4, Codec: shopify.MessagePack, IO: shopify.InMemory}},
		{"shopify_functions_javy_v12", shopify.Provider{Family: shopify.ShopifyFunctionsJavy, Version: 12, Codec: shopify.MessagePack, IO: shopify.InMemory}},
		{"shopify_function_v1", shopify.Provider{Family: shopify.WasmAPI, Version: 1, Codec: shopify.MessagePack, IO: shopify.WASI}},
		{"shopify_function_v2", shopify.Provider{Family: shopify.WasmAPI, Version: 2, Codec: shopify.MessagePack, IO: shopify.InMemory}},
		{"shopify_v1", shopify.Provider{Family: shopify.ShopifyV1, Version: 1, Codec: shopify.MessagePack, IO: shopify.HostABI}},
	}
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			got, ok := shopify.Lookup(tt.namespace)
			require.True(t, ok)
			tt.want.Namespace = tt.namespace
			assert.Equal(t, tt.want, got)
		})
	}
	for _, ns := range []string{"", "wasi_snapshot_preview1", "env", "javy-default-plugin-v1", "shopify_functions_javy_v0",
		"shopify_functions_javy_v01", "shopify_functions_javy_v", "shopify_functions_javy_vx", "shopify_functions_javy_v-1",
		"shopify_v2", "../shopify_function_v1", "shopify_function_v1.wasm"} {
		_, ok := shopify.Lookup(ns)
		assert.False(t, ok, ns)
	}
}

// function returns a module importing the given functions and memory.
func function(imports ...wasmcore.Import) *wasmcore.Module {
	m := &wasmcore.Module{}
	for _, im := range imports {
		if im.Kind == wasmcore.ExternFunc {
			m.AddImportFunc(im.Module, im.Name, m.AddType(wasmcore.FuncType{}))
		} else {
			m.Imports = append(m.Imports, im)
		}
	}
	return m
}

func fn(module, name string) wasmcore.Import {
	return wasmcore.Import{Module: module, Name: name, Kind: wasmcore.ExternFunc}
}

func mem(module string) wasmcore.Import {
	return wasmcore.Import{Module: module, Name: "memory", Kind: wasmcore.ExternMemory}
}

func TestIdentify(t *testing.T) {
	wasi := fn("wasi_snapshot_preview1", "fd_write")
	tests := []struct {
		name    string
		imports []wasmcore.Import
		want    string // the namespace, or the error
		wantErr bool
	}{
		{"dynamic Javy module", []wasmcore.Import{fn("shopify_functions_javy_v3", "cabi_realloc"), fn("shopify_functions_javy_v3", "invoke"), mem("shopify_functions_javy_v3")}, "shopify_functions_javy_v3", false},
		{"WASI provider with WASI", []wasmcore.Import{wasi, fn("javy_quickjs_provider_v1", "eval_bytecode")}, "javy_quickjs_provider_v1", false},
		{"Wasm API v1 with WASI", []wasmcore.Import{wasi, fn("shopify_function_v1", "shopify_function_input_get")}, "shopify_function_v1", false},
		{"Javy 2021 with WASI", []wasmcore.Import{wasi, fn("shopify_v1", "input_len")}, "shopify_v1", false},
		{"other imports are no concern", []wasmcore.Import{fn("env", "log"), fn("shopify_function_v2", "_shopify_function_input_get")}, "shopify_function_v2", false},
		{"in-memory provider with WASI", []wasmcore.Import{fn("shopify_functions_javy_v4", "invoke"), wasi},
			"the module imports shopify_functions_javy_v4, whose I/O is in memory, and WASI (wasi_snapshot_preview1), which that provider does not allow", true},
		{"Wasm API v2 with WASI", []wasmcore.Import{wasi, fn("shopify_function_v2", "_shopify_function_input_get")},
			"the module imports shopify_function_v2, whose I/O is in memory, and WASI", true},
		{"two providers", []wasmcore.Import{fn("javy_quickjs_provider_v2", "invoke"), fn("javy_quickjs_provider_v1", "invoke")},
			"the module imports two providers, javy_quickjs_provider_v2 and javy_quickjs_provider_v1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := shopify.Identify(tt.imports)
			if tt.wantErr {
				assert.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Namespace)
		})
	}
	_, err := shopify.Identify([]wasmcore.Import{wasi})
	assert.ErrorIs(t, err, shopify.ErrNoProvider)
	_, err = shopify.Identify(nil)
	assert.ErrorIs(t, err, shopify.ErrNoProvider)
}

// TestRealProviders checks what the package says of each provider that
// function-runner v9.2.1 bundles against the provider module itself.
func TestRealProviders(t *testing.T) {
	tests := []struct {
		namespace string
		declared  string // how it declares its namespace
		io        shopify.IO
		codec     shopify.Codec
		js        bool
		// what a function imports from it
		imports []string
		// exports the protocol uses
		exports []string
	}{
		{"javy_quickjs_provider_v1", "its file name", shopify.WASI, shopify.JSON, true,
			[]string{"canonical_abi_realloc", "eval_bytecode", "memory"}, []string{"compile_src"}},
		{"javy_quickjs_provider_v2", "its file name", shopify.WASI, shopify.JSON, true,
			[]string{"canonical_abi_realloc", "eval_bytecode", "invoke", "memory"}, []string{"compile_src"}},
		{"javy_quickjs_provider_v3", "its import_namespace section", shopify.WASI, shopify.JSON, true,
			[]string{"canonical_abi_realloc", "invoke", "memory"}, []string{"compile_src"}},
		{"shopify_functions_javy_v1", "its import_namespace section", shopify.WASI, shopify.JSON, true,
			[]string{"canonical_abi_realloc", "invoke", "memory"}, []string{"compile_src", "initialize_runtime"}},
		{"shopify_functions_javy_v2", "its import_namespace section", shopify.WASI, shopify.MessagePack, true,
			[]string{"canonical_abi_realloc", "invoke", "memory"}, []string{"compile_src", "initialize_runtime"}},
		{"shopify_functions_javy_v3", "its import_namespace section", shopify.InMemory, shopify.MessagePack, true,
			[]string{"cabi_realloc", "invoke", "memory"}, []string{"compile-src", "initialize-runtime", "initialize", "finalize"}},
		{"shopify_functions_javy_v4", "its import_namespace section", shopify.InMemory, shopify.MessagePack, true,
			[]string{"cabi_realloc", "invoke", "memory"}, []string{"compile-src", "initialize-runtime", "initialize", "finalize"}},
		{"shopify_function_v1", "its file name", shopify.WASI, shopify.MessagePack, false,
			[]string{"_shopify_function_input_get", "_shopify_function_output_new_i32", "memory"}, []string{"shopify_function_realloc"}},
		{"shopify_function_v2", "its file name", shopify.InMemory, shopify.MessagePack, false,
			[]string{"_shopify_function_input_get", "_shopify_function_output_new_i32", "memory"}, []string{"initialize", "finalize"}},
	}
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			path := providerPath(t, tt.namespace)
			_, provider := readProvider(t, tt.namespace)

			ns, how := shopify.DeclaredNamespace(provider, path)
			assert.Equal(t, tt.namespace, ns)
			assert.Equal(t, tt.declared, how)

			p, ok := shopify.Lookup(tt.namespace)
			require.True(t, ok)
			assert.Equal(t, tt.io, p.IO)
			assert.Equal(t, tt.codec, p.Codec)
			assert.Equal(t, tt.js, p.HasJS())

			// The provider's own shape agrees: WASI imports exactly when
			// its I/O is WASI, initialize/finalize when in memory, a
			// compile export when it holds QuickJS.
			importsWASI := slices.ContainsFunc(provider.Imports, func(im wasmcore.Import) bool { return im.Module == "wasi_snapshot_preview1" })
			assert.Equal(t, tt.io == shopify.WASI, importsWASI, "imports WASI")
			_, hasFinalize := provider.ExportedFunc("finalize")
			assert.Equal(t, tt.io == shopify.InMemory, hasFinalize, "exports finalize")
			_, hasCompile := provider.ExportedFunc("compile_src")
			_, hasCompileNew := provider.ExportedFunc("compile-src")
			assert.Equal(t, tt.js, hasCompile || hasCompileNew, "exports a compile function")
			for _, name := range tt.exports {
				_, ok := provider.ExportedFunc(name)
				assert.True(t, ok, "exports %s", name)
			}

			// A function importing what such functions import resolves
			// to this provider, from the folder or the file.
			f := functionImporting(t, provider, tt.namespace, tt.imports)
			got, err := shopify.Identify(f.Imports)
			require.NoError(t, err)
			assert.Equal(t, p, got)
			require.NoError(t, shopify.CheckProvider(f, tt.namespace, path, provider))
			for _, from := range []string{fixtures.ProvidersDir(t), path} {
				r, err := shopify.Resolve(f, from)
				require.NoError(t, err)
				assert.Equal(t, p, r.Provider)
				assert.Equal(t, filepath.Join(fixtures.ProvidersDir(t), tt.namespace+".wasm"), r.Path)
				assert.NotEmpty(t, r.Wasm)
			}
		})
	}
}

// functionImporting returns a module importing names from namespace with
// the types provider exports them with.
func functionImporting(t *testing.T, provider *wasmcore.Module, namespace string, names []string) *wasmcore.Module {
	t.Helper()
	m := &wasmcore.Module{}
	for _, name := range names {
		if name == "memory" {
			m.Imports = append(m.Imports, mem(namespace))
			continue
		}
		idx, ok := provider.ExportedFunc(name)
		require.True(t, ok, "provider exports %s", name)
		ft, err := provider.FuncTypeOf(idx)
		require.NoError(t, err)
		m.AddImportFunc(namespace, name, m.AddType(ft))
	}
	return m
}

func TestCheckProviderMismatch(t *testing.T) {
	pathV1 := providerPath(t, "javy_quickjs_provider_v1")
	_, v1 := readProvider(t, "javy_quickjs_provider_v1")
	pathV2 := providerPath(t, "javy_quickjs_provider_v2")
	_, v2 := readProvider(t, "javy_quickjs_provider_v2")
	pathJavyV4 := providerPath(t, "shopify_functions_javy_v4")
	_, javyV4 := readProvider(t, "shopify_functions_javy_v4")
	_, javyV3 := readProvider(t, "shopify_functions_javy_v3")

	v1Function := functionImporting(t, v1, "javy_quickjs_provider_v1", []string{"canonical_abi_realloc", "eval_bytecode", "memory"})
	// javy_quickjs_provider_v1 has no import_namespace section: named by
	// its file, it must be the one the function imports...
	err := shopify.CheckProvider(v1Function, "javy_quickjs_provider_v1", pathV2, v2)
	assert.EqualError(t, err, "provider "+pathV2+" is javy_quickjs_provider_v2 (by its file name), but the function imports javy_quickjs_provider_v1")
	// ...and under another name nothing tells, so the function's import
	// decides: both serve it (the bug to avoid is assuming _v2).
	assert.NoError(t, shopify.CheckProvider(v1Function, "javy_quickjs_provider_v1", "plugin.wasm", v1))
	assert.NoError(t, shopify.CheckProvider(v1Function, "javy_quickjs_provider_v1", "plugin.wasm", v2))
	ns, how := shopify.DeclaredNamespace(v1, "plugin.wasm")
	assert.Empty(t, ns+how)

	// The section wins over the file name.
	v3Function := functionImporting(t, javyV3, "shopify_functions_javy_v3", []string{"cabi_realloc", "invoke", "memory"})
	err = shopify.CheckProvider(v3Function, "shopify_functions_javy_v3", "shopify_functions_javy_v3.wasm", javyV4)
	assert.EqualError(t, err, "provider shopify_functions_javy_v3.wasm is shopify_functions_javy_v4 (by its import_namespace section), but the function imports shopify_functions_javy_v3")
	_, err = shopify.Resolve(v3Function, pathJavyV4)
	assert.ErrorContains(t, err, "is shopify_functions_javy_v4 (by its import_namespace section), but the function imports shopify_functions_javy_v3")

	// Exports must match the imports, by name, kind and type.
	missing := function(fn("javy_quickjs_provider_v1", "cabi_realloc"))
	err = shopify.CheckProvider(missing, "javy_quickjs_provider_v1", pathV1, v1)
	assert.EqualError(t, err, "provider "+pathV1+" (javy_quickjs_provider_v1) exports no func cabi_realloc, which the function imports from it")
	wrongType := function(fn("javy_quickjs_provider_v1", "invoke"))
	err = shopify.CheckProvider(wrongType, "javy_quickjs_provider_v1", pathV1, v1)
	assert.EqualError(t, err, "provider "+pathV1+" (javy_quickjs_provider_v1) exports invoke as [i32 i32 i32 i32] -> [], but the function imports it as [] -> []")
}

func TestFindAndResolve(t *testing.T) {
	providerPath(t, "shopify_functions_javy_v3") // skips without the providers

	_, err := shopify.FindProvider(fixtures.ProvidersDir(t), "shopify_functions_javy_v9")
	assert.ErrorContains(t, err, "no provider shopify_functions_javy_v9 in "+fixtures.ProvidersDir(t)+" (want shopify_functions_javy_v9.wasm")
	_, err = shopify.FindProvider(fixtures.ProvidersDir(t), "../function-runner/shopify_functions_javy_v3")
	assert.ErrorContains(t, err, `"../function-runner/shopify_functions_javy_v3" is not a provider namespace`)

	v9 := function(fn("shopify_functions_javy_v9", "invoke"))
	_, err = shopify.Resolve(v9, fixtures.ProvidersDir(t))
	assert.ErrorContains(t, err, "no provider shopify_functions_javy_v9 in")
	_, err = shopify.Resolve(v9, "")
	assert.EqualError(t, err, "the function imports provider shopify_functions_javy_v9: give its file, or a folder of providers (function-runner's providers/)")
	_, err = shopify.Resolve(function(fn("wasi_snapshot_preview1", "fd_write")), fixtures.ProvidersDir(t))
	assert.ErrorIs(t, err, shopify.ErrNoProvider)

	// The 2021 ABI is the host's: no file needed.
	r, err := shopify.Resolve(function(fn("shopify_v1", "input_len"), fn("wasi_snapshot_preview1", "fd_write")), "")
	require.NoError(t, err)
	assert.Equal(t, shopify.HostABI, r.IO)
	assert.False(t, r.NeedsModule())
	assert.Empty(t, r.Path)
}
