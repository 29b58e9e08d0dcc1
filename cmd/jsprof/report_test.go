package main

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/wasmcore"
)

// fixtureProfile is a profile of the views' tests: fib.js on two engines,
// built by internal/view/reporttest (fixture.go), or under real/ one
// of its real profiles.
func fixtureProfile(name string) string {
	return filepath.Join("..", "..", "internal", "view", "reporttest", "testdata", name)
}

// goldenOf reads one of the golden files of package internal/view/pkg (report
// or diff): the command must print what the library writes.
func goldenOf(t *testing.T, pkg, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "view", pkg, "testdata", "golden", name))
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
		{"by wasm", []string{"--by", "wasm", "--top", "10", fixtureProfile(filepath.Join("real", "sort-quickjs-2024-sample.pb.gz"))}, "real-sort-quickjs-2024-sample-by-wasm.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"report"}, tt.args...)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Empty(t, got.stderr)
			assert.Equal(t, goldenOf(t, "report", tt.golden), got.stdout)
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

// realProfile is one of the views' real profiles (fixtures/js on a real
// engine; its JS file is Javy's function.mjs).
func realProfile(name string) string { return fixtureProfile(filepath.Join("real", name)) }

func TestReportCommandHTMLSource(t *testing.T) {
	dir := t.TempDir()
	sortJS := fixtures.Path("js", "sort.js")
	src, err := os.ReadFile(sortJS)
	require.NoError(t, err)
	var compressed bytes.Buffer
	w := brotli.NewWriter(&compressed)
	_, err = w.Write(src)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	header := []byte("\x00asm\x01\x00\x00\x00")
	module := func(name string, sections ...string) string {
		m := header
		for i := 0; i+1 < len(sections); i += 2 {
			data := []byte(sections[i+1])
			if sections[i] == javy.JavySourceSection {
				data = compressed.Bytes()
			}
			m = wasmcore.AppendCustomSection(m, sections[i], data)
		}
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, m, 0o644))
		return path
	}
	javyCLI := module("javy.wasm", javy.JavySourceSection, "")
	named := module("named.wasm", "jsprof.source", "sort.js")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "built"), 0o755))
	beside := filepath.Join(dir, "built", "index.wasm")
	require.NoError(t, os.Rename(module("tmp.wasm", "jsprof.source", "sort.js"), beside))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "built", "sort.js"), src, 0o644))
	bare := module("bare.wasm")
	tests := []struct {
		name   string
		args   []string
		from   string // the page's "source:" note; "" when not annotated
		stderr string
	}{
		{"--source, the one JS file", []string{"--source", sortJS}, "--source " + sortJS, ""},
		{"--module, javy_source", []string{"--module", javyCLI}, javyCLI + " (javy_source)", ""},
		{"--module of jsprof build, its JS beside it", []string{"--module", beside}, filepath.Join(dir, "built", "sort.js") + " (named by " + beside + ")", ""},
		{"--module of jsprof build, no JS", []string{"--module", named}, "", "it was built from sort.js and carries no JS source, and sort.js is not beside it; not annotated"},
		{"--module without source", []string{"--module", bare}, "", "the module carries no JS source"},
		{"two sources for one file", []string{"--source", sortJS, "--source", filepath.Join(dir, "built", "sort.js")}, "", "no JS file of that name in the profile; not annotated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "report.html")
			got := jsprof(t, "", append([]string{"report", "--html", page}, append(tt.args, realProfile("sort-quickjs-ng-0.10.pb.gz"))...)...)
			require.Equal(t, 0, got.code, got.stderr)
			if tt.stderr == "" {
				assert.Empty(t, got.stderr)
			} else {
				assert.Contains(t, got.stderr, tt.stderr)
			}
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			html := string(b)
			assert.True(t, strings.Contains(html, `<script type="application/json" id="flame-data">{"mode":"exact"`), "the flame graph")
			has := func(s string, why ...any) {
				t.Helper()
				assert.True(t, strings.Contains(html, s), append([]any{"the page lacks %q", s}, why...)...)
			}
			if tt.from == "" {
				assert.False(t, strings.Contains(html, `<section class="source"`), "no source view")
				has(`<p class="note" id="no-source">No source text for function.mjs:`)
				return
			}
			has(`<section class="source" id="src-0" data-file="function.mjs">`, "sort.js is Javy's function.mjs")
			has("source: " + htmlEscape(tt.from) + "</span>")
			has(`<div class="sl hot hottest" id="src-0-L60" data-line="60" data-instr="11287878" data-total="11287878"`)
			has("<code>function insertionSort(arr, cmp) {</code>")
		})
	}
}

