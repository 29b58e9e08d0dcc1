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

// TestFirstContact: issue 39's first-contact cases, each told in one line
// (a bad flag's is followed by where the flags are told) naming the fix,
// with the exit code docs/running.md gives.
func TestFirstContact(t *testing.T) {
	t.Parallel()
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	static := buildJS(t, fixtures.Path("js", "fib.js"))
	dynamic := filepath.Join(t.TempDir(), "fibdyn.wasm")
	got := jsprof(t, "", "build", "--dynamic", "--plugin", plugin, fixtures.Path("js", "fib.js"), "-o", dynamic)
	require.Equal(t, 0, got.code, got.stderr)
	orders := filepath.Join(t.TempDir(), "orders.js")
	require.NoError(t, os.WriteFile(orders, []byte("console.log(1)\n"), 0o644))
	notWasm := filepath.Join(t.TempDir(), "notes.txt")
	require.NoError(t, os.WriteFile(notWasm, []byte("hello\n"), 0o644))
	missing := filepath.Join(t.TempDir(), "missing.wasm")
	tests := []struct {
		name string
		args []string
		code int
		line string // the first line of stderr
		see  bool   // followed by "see 'jsprof CMD --help'"
	}{
		{"mistyped flag", []string{"-plugn", plugin, static}, cli.ExitUsage,
			"jsprof: run: flag provided but not defined: -plugn (did you mean --plugin?)", true},
		{"mistyped flag of report", []string{"report", "--jsn", "p.pb.gz"}, cli.ExitUsage,
			"jsprof: report: flag provided but not defined: -jsn (did you mean --json?)", true},
		{"mistyped command", []string{"reprot", "p.pb.gz"}, cli.ExitUsage,
			`jsprof: unknown command "reprot" (and no such module file): did you mean 'jsprof report'?`, false},
		{"JS given for the plugin", []string{"run", "--plugin", orders, dynamic}, cli.ExitFailure,
			"jsprof: --plugin " + orders + " is JavaScript, not a plugin: --plugin takes the .wasm of the Javy plugin or Shopify provider the module imports, or a folder of providers (the JS goes to jsprof build --plugin PLUGIN.wasm " + orders + ")", false},
		{"JS given for build's plugin", []string{"build", "--plugin", orders, fixtures.Path("js", "fib.js"), "-o", filepath.Join(t.TempDir(), "x.wasm")}, cli.ExitFailure,
			"jsprof: --plugin " + orders + " is JavaScript, not a plugin: --plugin takes the .wasm of the Javy plugin or Shopify provider the module imports, or a folder of providers (the JS goes to jsprof build --plugin PLUGIN.wasm " + orders + ")", false},
		{"a file that is no module for the plugin", []string{"run", "--plugin", notWasm, static}, cli.ExitFailure,
			"jsprof: --plugin " + notWasm + " is not a Wasm module: --plugin takes the .wasm of the Javy plugin or Shopify provider the module imports, or a folder of providers", false},
		{"missing plugin, static module", []string{"run", "--plugin", missing, static}, cli.ExitFailure,
			"jsprof: --plugin " + missing + ": no such file or directory; --plugin takes the .wasm of the Javy plugin or Shopify provider the module imports, or a folder of providers", false},
		{"missing plugin, dynamic module", []string{"run", "--plugin", missing, dynamic}, cli.ExitFailure,
			"jsprof: --plugin " + missing + ": no such file or directory; --plugin takes the .wasm of the Javy plugin or Shopify provider the module imports, or a folder of providers", false},
		{"a module given to report", []string{"report", static}, cli.ExitFailure,
			"jsprof: " + static + " is a Wasm module, not a profile: profile it with jsprof run --report " + static, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := jsprof(t, "", tt.args...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Empty(t, got.stdout, "nothing ran")
			lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
			assert.Equal(t, tt.line, lines[0])
			if tt.see {
				require.Len(t, lines, 2, got.stderr)
				cmd, _, _ := strings.Cut(strings.TrimPrefix(lines[0], "jsprof: "), ":")
				assert.Equal(t, "see 'jsprof "+cmd+" --help'", lines[1])
			} else {
				assert.Len(t, lines, 1, got.stderr)
			}
		})
	}
	// Negative controls: a flag spelt right, and a word near no command
	// (the commands listed instead), get no suggestion; a plugin given
	// that is a module is taken as before.
	ok := jsprof(t, "", "run", "--plugin", plugin, static)
	assert.Equal(t, 0, ok.code, ok.stderr)
	assert.NotContains(t, ok.stderr, "did you mean")
	far := jsprof(t, "", "profile", "x")
	assert.NotContains(t, far.stderr, "did you mean")
	assert.Contains(t, far.stderr, "commands:")
}

// TestPlainWASIProgram: a program with no JS interpreter runs the same
// whatever profile was asked for: the guest's exit code, one line saying
// it runs without a profile and how to run it so quietly, nothing written.
func TestPlainWASIProgram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const want = "jsprof: exit3.wasm holds no JS interpreter to profile ("
	for _, flags := range [][]string{nil, {"--report"}, {"-o", filepath.Join(dir, "x.pb.gz")}, {"--report-json", filepath.Join(dir, "r.json")},
		{"--html", filepath.Join(dir, "r.html")}, {"--mode", "sample", "-o", filepath.Join(dir, "s.pb.gz")}} {
		got := jsprof(t, "", append(append([]string{"run"}, flags...), "testdata/exit3.wasm")...)
		assert.Equal(t, 3, got.code, "the guest's exit code, %v", flags)
		assert.True(t, strings.HasPrefix(got.stderr, want), "%v: %s", flags, got.stderr)
		assert.True(t, strings.HasSuffix(got.stderr, "): running it without a profile, nothing written (--mode off runs it so, without this line)\n"), "%v: %s", flags, got.stderr)
		assert.Equal(t, 1, strings.Count(got.stderr, "\n"), "%v: %s", flags, got.stderr)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no output written")
	// Negative control: --mode off says nothing.
	off := jsprof(t, "", "run", "--mode", "off", "testdata/exit3.wasm")
	assert.Equal(t, 3, off.code)
	assert.Empty(t, off.stderr)
}

// TestBuildSaysWhereItWrote: build without -o writes index.wasm, as the
// Javy CLI does, and says so in one line with how to run it; with -o it
// says nothing.
func TestBuildSaysWhereItWrote(t *testing.T) {
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	src := fixtures.Path("js", "fib.js")
	t.Chdir(t.TempDir())
	got := jsprof(t, "", "build", "--plugin", plugin, src)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, "jsprof: wrote index.wasm, as no -o was given: run it with jsprof run index.wasm\n", got.stderr)
	_, err := os.Stat("index.wasm")
	require.NoError(t, err)
	dyn := jsprof(t, "", "build", "--dynamic", "--plugin", plugin, src)
	require.Equal(t, 0, dyn.code, dyn.stderr)
	assert.Equal(t, "jsprof: wrote index.wasm, as no -o was given: run it with jsprof run --plugin "+plugin+" index.wasm\n", dyn.stderr)
	quiet := jsprof(t, "", "build", "--plugin", plugin, src, "-o", "fib.wasm")
	require.Equal(t, 0, quiet.code, quiet.stderr)
	assert.Empty(t, quiet.stderr)
}
