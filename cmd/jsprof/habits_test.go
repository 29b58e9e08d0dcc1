package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestVersion: --version and the version command print one line, the
// same, from the build information.
func TestVersion(t *testing.T) {
	t.Parallel()
	flag := jsprof(t, "", "--version")
	cmd := jsprof(t, "", "version")
	require.Equal(t, 0, flag.code, flag.stderr)
	require.Equal(t, 0, cmd.code, cmd.stderr)
	assert.Equal(t, flag.stdout, cmd.stdout)
	assert.Regexp(t, `^jsprof \S+, revision .+, go1\.\d+.*\n$`, flag.stdout)
	assert.Equal(t, 1, strings.Count(flag.stdout, "\n"))
	bad := jsprof(t, "", "version", "extra")
	assert.Equal(t, cli.ExitUsage, bad.code)
}

func TestVersionLine(t *testing.T) {
	t.Parallel()
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"release", "v1.2.3", settings("vcs.revision", "0123abcd", "vcs.time", "2026-11-27T08:00:00Z", "vcs.modified", "false"),
			"jsprof v1.2.3, revision 0123abcd (2026-11-27T08:00:00Z), go1.25.0"},
		{"modified tree", "(devel)", settings("vcs.revision", "0123abcd", "vcs.modified", "true"),
			"jsprof (devel), revision 0123abcd, modified, go1.25.0"},
		{"no VCS", "", nil, "jsprof (devel), revision unknown (built without VCS information), go1.25.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Version: tt.version}, Settings: tt.settings}
			assert.Equal(t, tt.want, cli.VersionLine(bi))
		})
	}
}

// TestUnknownCommand: a word that is neither a command nor a module says
// so, with the commands (or, near one, in one line naming it:
// TestFirstContact); a module file is still run without "run".
func TestUnknownCommand(t *testing.T) {
	for _, args := range [][]string{{"profile", "x.wasm"}, {"profile"}, {"statistics", "p.pb.gz"}} {
		got := jsprof(t, "", args...)
		assert.Equal(t, cli.ExitUsage, got.code, args)
		assert.Contains(t, got.stderr, `jsprof: unknown command "`+args[0]+`"`)
		for _, c := range commands() {
			assert.Contains(t, got.stderr, c.name)
		}
		assert.NotContains(t, got.stderr, "no such file or directory")
	}
	// Negative controls: a .wasm path is a module, missing or not, and so
	// is an existing file of any name.
	missing := jsprof(t, "", "missing.wasm")
	assert.Equal(t, cli.ExitFailure, missing.code)
	assert.Contains(t, missing.stderr, "missing.wasm: no such file or directory")
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	renamed := filepath.Join(t.TempDir(), "fibmodule")
	require.NoError(t, os.Link(module, renamed))
	t.Chdir(t.TempDir()) // jsprof module writes jsprof.pb.gz here
	ran := jsprof(t, "", renamed)
	assert.Equal(t, 0, ran.code, ran.stderr)
	assert.NotEmpty(t, ran.stdout)
}

// TestBadFlagIsShort: a bad flag or flag value is told in at most three
// lines, ending with where the flags are told, exit 2, nothing run.
func TestBadFlagIsShort(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--timeout", "2", module}, `invalid value "2" for --timeout: time: missing unit in duration "2"`},
		{[]string{"run", "--bogus", module}, "flag provided but not defined: -bogus"},
		{[]string{"run", "--max-instructions", "many", module}, `invalid value "many" for --max-instructions`},
		{[]string{"run"}, "no module given"},
		{[]string{"report", "--top", "x", "p.pb.gz"}, `invalid value "x" for --top`},
		{[]string{"diff", "--bogus", "a", "b"}, "flag provided but not defined"},
		{[]string{"build", "--plugin"}, "flag needs an argument: -plugin"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:min(2, len(tt.args))], " "), func(t *testing.T) {
			got := jsprof(t, "", tt.args...)
			assert.Equal(t, cli.ExitUsage, got.code)
			lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
			assert.LessOrEqual(t, len(lines), 3, got.stderr)
			assert.Contains(t, lines[0], tt.want)
			assert.Equal(t, "see 'jsprof "+tt.args[0]+" --help'", lines[len(lines)-1])
			assert.Empty(t, got.stdout, "the guest did not run")
		})
	}
}

