package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestBuildEmbedsSourceForReport: jsprof build embeds the JS in the module
// (javy_source, as the Javy CLI does), and jsprof report --html finds the
// profile's module without being told, beside the profile or in the
// current directory, and annotates the page with that JS: the JS file
// itself need not be there.
func TestBuildEmbedsSourceForReport(t *testing.T) {
	const src = "function add(a, b) {\n  return a + b;\n}\nlet s = 0;\nfor (let i = 0; i < 3000; i++) s = add(s, i);\nconsole.log(s);\n"
	dir := t.TempDir()
	js, wasm, prof := filepath.Join(dir, "app.js"), filepath.Join(dir, "app.wasm"), filepath.Join(dir, "app.pb.gz")
	require.NoError(t, os.WriteFile(js, []byte(src), 0o644))
	got := jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), js, "-o", wasm)
	require.Equal(t, 0, got.code, got.stderr)
	module, err := os.ReadFile(wasm)
	require.NoError(t, err)
	m, err := wasmcore.Decode(module)
	require.NoError(t, err)
	assert.Equal(t, "app.js", javy.SourceOf(m))
	embedded, err := javy.ModuleSource(module, "app.wasm")
	require.NoError(t, err, "the module carries its JS")
	assert.Equal(t, src, string(embedded.Text))

	got = jsprof(t, "", "run", "-q", "-o", prof, wasm)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, "4498500\n", got.stdout)
	require.NoError(t, os.Remove(js), "the page's source is the module's")

	elsewhere := t.TempDir()
	moved := filepath.Join(elsewhere, "app.pb.gz")
	b, err := os.ReadFile(prof)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(moved, b, 0o644))
	tests := []struct {
		name    string
		cwd     string // "": the test's own
		profile string
		from    string // the page's "source:" note; "": not annotated
	}{
		{"the module beside the profile", "", prof, wasm + " (javy_source)"},
		{"the module in the current directory", dir, moved, "app.wasm (javy_source)"},
		{"no module to be found", "", moved, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cwd != "" {
				t.Chdir(tt.cwd)
			}
			page := filepath.Join(t.TempDir(), "report.html")
			got := jsprof(t, "", "report", "--html", page, tt.profile)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Empty(t, got.stderr)
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			html := string(b)
			has := func(s string) bool { return strings.Contains(html, s) }
			if tt.from == "" {
				assert.False(t, has(`<section class="source"`), "no source view")
				assert.True(t, has(`<p class="note" id="no-source">No source text for app.js:`))
				return
			}
			assert.True(t, has(`<section class="source" id="src-0" data-file="app.js">`), "the source view")
			assert.True(t, has("source: "+htmlEscape(tt.from)+"</span>"), "from %s", tt.from)
			assert.True(t, has("<code>let s = 0;</code>"))
			assert.Equal(t, strings.Count(src, "\n"), strings.Count(html, `<div class="sl`), "every line of app.js")
		})
	}
}
