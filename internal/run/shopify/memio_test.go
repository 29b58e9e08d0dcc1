package shopify_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// echoJS is function-runner's own fixture for these providers
// (tests/fixtures/js_function_javy_plugin_v3/function.js), extended to use
// a number and an array: ShopifyFunction.readInput() returns the decoded
// input, ShopifyFunction.writeOutput(value) encodes the output, console
// writes the logs.
const echoJS = `const input = ShopifyFunction.readInput();
console.error("this is an error message");
console.log("lines:", input.cart.lines.length);
ShopifyFunction.writeOutput({
  hello: input.hello + " output",
  total: input.cart.lines.reduce((sum, l) => sum + l.quantity, 0),
  half: input.cart.lines[0].quantity / 4,
  ids: input.cart.lines.map((l) => l.merchandise.id),
});
`

const echoInput = `{
  "hello": "world",
  "cart": {"lines": [
    {"quantity": 2, "merchandise": {"id": "gid://shopify/ProductVariant/1"}},
    {"quantity": 3, "merchandise": {"id": "gid://shopify/ProductVariant/2"}}
  ]}
}`

const echoOutput = `{"hello":"world output","total":5,"half":0.5,"ids":["gid://shopify/ProductVariant/1","gid://shopify/ProductVariant/2"]}`

// buildFunction builds a dynamic Javy module of src for a provider with
// internal/run/javy, as `javy build -C dynamic -C plugin=PROVIDER` does.
func buildFunction(t *testing.T, ctx context.Context, cache wazero.CompilationCache, providerWasm []byte, provider *wasmcore.Module, src string) []byte {
	t.Helper()
	plugin, err := javy.Inspect(provider)
	require.NoError(t, err)
	bytecode, err := javy.Compile(ctx, plugin, providerWasm, []byte(src), cache)
	require.NoError(t, err)
	function, err := javy.BuildDynamic(provider, plugin, bytecode)
	require.NoError(t, err)
	return function
}

// runInMemory runs function with plain wazero as function-runner does for
// an in-memory provider: the provider instantiated under its namespace, no
// WASI, Prepare, the function's export, Finish — also after a trap, for the
// logs. It returns the export's error.
func runInMemory(t *testing.T, ctx context.Context, cache wazero.CompilationCache, providerWasm, function []byte, input []byte, export string) (shopify.Output, error) {
	t.Helper()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	defer rt.Close(ctx)
	fm, err := wasmcore.Decode(function)
	require.NoError(t, err)
	p, err := shopify.Identify(fm.Imports)
	require.NoError(t, err)
	require.Equal(t, shopify.InMemory, p.IO)

	provider, err := rt.InstantiateWithConfig(ctx, providerWasm, wazero.NewModuleConfig().WithName(p.Namespace))
	require.NoError(t, err)
	require.NoError(t, shopify.Prepare(ctx, provider, input))
	// No start functions: wazero's default would run _start on instantiation.
	mod, err := rt.InstantiateWithConfig(ctx, function, wazero.NewModuleConfig().WithName("function").WithStartFunctions())
	require.NoError(t, err)
	_, runErr := mod.ExportedFunction(export).Call(ctx)
	out, err := shopify.Finish(ctx, provider)
	require.NoError(t, err)
	return out, runErr
}

