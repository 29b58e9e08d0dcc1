package extension

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoTargets is the toml of a discount function as Shopify CLI 4.8's
// template writes it.
const twoTargets = `api_version = "2025-04"

[[extensions]]
name = "t:name"
handle = "discount-function"
type = "function"
description = "t:description"

  [[extensions.targeting]]
  target = "cart.lines.discounts.generate.run"
  input_query = "src/cart_lines_discounts_generate_run.graphql"
  export = "cart-lines-discounts-generate-run"

  [[extensions.targeting]]
  target = "cart.delivery-options.discounts.generate.run"
  input_query = "./src/cart_delivery_options_discounts_generate_run.graphql"
  export = "cart-delivery-options-discounts-generate-run"

  [extensions.build]
  command = ""
  path = "dist/function.wasm"
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		toml    string
		want    func(dir string) Extension
		wantErr string
	}{
		{
			name: "two targets, unified",
			toml: twoTargets,
			want: func(dir string) Extension {
				return Extension{Dir: dir, Handle: "discount-function", Type: "function",
					Module: filepath.Join(dir, "dist", "function.wasm"),
					Targets: []Target{
						{Name: "cart.lines.discounts.generate.run", Export: "cart-lines-discounts-generate-run", InputQuery: filepath.Join(dir, "src", "cart_lines_discounts_generate_run.graphql")},
						{Name: "cart.delivery-options.discounts.generate.run", Export: "cart-delivery-options-discounts-generate-run", InputQuery: filepath.Join(dir, "src", "cart_delivery_options_discounts_generate_run.graphql")},
					}}
			},
		},
		{
			name: "flat, no build path: dist/index.wasm",
			toml: "name = \"old\"\ntype = \"function\"\napi_version = \"2023-07\"\n[build]\ncommand = \"cargo wasi build --release\"\n",
			want: func(dir string) Extension {
				return Extension{Dir: dir, Handle: "old", Type: "function", Module: filepath.Join(dir, "dist", "index.wasm")}
			},
		},
		{
			name: "a target without export or query",
			toml: "[[extensions]]\nhandle = \"v\"\ntype = \"function\"\n[[extensions.targeting]]\ntarget = \"purchase.validation.run\"\n",
			want: func(dir string) Extension {
				return Extension{Dir: dir, Handle: "v", Type: "function", Module: filepath.Join(dir, "dist", "index.wasm"),
					Targets: []Target{{Name: "purchase.validation.run"}}}
			},
		},
		{name: "module outside the folder", toml: "type = \"function\"\n[build]\npath = \"../../etc/passwd\"\n", wantErr: "[extensions.build] path ../../etc/passwd leaves the extension's folder"},
		{name: "absolute module path", toml: "type = \"function\"\n[build]\npath = \"/etc/passwd\"\n", wantErr: "leaves the extension's folder"},
		{name: "query outside the folder", toml: "type = \"function\"\n[[targeting]]\ntarget = \"x\"\ninput_query = \"../q.graphql\"\n", wantErr: "targeting[0].input_query ../q.graphql leaves"},
		{name: "export with a control character", toml: "type = \"function\"\n[[targeting]]\ntarget = \"x\"\nexport = \"run\\u001b[2J\"\n", wantErr: `targeting[0].export "run\x1b[2J" is not a Wasm export name`},
		{name: "not a function", toml: "[[extensions]]\nhandle = \"ui\"\ntype = \"ui_extension\"\n", wantErr: "the extension is a ui_extension, not a function"},
		{name: "not toml", toml: "[[extensions]\n\x1b[31m", wantErr: "shopify.extension.toml: toml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{TOMLName: tt.toml})
			e, err := Load(dir)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), "\x1b", "the toml's bytes reach the terminal escaped")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want(dir), *e)
		})
	}
}

func TestLoadFindsFilesBeside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		TOMLName:                twoTargets,
		SchemaName:              "type Query { x: Int }",
		"tests/fixtures/a.json": "{}",
		"src/index.ts":          "export * from './run';",
		"package.json":          `{"dependencies":{"@shopify/shopify_function":"2.0.1"}}`,
		"node_modules/@shopify/shopify_function/package.json":          `{"name":"@shopify/shopify_function","version":"2.0.1"}`,
		"node_modules/@shopify/cli/bin/shopify_functions_javy_v4.wasm": "\x00asm",
	})
	e, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, SchemaName), e.Schema)
	assert.Equal(t, filepath.Join(dir, "tests", "fixtures"), e.Fixtures)
	assert.Equal(t, filepath.Join(dir, "src", "index.ts"), e.Entry)
	assert.Equal(t, Provider{Name: "shopify_functions_javy_v4", Path: filepath.Join(dir, "node_modules", "@shopify", "cli", "bin", "shopify_functions_javy_v4.wasm")}, e.Provider)
	assert.Equal(t, "function discount-function: dist/function.wasm, 2 targets: cart-lines-discounts-generate-run, cart-delivery-options-discounts-generate-run; provider "+e.Provider.Path+"; schema.graphql; fixtures in tests/fixtures", e.Describe())
	assert.EqualError(t, e.NotBuilt(), "function discount-function is not built: "+e.Module+" does not exist; build it with 'shopify app function build', or bundle src/index.ts with esbuild and 'jsprof build --dynamic --plugin shopify_functions_javy_v4.wasm --export cart-lines-discounts-generate-run --export cart-delivery-options-discounts-generate-run BUNDLE.js -o dist/function.wasm'")
	tgt, ok := e.Target("cart-delivery-options-discounts-generate-run")
	require.True(t, ok)
	assert.Equal(t, "cart.delivery-options.discounts.generate.run", tgt.Name)
	_, ok = e.Target("nope")
	assert.False(t, ok, "negative control: an export the toml does not name")
}

func TestProvider(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  Provider
		why   string
	}{
		{
			name: "library 1.x: v1, in the app's node_modules two folders up",
			files: map[string]string{
				"app/node_modules/@shopify/shopify_function/package.json":          `{"version":"1.0.4"}`,
				"app/node_modules/@shopify/cli/bin/shopify_functions_javy_v1.wasm": "x",
			},
			want: Provider{Name: "shopify_functions_javy_v1"},
		},
		{
			name:  "no library",
			files: map[string]string{},
			why:   "@shopify/shopify_function) is not installed",
		},
		{
			name:  "a version Shopify CLI does not know",
			files: map[string]string{"app/node_modules/@shopify/shopify_function/package.json": `{"version":"3.0.0"}`},
			why:   `version "3.0.0" is not one Shopify CLI builds with`,
		},
		{
			name:  "library 2.x, provider not downloaded",
			files: map[string]string{"app/node_modules/@shopify/shopify_function/package.json": `{"version":"2.0.1"}`},
			want:  Provider{Name: "shopify_functions_javy_v4"},
			why:   "shopify_functions_javy_v4.wasm is not where Shopify CLI keeps it",
		},
		{
			name: "a folder named like the provider is not it",
			files: map[string]string{
				"app/node_modules/@shopify/shopify_function/package.json":            `{"version":"2.0.1"}`,
				"app/node_modules/@shopify/cli/bin/shopify_functions_javy_v4.wasm/x": "x",
			},
			want: Provider{Name: "shopify_functions_javy_v4"},
			why:  "is not where Shopify CLI keeps it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			ext := filepath.Join(root, "app", "extensions", "f")
			require.NoError(t, os.MkdirAll(ext, 0o755))
			got := findProvider(ext)
			if tt.why != "" {
				assert.Contains(t, got.Why, tt.why)
				assert.Empty(t, got.Path)
				assert.Equal(t, tt.want.Name, got.Name)
				return
			}
			assert.Empty(t, got.Why)
			assert.Equal(t, tt.want.Name, got.Name)
			assert.Equal(t, filepath.Join(root, "app", "node_modules", "@shopify", "cli", "bin", tt.want.Name+".wasm"), got.Path)
		})
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	fn := "[[extensions]]\nhandle = \"%s\"\ntype = \"function\"\n"
	ui := "[[extensions]]\nhandle = \"ui\"\ntype = \"ui_extension\"\n"
	one := t.TempDir()
	writeFiles(t, one, map[string]string{
		"extensions/a/" + TOMLName:  "[[extensions]]\nhandle = \"a\"\ntype = \"function\"\n",
		"extensions/ui/" + TOMLName: ui,
	})
	e, err := Find(one)
	require.NoError(t, err)
	assert.Equal(t, "a", e.Handle)
	e, err = Find(filepath.Join(one, "extensions", "a"))
	require.NoError(t, err, "the extension's own folder")
	assert.Equal(t, "a", e.Handle)

	two := t.TempDir()
	writeFiles(t, two, map[string]string{
		"extensions/a/" + TOMLName: fmt.Sprintf(fn, "a"),
		"extensions/b/" + TOMLName: fmt.Sprintf(fn, "b"),
	})
	_, err = Find(two)
	assert.ErrorContains(t, err, "the app has 2 functions (a, b); give one's folder, e.g. jsprof run "+filepath.Join(two, "extensions", "a"))

	_, err = Find(t.TempDir())
	assert.ErrorIs(t, err, ErrNoExtension)
}

// TestFill: what a run takes from the folder, and what the command line
// keeps.
func TestFill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{TOMLName: twoTargets, SchemaName: "type Query { x: Int }", "tests/fixtures/a.json": "{}"})
	two, err := Load(dir)
	require.NoError(t, err)
	one := &Extension{Module: "m.wasm", Schema: "schema.graphql", Targets: []Target{{Name: "t", Export: "run-t", InputQuery: "q.graphql"}}}
	noSchema := &Extension{Module: "m.wasm", Targets: []Target{{Name: "t", InputQuery: "q.graphql"}}}
	tests := []struct {
		name    string
		ext     *Extension
		given   Run
		want    Run
		wantErr string
	}{
		{"two targets: fixtures, scaled by export", two, Run{}, Run{Module: two.Module, Inputs: []string{two.Fixtures}}, ""},
		{"given inputs and plugin kept", two, Run{Plugins: []string{"p"}, Inputs: []string{"in"}, Export: "cart-lines-discounts-generate-run"},
			Run{Module: two.Module, Plugins: []string{"p"}, Inputs: []string{"in"}, Export: "cart-lines-discounts-generate-run", Schema: two.Schema, Query: two.Targets[0].InputQuery}, ""},
		{"one target: its export, schema and query", one, Run{}, Run{Module: "m.wasm", Export: "run-t", Schema: "schema.graphql", Query: "q.graphql"}, ""},
		{"given schema and query kept", one, Run{Schema: "s", Query: "q"}, Run{Module: "m.wasm", Export: "run-t", Schema: "s", Query: "q"}, ""},
		{"no schema: no scaling", noSchema, Run{}, Run{Module: "m.wasm"}, ""},
		{"no schema: the query names fields", noSchema, Run{NamesFields: true}, Run{Module: "m.wasm", Query: "q.graphql", NamesFields: true}, ""},
		{"two targets, nothing to run", &Extension{Handle: "h", Targets: two.Targets}, Run{}, Run{}, "h has 2 targets and no tests/fixtures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.ext.Fill(tt.given)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Equal(t, map[string]string{"cart-lines-discounts-generate-run": two.Targets[0].InputQuery, "cart-delivery-options-discounts-generate-run": two.Targets[1].InputQuery}, two.Queries())
}
