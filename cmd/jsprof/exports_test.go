package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
)

// TestRunShopifyExports: the discount function of fixtures/shopify/app,
// laid out, bundled and built as Shopify CLI 4.8 builds a TypeScript
// function with two targets (jsprof build --export, once per target), runs
// each target through its own export with jsprof run -e: the summary and
// every stack of the profile are under the export's name, the stacks name
// the target's TypeScript function at its line in src/, and not the other
// target's. (fixtures/wasmtimeref's TestShopifyExportsEqualWasmtime holds
// both counts equal to wasmtime's.)
func TestRunShopifyExports(t *testing.T) {
	t.Parallel()
	ext := fixtures.DiscountFunction(t, jsprofProcess(t))
	require.Len(t, ext.Targets, 2)
	functions := map[string]string{
		"cart-lines-discounts-generate-run":            "cartLinesDiscountsGenerateRun (" + filepath.Join(ext.Dir, "src", "cart_lines_discounts_generate_run.ts") + ":9)",
		"cart-delivery-options-discounts-generate-run": "cartDeliveryOptionsDiscountsGenerateRun (" + filepath.Join(ext.Dir, "src", "cart_delivery_options_discounts_generate_run.ts") + ":8)",
	}
	for _, target := range ext.Targets {
		t.Run(target.Export, func(t *testing.T) {
			t.Parallel()
			collapsed := filepath.Join(t.TempDir(), "stacks.txt")
			got := jsprof(t, "", "run", "--plugin", fixtures.ProvidersDir(t), "-e", target.Export, "--input", target.Input,
				"--collapsed", collapsed, ext.Module)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Contains(t, got.stdout, `{"operations":[{`)
			assert.Contains(t, got.stderr, "jsprof: "+target.Export+" (shopify_functions_javy_v4, messagepack): Instructions: ")
			b, err := os.ReadFile(collapsed)
			require.NoError(t, err)
			stacks := string(b)
			for other, fn := range functions {
				if other == target.Export {
					assert.True(t, strings.Contains(stacks, ";"+target.Export+";invoke;"), "the export is the stacks' Wasm root")
					assert.True(t, strings.Contains(stacks, ";"+fn+";"), "the target's TypeScript function: %s", fn)
				} else {
					assert.False(t, strings.Contains(stacks, fn), "the other target's function does not run: %s", fn)
					assert.False(t, strings.Contains(stacks, ";"+other+";"))
				}
			}
		})
	}
	t.Run("no such export", func(t *testing.T) {
		t.Parallel()
		got := jsprof(t, "", "run", "--plugin", fixtures.ProvidersDir(t), "-e", "cart-lines-discounts-generate", "--input", ext.Targets[0].Input, ext.Module)
		assert.NotEqual(t, 0, got.code)
		assert.Contains(t, got.stderr, "cart-lines-discounts-generate")
	})
}

// TestBuildExportsRefused: an --export that is not kebab-case is a usage
// error; one whose camelCase function the JS never names fails the build,
// naming it; a good one builds.
func TestBuildExportsRefused(t *testing.T) {
	t.Parallel()
	js := filepath.Join(t.TempDir(), "f.js")
	require.NoError(t, os.WriteFile(js, []byte("export function fooBar() { ShopifyFunction.writeOutput({}) }\n"), 0o644))
	plugin := filepath.Join(fixtures.ProvidersDir(t), "shopify_functions_javy_v4.wasm")
	for _, tt := range []struct {
		export string
		code   int
		msg    string
	}{
		{"fooBar", cli.ExitUsage, `export "fooBar": not kebab-case`},
		{"baz-qux", cli.ExitFailure, "export baz-qux: the JS module does not export bazQux"},
		{"foo-bar", 0, ""},
	} {
		got := jsprof(t, "", "build", "--dynamic", "--plugin", plugin, "--export", tt.export, js, "-o", filepath.Join(t.TempDir(), "f.wasm"))
		assert.Equal(t, tt.code, got.code, got.stderr)
		if tt.msg != "" {
			assert.Contains(t, got.stderr, tt.msg)
		} else {
			assert.Empty(t, strings.TrimSpace(got.stderr))
		}
	}
}
