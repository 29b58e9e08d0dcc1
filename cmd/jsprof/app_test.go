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

// oneTarget is a function's toml with one target and no export: its
// module runs _start.
const oneTarget = `api_version = "2025-04"

[[extensions]]
name = "t:name"
handle = "volume-discount"
type = "function"

  [[extensions.targeting]]
  target = "cart.lines.discounts.generate.run"
  input_query = "src/run.graphql"

  [extensions.build]
  command = ""
  path = "dist/function.wasm"
`

// TestAppFolder: in a function's extension folder, jsprof run needs no
// module and no --plugin: the toml names the module, and the provider is
// where Shopify CLI keeps it; what was found is said in one line. A
// function not built yet is one line naming how to build it; an app's
// root with that one function is enough too.
func TestAppFolder(t *testing.T) {
	providers := fixtures.ProvidersDir(t)
	app := t.TempDir()
	dir := shopifyProject(t, "linked")
	ext := filepath.Join(app, "extensions", "volume-discount")
	require.NoError(t, os.MkdirAll(filepath.Dir(ext), 0o755))
	require.NoError(t, os.Rename(dir, ext))
	require.NoError(t, os.WriteFile(filepath.Join(ext, "shopify.extension.toml"), []byte(oneTarget), 0o644))
	copyFile(t, filepath.Join(ext, "src", "run.ts"), filepath.Join(ext, "src", "index.ts"))
	t.Chdir(ext)

	got := jsprof(t, "", "run", "--input", "input.json")
	require.Equal(t, cli.ExitFailure, got.code, got.stderr)
	assert.Equal(t, "jsprof: function volume-discount is not built: dist/function.wasm does not exist; build it with 'shopify app function build', or bundle src/index.ts with esbuild and 'jsprof build --dynamic --plugin shopify_functions_javy_v4.wasm BUNDLE.js -o dist/function.wasm'\n", got.stderr)

	got = jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providers, "shopify_functions_javy_v4.wasm"), "dist/function.js", "-o", "dist/function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "run", "--input", "input.json")
	require.Equal(t, cli.ExitFailure, got.code, "negative control: no provider where Shopify CLI keeps it")
	assert.Contains(t, got.stderr, "jsprof: function volume-discount: dist/function.wasm, 1 target: cart.lines.discounts.generate.run (_start); provider shopify_functions_javy_v4 not found\n")
	assert.Contains(t, got.stderr, "give its file, or a folder of providers (function-runner's providers/), with --plugin")

	// Shopify CLI downloads the provider into its package's bin folder.
	bin := filepath.Join(app, "node_modules", "@shopify", "cli", "bin", "shopify_functions_javy_v4.wasm")
	copyFile(t, filepath.Join(providers, "shopify_functions_javy_v4.wasm"), bin)
	for _, args := range [][]string{
		{"run", "--input", "input.json", "-o", "p.pb.gz"},
		{"run", "--input", filepath.Join(ext, "input.json"), "-o", filepath.Join(ext, "p.pb.gz"), ext},
		{"run", "--input", filepath.Join(ext, "input.json"), "-o", filepath.Join(ext, "p.pb.gz"), app},
	} {
		got = jsprof(t, "", args...)
		require.Equal(t, 0, got.code, "%v: %s", args, got.stderr)
		assert.Contains(t, got.stdout, `"discountApplicationStrategy":"FIRST"`)
		assert.Contains(t, got.stderr, "jsprof: function volume-discount: dist/function.wasm, 1 target: cart.lines.discounts.generate.run (_start); provider "+bin+"\n", "%v", args)
		assert.Contains(t, got.stderr, "jsprof: _start (shopify_functions_javy_v4, messagepack): Instructions:")
		assert.True(t, strings.HasSuffix(functionNamed(t, mappedReport(t, "--by", "function", filepath.Join(ext, "p.pb.gz")), "lineTotal").File, filepath.Join("src", "run.ts")), "the TypeScript, found from the module")
	}

	// report, there, reads what run wrote and annotates it from the
	// module the folder builds.
	got = jsprof(t, "", "run", "-q", "--input", "input.json", "-o", "jsprof.pb.gz")
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "report", "--html", "r.html")
	require.Equal(t, 0, got.code, got.stderr)
	page, err := os.ReadFile("r.html")
	require.NoError(t, err)
	assert.Contains(t, string(page), `data-file="src/run.ts"`)
	require.NoError(t, os.Remove("jsprof.pb.gz"))
	got = jsprof(t, "", "report")
	assert.Equal(t, cli.ExitUsage, got.code, "negative control: no profile written here")
}

// TestAppFolderErrors: what cannot be run from a folder is said in one
// line.
func TestAppFolderErrors(t *testing.T) {
	t.Parallel()
	two := t.TempDir()
	for _, h := range []string{"a", "b"} {
		writeText(t, filepath.Join(two, "extensions", h, "shopify.extension.toml"), "[[extensions]]\nhandle = \""+h+"\"\ntype = \"function\"\n")
	}
	targets := t.TempDir()
	writeText(t, filepath.Join(targets, "shopify.extension.toml"), "[[extensions]]\nhandle = \"t\"\ntype = \"function\"\n[[extensions.targeting]]\ntarget = \"a\"\nexport = \"a\"\n[[extensions.targeting]]\ntarget = \"b\"\nexport = \"b\"\n")
	escape := t.TempDir()
	writeText(t, filepath.Join(escape, "shopify.extension.toml"), "type = \"function\"\n[build]\npath = \"../../x.wasm\"\n")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", t.TempDir()}, cli.ExitFailure, ": no shopify.extension.toml (and no function under extensions/)"},
		{[]string{"run", two}, cli.ExitFailure, ": the app has 2 functions (a, b); give one's folder, e.g. jsprof run " + filepath.Join(two, "extensions", "a")},
		{[]string{"run", targets}, cli.ExitFailure, "t has 2 targets and no tests/fixtures: give inputs with --input"},
		{[]string{"run", escape}, cli.ExitFailure, "[extensions.build] path ../../x.wasm leaves the extension's folder"},
	}
	for _, tt := range tests {
		got := jsprof(t, "", tt.args...)
		assert.Equal(t, tt.code, got.code, "%v: %s", tt.args, got.stderr)
		assert.Contains(t, got.stderr, tt.want, "%v", tt.args)
	}
}

// writeText writes text to path, making its directory.
func writeText(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}
