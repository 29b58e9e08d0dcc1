package shopify_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// javyIOJS reads JSON from stdin and writes JSON to stdout with Javy.IO,
// the only I/O the JSON providers offer (javy_quickjs_provider_v*,
// shopify_functions_javy_v1); console.error goes to stderr, the logs.
const javyIOJS = `function readAll() {
  const chunks = [];
  let total = 0;
  for (;;) {
    const buf = new Uint8Array(4096);
    const n = Javy.IO.readSync(0, buf);
    if (n <= 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) { all.set(c, off); off += c.length; }
  return JSON.parse(new TextDecoder().decode(all));
}
const input = readAll();
console.error("this is an error message");
const output = {
  hello: input.hello + " output",
  total: input.cart.lines.reduce((sum, l) => sum + l.quantity, 0),
  half: input.cart.lines[0].quantity / 4,
  ids: input.cart.lines.map((l) => l.merchandise.id),
};
Javy.IO.writeSync(1, new TextEncoder().encode(JSON.stringify(output)));
`

// TestWASIProvidersEndToEnd runs a function on each WASI provider as
// function-runner does — input on stdin in the provider's codec, output on
// stdout, logs on stderr — which checks the codec Lookup infers for it
// and the JS API it offers.
func TestWASIProvidersEndToEnd(t *testing.T) {
	tests := []struct {
		namespace string
		js        string
	}{
		{"javy_quickjs_provider_v1", javyIOJS},
		{"javy_quickjs_provider_v2", javyIOJS},
		{"javy_quickjs_provider_v3", javyIOJS},
		{"shopify_functions_javy_v1", javyIOJS},
		{"shopify_functions_javy_v2", echoJS}, // ShopifyFunction over stdin/stdout, MessagePack
	}
	cache := wazero.NewCompilationCache()
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
			assert.JSONEq(t, echoOutput, string(got))
			assert.Contains(t, stderr.String(), "this is an error message")
		})
	}
}