func htmlEscape(s string) string { return template.HTMLEscapeString(s) }

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
		{"no profile", nil, cli.ExitUsage, "want one profile, have 0"},
		{"two profiles", []string{base, base}, cli.ExitUsage, "want one profile, have 2"},
		{"missing", []string{filepath.Join(dir, "nope.pb.gz")}, cli.ExitFailure, "nope.pb.gz: no such file"},
		{"not a profile", []string{notProfile}, cli.ExitFailure, "notes.txt: not a pprof profile"},
		{"csv and json", []string{"--csv", "--json", base}, cli.ExitUsage, "--csv and --json: choose one"},
		{"bad top", []string{"--top", "-3", base}, cli.ExitUsage, "--top -3: want 0 (all) or more"},
		{"bad view", []string{"--by", "file", base}, cli.ExitUsage, "--by file: want opcode, function, line, summary or wasm"},
		{"wasm view of one function", []string{"--by", "wasm", "--function", "fib", base}, cli.ExitUsage, "--by wasm covers the whole profile: --function fib does not apply to it"},
		{"unknown function", []string{"--function", "nope", base}, cli.ExitUsage, `no JS function named "nope" in the profile (it has fib, <eval>, fibLoop)`},
		{"html in a missing directory", []string{"--html", filepath.Join(dir, "no", "such", "dir", "r.html"), base}, cli.ExitFailure, "r.html"},
		{"source without html", []string{"--source", notProfile, base}, cli.ExitUsage, "--source and --module annotate the HTML report: add --html FILE"},
		{"module without html", []string{"--module", notProfile, base}, cli.ExitUsage, "add --html FILE"},
		{"missing source", []string{"--html", filepath.Join(dir, "r.html"), "--source", filepath.Join(dir, "nope.js"), base}, cli.ExitFailure, "--source: open " + filepath.Join(dir, "nope.js")},
		{"module not a module", []string{"--html", filepath.Join(dir, "r.html"), "--module", notProfile, base}, cli.ExitFailure, "--module " + notProfile},
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

// lineNoteProgram: const groups = new Map() runs once, on line 3; the
// next loop's test (j < 1000) starts with an opcode (get_loc j) before
// QuickJS-NG's first position of the loop (the right operand, 1000).
const lineNoteProgram = `const items = [];
for (let i = 0; i < 200; i++) items.push(i);
const groups = new Map();
let sum = 0;
for (let j = 0; j < 1000; j++) {
  sum += j * 2;
}
console.log(sum, groups.size);
`

// TestLineNoteQuickJSNG: on QuickJS-NG (the v4 provider) the engine's
// line table puts the loop test's first opcode on the line before it
// (line 3, run once, shows the 1,001 executions of get_loc j), and
// report --by line and the HTML report say so, once; on Bellard's QuickJS
// (the v3 provider: the negative control) line 3 runs its own few
// opcodes and nothing is said.
func TestLineNoteQuickJSNG(t *testing.T) {
	providers := fixtures.ProvidersDir(t)
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("prog.js", []byte(lineNoteProgram), 0o644))
	require.NoError(t, os.WriteFile("in.json", []byte("{}"), 0o644))
	const note = "QuickJS-NG marks lines at calls and operators, not at statements"
	for _, c := range []struct {
		provider string
		ng       bool
	}{{"shopify_functions_javy_v4", true}, {"shopify_functions_javy_v3", false}} {
		got := jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providers, c.provider+".wasm"), "prog.js", "-o", c.provider+".wasm")
		require.Equal(t, 0, got.code, got.stderr)
		out := c.provider + ".pb.gz"
		got = jsprof(t, "", "run", "-q", "--plugin", providers, "--input", "in.json", "-o", out, c.provider+".wasm")
		require.Equal(t, 0, got.code, got.stderr)

		var line3 uint64
		for _, l := range mappedReport(t, "--by", "line", out).Lines {
			if l.File == "prog.js" && l.Line == 3 {
				line3 += l.Executions
			}
		}
		text := jsprof(t, "", "report", "--by", "line", out)
		require.Equal(t, 0, text.code, text.stderr)
		got = jsprof(t, "", "report", "--html", c.provider+".html", out)
		require.Equal(t, 0, got.code, got.stderr)
		page, err := os.ReadFile(c.provider + ".html")
		require.NoError(t, err)
		if c.ng {
			assert.Greater(t, line3, uint64(1000), "the loop's test counts on line 3")
			assert.Equal(t, 1, strings.Count(text.stdout, note), text.stdout)
			assert.Contains(t, text.stdout, "\nnote: "+note)
			assert.Equal(t, 1, strings.Count(string(page), note))
		} else {
			assert.Less(t, line3, uint64(10), "line 3 runs once on Bellard's QuickJS")
			assert.NotContains(t, text.stdout, note)
			assert.NotContains(t, string(page), note)
		}
	}
}