func TestInMemoryEndToEnd(t *testing.T) {
	// The providers compile once on this machine (fixtures' shared cache),
	// not once per run of the tests.
	cache := fixtures.CompilationCache(t)
	t.Cleanup(func() { cache.Close(context.Background()) })
	tests := []struct {
		name, js, input string
		output          string // JSON, or "" for none
		logs            []string
		trap            bool
	}{
		{name: "echo", js: echoJS, input: echoInput, output: echoOutput,
			logs: []string{"this is an error message\n", "lines: 2\n"}},
		// JS numbers have no int/float kind: Javy writes integral values as
		// integers, so the input's 7.0 comes back as 7.
		{name: "number types", js: `ShopifyFunction.writeOutput([1, 1.5, 2**53, 1e300, 0.1, -0, "a/b", null, true, {}, ShopifyFunction.readInput()])`,
			input: `{"int":7,"float":7.0,"slash":"a/b"}`, output: `[1,1.5,9007199254740992.0,1e300,0.1,0,"a/b",null,true,{},{"int":7,"float":7,"slash":"a/b"}]`},
		{name: "uncaught exception", js: `ShopifyFunction.readInput(); throw new Error("boom")`, input: `{}`,
			logs: []string{"boom", "function.mjs:1:"}, trap: true},
		// The provider keeps the last 1001 bytes of logs in a ring buffer:
		// "a", 1500 "x" and "\n" wrap around it.
		{name: "logs wrap around", js: `console.log("a" + "x".repeat(1500)); ShopifyFunction.writeOutput(null)`, input: `{}`, output: `null`,
			logs: []string{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"}},
	}
	for _, ns := range []string{"shopify_functions_javy_v3", "shopify_functions_javy_v4"} {
		t.Run(ns, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			providerWasm, provider := readProvider(t, ns)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					function := buildFunction(t, ctx, cache, providerWasm, provider, tt.js)
					input, err := shopify.MessagePack.EncodeInput([]byte(tt.input))
					require.NoError(t, err)
					out, runErr := runInMemory(t, ctx, cache, providerWasm, function, input, "_start")
					if tt.trap {
						assert.ErrorContains(t, runErr, "unreachable")
					} else {
						require.NoError(t, runErr, "logs: %s", out.Logs)
					}
					got, err := shopify.MessagePack.DecodeOutput(out.Output)
					if tt.output == "" {
						assert.ErrorIs(t, err, shopify.ErrNoOutput)
					} else {
						require.NoError(t, err, "output %x", out.Output)
						assert.Equal(t, tt.output, string(got))
					}
					for _, l := range tt.logs {
						assert.Contains(t, string(out.Logs), l)
					}
					if tt.name == "logs wrap around" {
						// The ring's 1001 bytes, the first marked as
						// function-runner marks logs past its limit.
						assert.Len(t, out.Logs, 1001-1+len(shopify.LogTruncated))
						assert.True(t, strings.HasPrefix(string(out.Logs), shopify.LogTruncated+"x"), "%.20q", out.Logs)
						assert.NotContains(t, string(out.Logs), "a")
					}
				})
			}
		})
	}
}

// TestWriteOutput: a function's output is shown as function-runner shows
// it: JSON on stdout, its logs on stderr (a line each), raw bytes with
// the raw codec. As function-runner counts a run that ran to completion a
// success whatever its output (engine.rs), an output that is missing or
// does not decode is no error but a Problem, its bytes shown as they are;
// MessagePack with bytes after its value is shown decoded, as rmp_serde
// decodes it, with a Problem. An output that could not be read is an
// error, unless the guest failed (its trap says why).
func TestWriteOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		out            shopify.Output
		outErr         error
		codec          shopify.Codec
		failed         bool
		stdout, stderr string
		json, problem  string
		err            string
	}{
		{"json", shopify.Output{Output: []byte(`{"a":1}`), Logs: []byte("log")}, nil, shopify.JSON, false, "{\"a\":1}\n", "log\n", `{"a":1}`, "", ""},
		{"messagepack", shopify.Output{Output: []byte{0x81, 0xa1, 'a', 0x01}}, nil, shopify.MessagePack, false, "{\"a\":1}\n", "", `{"a":1}`, "", ""},
		{"raw", shopify.Output{Output: []byte("bytes")}, nil, shopify.Raw, false, "bytes", "", "", "", ""},
		{"none", shopify.Output{}, nil, shopify.JSON, false, "", "", "", "the function wrote no output", ""},
		{"none, shopify_v1", shopify.Output{}, shopify.ErrNoOutput, shopify.MessagePack, false, "", "", "", "the function wrote no output", ""},
		{"none, failed", shopify.Output{}, nil, shopify.JSON, true, "", "", "", "", ""},
		{"not read", shopify.Output{}, errors.New("x"), shopify.JSON, false, "", "", "", "", "the function's output: x"},
		{"not read, failed", shopify.Output{}, errors.New("x"), shopify.JSON, true, "", "", "", "", ""},
		{"not json", shopify.Output{Output: []byte("export1")}, nil, shopify.JSON, false, "export1", "", "", "the function's output does not decode as json: output is not JSON: ", ""},
		{"not messagepack", shopify.Output{Output: []byte{0xc1}}, nil, shopify.MessagePack, false, "\xc1", "", "", "the function's output does not decode as messagepack: ", ""},
		{"a byte after the value", shopify.Output{Output: []byte{0x81, 0xa1, 'a', 0x01, 0x00}}, nil, shopify.MessagePack, false, "{\"a\":1}\n", "", `{"a":1}`,
			"the function's output has 1 bytes after the MessagePack value (at offset 4), which function-runner ignores", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			shown, err := shopify.WriteOutput(tt.out, tt.outErr, tt.codec, tt.failed, &stdout, &stderr)
			assert.Equal(t, tt.stdout, stdout.String())
			assert.Equal(t, tt.stderr, stderr.String())
			assert.Equal(t, tt.json, string(shown.JSON))
			if tt.problem == "" {
				assert.Empty(t, shown.Problem)
			} else {
				assert.True(t, strings.HasPrefix(shown.Problem, tt.problem), shown.Problem)
			}
			if tt.err == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
			}
		})
	}
}
