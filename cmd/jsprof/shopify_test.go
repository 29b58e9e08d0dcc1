package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/internal/shopify"
	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// providersDir is function-runner's bundled providers, beside the project
// (CI always has them).
func providersDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "engines", "function-runner"))
	require.NoError(t, err)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("function-runner's providers are not beside the project (%s): %v", dir, err)
	}
	return dir
}

const wantOutput = `{"hello":"world output","total":5,"ids":["gid://shopify/ProductVariant/1","gid://shopify/ProductVariant/2"]}` + "\n"

// buildFunction builds src against a provider with jsprof build --dynamic,
// as javy build -C dynamic -C plugin=PROVIDER does.
func buildFunction(t *testing.T, provider, src string) string {
	t.Helper()
	module := filepath.Join(t.TempDir(), "function.wasm")
	got := jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providersDir(t), provider+".wasm"), src, "-o", module)
	require.Equal(t, 0, got.code, got.stderr)
	return module
}

// TestShopifyProviders: function-runner's fixture behaviour on each of its
// seven JS providers: a function built for it runs with a JSON input (the
// codec and I/O the provider wants), prints the expected JSON output on
// stdout and its logs on stderr, and is profiled with JS names.
func TestShopifyProviders(t *testing.T) {
	dir := providersDir(t)
	tests := []struct {
		provider, js, codec string
	}{
		{"javy_quickjs_provider_v1", "javy_io.js", "json"},
		{"javy_quickjs_provider_v2", "javy_io.js", "json"},
		{"javy_quickjs_provider_v3", "javy_io.js", "json"},
		{"shopify_functions_javy_v1", "javy_io.js", "json"},
		{"shopify_functions_javy_v2", "shopify_function.js", "messagepack"},
		{"shopify_functions_javy_v3", "shopify_function.js", "messagepack"},
		{"shopify_functions_javy_v4", "shopify_function.js", "messagepack"},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			module := buildFunction(t, tt.provider, filepath.Join("testdata", "shopify", tt.js))
			doc := filepath.Join(t.TempDir(), "report.json")
			got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", "testdata/shopify/input.json", "--report-json", doc, module)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, wantOutput, got.stdout)
			assert.Contains(t, got.stderr, "lines: 2")
			assert.Contains(t, got.stderr, "jsprof: _start ("+tt.provider+", "+tt.codec+"): instructions ")
			assert.Contains(t, got.stderr, "(fuel) of 11.00M")

			var report struct {
				Total     uint64 `json:"total_wasm_instructions"`
				CostModel string `json:"cost_model"`
				Run       struct {
					Export   string `json:"export"`
					Provider string `json:"provider"`
					Codec    string `json:"codec"`
					Input    uint64 `json:"input_bytes"`
					Output   uint64 `json:"output_bytes"`
				} `json:"run"`
			}
			require.NoError(t, json.Unmarshal([]byte(readFileText(t, doc)), &report))
			assert.Equal(t, "fuel", report.CostModel)
			assert.Equal(t, "_start", report.Run.Export)
			assert.Equal(t, tt.provider, report.Run.Provider)
			assert.Equal(t, tt.codec, report.Run.Codec)
			assert.Positive(t, report.Run.Input)
			assert.Positive(t, report.Run.Output)
			assert.Positive(t, report.Total)
		})
	}
}

// TestShopifyMainABI: a 2021-2022 Javy module (shopify_main, shopify_v1
// host functions, MessagePack) runs with its input, and its output comes
// back as JSON.
func TestShopifyMainABI(t *testing.T) {
	input := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(input, []byte(`{"a": [1, 2.5, "x/y"], "b": null}`), 0o644))
	got := jsprof(t, "", "run", "--input", input, "testdata/shopify_main.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, `{"a":[1,2.5,"x/y"],"b":null}`+"\n", got.stdout)
	assert.Contains(t, got.stderr, "shopify_main (shopify_v1, messagepack)")
}

