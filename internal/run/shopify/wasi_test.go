package shopify_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestWASIProvidersEndToEnd runs a function on each WASI provider as
// function-runner does — input on stdin in the provider's codec, output on
// stdout, logs on stderr — which checks the codec Lookup infers for it
// and the JS API it offers.
func TestWASIProvidersEndToEnd(t *testing.T) {
	// The project's one function for the JSON providers: Javy.IO is the
	// only I/O they offer (javy_quickjs_provider_v*,
	// shopify_functions_javy_v1); console.error goes to stderr, the logs.
	javyIO, err := os.ReadFile(fixtures.Path("shopify", "javy_io.js"))
	require.NoError(t, err)
	const javyIOOutput = `{"hello":"world output","total":5,"ids":["gid://shopify/ProductVariant/1","gid://shopify/ProductVariant/2"],"fib":610}`
	tests := []struct {
		namespace   string
		js          string
		output, log string
	}{
		{"javy_quickjs_provider_v1", string(javyIO), javyIOOutput, "lines: 2"},
		{"javy_quickjs_provider_v2", string(javyIO), javyIOOutput, "lines: 2"},
		{"javy_quickjs_provider_v3", string(javyIO), javyIOOutput, "lines: 2"},
		{"shopify_functions_javy_v1", string(javyIO), javyIOOutput, "lines: 2"},
		// ShopifyFunction over stdin/stdout, MessagePack
		{"shopify_functions_javy_v2", echoJS, echoOutput, "this is an error message"},
	}
	// The providers compile once on this machine (fixtures' shared cache),
	// not once per run of the tests.
	cache := fixtures.CompilationCache(t)
	t.Cleanup(func() { cache.Close(context.Background()) })
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			providerWasm, provider := readProvider(t, tt.namespace)
			plugin, err := javy.Inspect(provider)
			require.NoError(t, err)
			// javy.Inspect names every provider without an import_namespace
			// section javy_quickjs_provider_v2; v1 has none either, and its
			// functions import it as javy_quickjs_provider_v1.
			plugin.Namespace = tt.namespace
			bytecode, err := javy.Compile(ctx, plugin, providerWasm, []byte(tt.js), cache)
			require.NoError(t, err)
			function, err := javy.BuildDynamic(provider, plugin, bytecode)
			require.NoError(t, err)

			fm, err := wasmcore.Decode(function)
			require.NoError(t, err)
			p, err := shopify.Identify(fm.Imports)
			require.NoError(t, err)
			require.Equal(t, shopify.WASI, p.IO)
			require.NoError(t, shopify.CheckProvider(fm, p.Namespace, providerPath(t, tt.namespace), provider))
			input, err := p.Codec.EncodeInput([]byte(echoInput))
			require.NoError(t, err)

			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
			defer rt.Close(ctx)
			wasi_snapshot_preview1.MustInstantiate(ctx, rt)
			var stdout, stderr bytes.Buffer
			cfg := wazero.NewModuleConfig().WithStdin(bytes.NewReader(input)).WithStdout(&stdout).WithStderr(&stderr).WithStartFunctions()
			_, err = rt.InstantiateWithConfig(ctx, providerWasm, cfg.WithName(p.Namespace))
			require.NoError(t, err)
			mod, err := rt.InstantiateWithConfig(ctx, function, cfg.WithName("function"))
			require.NoError(t, err)
			_, err = mod.ExportedFunction("_start").Call(ctx)
			require.NoError(t, err, "stderr: %s", stderr.String())

			got, err := p.Codec.DecodeOutput(stdout.Bytes())
			require.NoError(t, err, "stdout %q", stdout.Bytes())
			assert.JSONEq(t, tt.output, string(got))
			assert.Contains(t, stderr.String(), tt.log)
		})
	}
}
