package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
)

// TestRunHTML: jsprof run --html writes, as it runs, the page jsprof
// report --html writes of the profile afterwards, byte for byte: its
// tables, flame graph and the module's JS annotated. The page is one of
// the run's outputs: checked against what the run reads, refused without
// a profile.
func TestRunHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	module := filepath.Join(dir, "fib.wasm")
	require.NoError(t, os.Rename(buildJS(t, fixtures.Path("js", "fib.js")), module))
	profile, page, again := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "run.html"), filepath.Join(dir, "report.html")

	got := jsprof(t, "", "run", "-q", "--html", page, "-o", profile, module)
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "report", "--html", again, profile)
	require.Equal(t, 0, got.code, got.stderr)
	ran, err := os.ReadFile(page)
	require.NoError(t, err)
	reported, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Contains(t, string(ran), "<title>jsprof report: p.pb.gz</title>")
	assert.Contains(t, string(ran), "function fib(", "the module's JS, annotated")
	assert.Equal(t, string(reported), string(ran), "run --html is report --html's page")

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no profile", []string{"--mode", "off", "--html", page}, "--report, --report-json, --collapsed and --html need a profiling --mode"},
		{"the module", []string{"--html", module}, "--html " + module + ": that is the module being run"},
		{"two outputs", []string{"--html", profile, "-o", profile}, "-o and --html both name " + profile},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), module)...)
			assert.Equal(t, cli.ExitUsage, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
}