// TestRunHabits: what a run says about its own command line and profile.
func TestRunHabits(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	t.Run("own flag after the module", func(t *testing.T) {
		t.Parallel()
		prof := filepath.Join(t.TempDir(), "p.pb.gz")
		got := jsprof(t, "", "run", "-o", prof, module, "-o", "x.pb.gz")
		require.Equal(t, 0, got.code, got.stderr)
		assert.Contains(t, got.stderr, "jsprof: warning: -o comes after the module, so it goes to the guest")
		// Negative controls: after --, or not one of jsprof's flags.
		for _, guest := range [][]string{{"--", "-o", "x.pb.gz"}, {"-frobnicate"}, {"plain"}} {
			got := jsprof(t, "", append([]string{"run", "-o", prof, module}, guest...)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.NotContains(t, got.stderr, "warning", guest)
		}
	})
	t.Run("names the profile last", func(t *testing.T) {
		t.Parallel()
		prof := filepath.Join(t.TempDir(), "p.pb.gz")
		got := jsprof(t, "", "run", "-o", prof, module)
		require.Equal(t, 0, got.code, got.stderr)
		lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
		assert.Equal(t, "jsprof: profile written to "+prof+" (jsprof report "+prof+"; go tool pprof -http=: "+prof+")", lines[len(lines)-1])
		_, err := jsprofile.ReadFile(prof)
		require.NoError(t, err)
		quiet := jsprof(t, "", "run", "-q", "-o", prof, module)
		require.Equal(t, 0, quiet.code, quiet.stderr)
		assert.NotContains(t, quiet.stderr, "profile written")
		off := jsprof(t, "", "run", "--mode", "off", module)
		require.Equal(t, 0, off.code, off.stderr)
		assert.NotContains(t, off.stderr, "profile written", "--mode off writes none")
	})
	t.Run("--mode off refuses -o", func(t *testing.T) {
		t.Parallel()
		got := jsprof(t, "", "run", "--mode", "off", "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module)
		assert.Equal(t, cli.ExitUsage, got.code)
		assert.Contains(t, got.stderr, "--mode off writes no profile")
		assert.Empty(t, got.stdout)
	})
	t.Run("JS given to run", func(t *testing.T) {
		t.Parallel()
		got := jsprof(t, "", "run", fixtures.Path("js", "fib.js"))
		assert.Equal(t, cli.ExitUsage, got.code)
		assert.Contains(t, got.stderr, "fib.js is JavaScript, not a Wasm module: build it first (jsprof build --plugin PLUGIN.wasm ")
		assert.Equal(t, 1, strings.Count(got.stderr, "\n"), got.stderr)
	})
}

// TestUnbundledImportHint: Javy compiles one file; an import says to
// bundle first.
func TestUnbundledImportHint(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "index.js")
	require.NoError(t, os.WriteFile(src, []byte("import { run } from \"@shopify/shopify_function\";\nrun();\n"), 0o644))
	got := jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), src, "-o", filepath.Join(t.TempDir(), "x.wasm"))
	assert.Equal(t, cli.ExitFailure, got.code)
	assert.Contains(t, got.stderr, "could not load module '@shopify/shopify_function'; bundle its imports into one file first, e.g. npx esbuild ")
	assert.Equal(t, 1, strings.Count(got.stderr, "\n"), got.stderr)
}

// TestColor: colour only on a terminal without NO_COLOR, and then only
// around warnings and OVER THE LIMIT.
func TestColor(t *testing.T) {
	t.Parallel()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	assert.True(t, cli.UseColor(true, env(nil)))
	assert.False(t, cli.UseColor(false, env(nil)), "not a terminal")
	assert.False(t, cli.UseColor(true, env(map[string]string{"NO_COLOR": "1"})))
	assert.False(t, cli.UseColor(true, env(map[string]string{"TERM": "dumb"})))

	info := jsprofile.RunInfo{Export: "_start", Provider: "p", Codec: "json", InputBytes: 200_000}
	for _, color := range []bool{true, false} {
		var errOut strings.Builder
		io := stdio{err: &errOut, color: color}
		report.WriteFunctionSummary(io.err, 12_000_000, "fuel", info, "", func(s string) string { return paint(io, red, s) })
		warn(io, os.ErrClosed)
		if color {
			assert.Equal(t, 2, strings.Count(errOut.String(), "\x1b[1;31mOVER THE LIMIT\x1b[0m"), errOut.String())
			assert.Contains(t, errOut.String(), "jsprof: \x1b[33mwarning:\x1b[0m ")
		} else {
			assert.NotContains(t, errOut.String(), "\x1b")
			assert.Contains(t, errOut.String(), "— OVER THE LIMIT")
		}
	}
	// Colour is jsprof's own: a test's stdio, as a pipe, has none.
	got := jsprof(t, "", "run", "--mode", "off", "--bogus", "m.wasm")
	assert.NotContains(t, got.stderr, "\x1b")
}
