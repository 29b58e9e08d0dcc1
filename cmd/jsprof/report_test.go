package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureProfile is a profile of jsframes' tests (fib.js on two engines,
// built by jsframes/report_fixture_test.go).
func fixtureProfile(name string) string {
	return filepath.Join("..", "..", "jsframes", "report", "testdata", name)
}

// goldenOf reads one of jsframes' golden files: the command must print
// what the library writes.
func goldenOf(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "jsframes", "report", "testdata", "golden", name))
	require.NoError(t, err)
	return string(b)
}

func TestReportCommand(t *testing.T) {
	base := fixtureProfile("fib-base.pb.gz")
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"text by opcode", []string{base}, "report-base-by-opcode.txt"},
		{"csv by opcode", []string{"--csv", base}, "report-base-by-opcode.csv"},
		{"json by opcode", []string{"--json", base}, "report-base-by-opcode.json"},
		{"top", []string{"--top", "5", base}, "report-base-by-opcode-top5.txt"},
		{"by function", []string{"--by", "function", base}, "report-base-by-function.txt"},
		{"by function csv top", []string{"--by", "function", "--csv", "--top", "3", base}, "report-base-by-function-top3.csv"},
		{"by line json", []string{"--by", "line", "--json", base}, "report-base-by-line.json"},
		{"one function", []string{"--function", "fibLoop", base}, "report-base-fibloop-by-opcode.txt"},
		{"flags after the profile", []string{base, "--by", "function", "--top", "3", "--csv"}, "report-base-by-function-top3.csv"},
		{"one function by line", []string{"--by", "line", "--function", "fib", fixtureProfile("fib-new.pb.gz")}, "report-new-fib-by-line.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"report"}, tt.args...)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Empty(t, got.stderr)
			assert.Equal(t, goldenOf(t, tt.golden), got.stdout)
		})
	}
}

func TestReportCommandHTML(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	got := jsprof(t, "", "report", "--html", page, "--by", "line", "--top", "2", fixtureProfile("fib-base.pb.gz"))
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, 3+1+2+2+1, strings.Count(got.stdout, "\n"), "the text report, cut to 2 rows, on stdout:\n%s", got.stdout)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	html := string(b)
	assert.Contains(t, html, "<title>jsprof report: fib-base.pb.gz</title>")
	assert.Equal(t, 2, strings.Count(html, `<tr class="opcode" `), "--top cuts the page's tables too")
	assert.Equal(t, 2, strings.Count(html, `<tr class="line" `))
}

func TestReportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	notProfile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notProfile, []byte("not a profile"), 0o644))
	base := fixtureProfile("fib-base.pb.gz")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no profile", nil, exitUsage, "want one profile, have 0"},
		{"two profiles", []string{base, base}, exitUsage, "want one profile, have 2"},
		{"missing", []string{filepath.Join(dir, "nope.pb.gz")}, exitFailure, "nope.pb.gz: no such file"},
		{"not a profile", []string{notProfile}, exitFailure, "notes.txt: not a pprof profile"},
		{"csv and json", []string{"--csv", "--json", base}, exitUsage, "--csv and --json: choose one"},
		{"bad top", []string{"--top", "-3", base}, exitUsage, "--top -3: want 0 (all) or more"},
		{"bad view", []string{"--by", "file", base}, exitUsage, "--by file: want opcode, function, line or summary"},
		{"unknown function", []string{"--function", "nope", base}, exitUsage, `no JS function named "nope" in the profile (it has fib, <eval>, fibLoop)`},
		{"html in a missing directory", []string{"--html", filepath.Join(dir, "no", "such", "dir", "r.html"), base}, exitFailure, "r.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"report"}, tt.args...)...)
			assert.Equal(t, tt.code, got.code)
			assert.Contains(t, got.stderr, tt.want)
			assert.Empty(t, got.stdout)
		})
	}
}