// TestShopifyErrors: what a function author gets wrong is one clear line
// and exit 1 (2 for a bad command line).
func TestShopifyErrors(t *testing.T) {
	dir := providersDir(t)
	v3 := buildFunction(t, "shopify_functions_javy_v3", filepath.Join("testdata", "shopify", "shopify_function.js"))
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"cart": [1, 2`), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"invalid JSON", []string{"--plugin", dir, "--input", bad, v3}, exitFailure, "input " + bad + ": "},
		{"missing input", []string{"--plugin", dir, "--input", "/nonexistent/in.json", v3}, exitFailure, "--input: open /nonexistent/in.json"},
		{"WASI with an in-memory provider", []string{"--plugin", dir, "testdata/wasi_inmemory.wasm"}, exitFailure, "imports shopify_functions_javy_v3, whose I/O is in memory, and WASI"},
		{"no such export", []string{"--plugin", dir, "--input", "testdata/shopify/input.json", "-e", "nope", v3}, exitFailure, "no export nope to run"},
		{"no provider given", []string{"--input", "testdata/shopify/input.json", v3}, exitFailure, "the function imports provider shopify_functions_javy_v3: give its file"},
		{"wrong provider", []string{"--plugin", filepath.Join(dir, "shopify_functions_javy_v4.wasm"), "--input", "testdata/shopify/input.json", v3}, exitFailure,
			"is shopify_functions_javy_v4 (by its import_namespace section), but the function imports shopify_functions_javy_v3"},
		{"bad codec", []string{"--codec", "xml", v3}, exitUsage, "--codec"},
		{"bad cost model", []string{"--cost", "time", v3}, exitUsage, `--cost "time": want fuel or all`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"run"}, tt.args...)...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
			assert.Empty(t, got.stdout)
		})
	}
}

// TestFuelEqualsPerInstruction: the headline count under the fuel rule
// (the export call only) equals an independent per-instruction count under
// the same rule, on a static module and on a dynamic module with its
// in-memory provider.
func TestFuelEqualsPerInstruction(t *testing.T) {
	dir := providersDir(t)
	static := buildJS(t, fixtures.Path("js", "fib.js"))
	dynamic := buildFunction(t, "shopify_functions_javy_v3", filepath.Join("testdata", "shopify", "shopify_function.js"))
	input, err := os.ReadFile("testdata/shopify/input.json")
	require.NoError(t, err)
	count := func(t *testing.T, module string, opts meter.Options) (uint64, string) {
		wasm, err := os.ReadFile(module)
		require.NoError(t, err)
		m, err := wasmcore.Decode(wasm)
		require.NoError(t, err)
		linked, err := link(m, []string{dir})
		require.NoError(t, err)
		var stdout bytes.Buffer
		ropts := runner.Options{Name: filepath.Base(module), Plugin: linked.plugin, Stdout: &stdout, Cache: fixtures.CompilationCache(t), Deterministic: true}
		var fn *shopify.Run
		if linked.provider != nil {
			encoded, err := linked.provider.Codec.EncodeInput(input)
			require.NoError(t, err)
			fn = shopify.Configure(&ropts, *linked.provider, linked.provider.Codec, encoded)
		}
		out, res, err := profiler.Profile(context.Background(), wasm, ropts, profiler.Options{Meter: &opts})
		require.NoError(t, err)
		require.Nil(t, res.Trap)
		require.Empty(t, out.Warnings)
		printed := stdout.String()
		if fn != nil {
			o, err := fn.Output()
			require.NoError(t, err)
			decoded, err := fn.Codec.DecodeOutput(o.Output)
			require.NoError(t, err)
			printed = string(decoded) + "\n"
		}
		return out.Tables.TotalWasmInstructions, printed
	}
	for _, tt := range []struct{ name, module, output string }{
		{"static", static, "fib(20) = 6765\n"},
		{"dynamic in memory", dynamic, wantOutput},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fast, out := count(t, tt.module, meter.Options{Checkpoints: true, Cost: wasmcore.CostFuel})
			assert.Equal(t, tt.output, out)
			slow, _ := count(t, tt.module, meter.Options{Checkpoints: true, PerInstruction: true, Cost: wasmcore.CostFuel})
			all, _ := count(t, tt.module, meter.Options{Checkpoints: true, Cost: wasmcore.CostAll})
			assert.Equal(t, slow, fast, "fuel: fast and per-instruction counts agree")
			assert.Less(t, fast, all, "fuel charges nothing for nop, drop, return, unreachable")
			assert.Greater(t, fast, all*9/10)
		})
	}
}

// TestCompareProviders: the same function and input on two providers —
// QuickJS 2024 (shopify_functions_javy_v3) against QuickJS-NG
// (shopify_functions_javy_v4) — what moving provider costs.
func TestCompareProviders(t *testing.T) {
	dir := providersDir(t)
	got := jsprof(t, "", "compare", "--cache-dir", filepath.Join(fixtures.CacheDir(), "wazero"), "--input", "testdata/shopify/input.json",
		"--plugin", filepath.Join(dir, "shopify_functions_javy_v3.wasm"), "--plugin", filepath.Join(dir, "shopify_functions_javy_v4.wasm"),
		"testdata/shopify/shopify_function.js")
	require.Equal(t, 0, got.code, got.stderr)
	assert.Contains(t, got.stdout, "shopify_functions_javy_v3.wasm")
	assert.Contains(t, got.stdout, "shopify_functions_javy_v4.wasm")
	assert.Contains(t, got.stderr, "both engines printed the same output (1 line) and exited with 0")
}
