package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

func TestDiffCommand(t *testing.T) {
	base, new := fixtureProfile("fib-base.pb.gz"), fixtureProfile("fib-new.pb.gz")
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"text", []string{base, new}, "diff.txt"},
		{"top", []string{"--top", "3", base, new}, "diff-top3.txt"},
		{"csv", []string{"--csv", base, new}, "diff.csv"},
		{"json", []string{"--json", base, new}, "diff.json"},
		{"flags between and after", []string{base, "--top", "3", new}, "diff-top3.txt"},
		{"by opcode", []string{"--by", "opcode", base, new}, "diff.txt"},
		{"by wasm", []string{"--by", "wasm", "--top", "12", fixtureProfile(filepath.Join("real", "sort-quickjs-2024-sample.pb.gz")),
			fixtureProfile(filepath.Join("real", "sort-quickjs-ng-0.10-sample.pb.gz"))}, "real-diff-sort-sample-by-wasm.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"diff"}, tt.args...)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Empty(t, got.stderr)
			assert.Equal(t, goldenOf(t, "diff", tt.golden), got.stdout)
		})
	}

	page := filepath.Join(t.TempDir(), "diff.html")
	got := jsprof(t, "", "diff", "--html", page, base, new)
	require.Equal(t, 0, got.code, got.stderr)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<title>jsprof diff: fib-base.pb.gz → fib-new.pb.gz</title>")
	assert.Equal(t, 19, strings.Count(string(b), `<tr class="opcode-change" `))
	assert.Contains(t, string(b), `<script type="application/json" id="flame-data">{"mode":"exact","diff":true,`, "the new run's flame graph, with the base's values")
}

func TestDiffCommandErrors(t *testing.T) {
	base := fixtureProfile("fib-base.pb.gz")
	missing := filepath.Join(t.TempDir(), "nope.pb.gz")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one profile", []string{base}, cli.ExitUsage, "want two profiles, BASE and NEW, have 1"},
		{"missing new", []string{base, missing}, cli.ExitFailure, "nope.pb.gz"},
		{"csv and json", []string{"--csv", "--json", base, base}, cli.ExitUsage, "choose one"},
		{"bad top", []string{"--top", "-5", base, base}, cli.ExitUsage, "--top -5"},
		{"bad view", []string{"--by", "lines", base, base}, cli.ExitUsage, "diff: --by lines: want opcode, function, line or wasm"},
		{"bad floor", []string{"--fail-over", "5", "--fail-floor", "-1", base, base}, cli.ExitUsage, "--fail-floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"diff"}, tt.args...)...)
			assert.Equal(t, tt.code, got.code)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
}

// TestDiffHTMLSavedProfiles: jsprof compare names the functions after
// the user's JS, says the engine changed, draws on its --html page the
// flame graphs diff --html draws of its profiles, and keeps (--out-dir)
// both runs' profiles, each with its Wasm frames (the second run's meter
// once got the first's listeners from wazero's shared compilation cache,
// and its profile none); jsprof diff --html of them matches the flame
// graphs as the in-memory diff does (TestHTMLCartDiff): at least 90% of
// each run's nodes are found in the other.
func TestDiffHTMLSavedProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles programs on two engines")
	}
	tests := []struct {
		name      string
		base, new func(t *testing.T) string
		args      []string
	}{
		{"cart.js, javy-plugin 1.1.0 to 1.7.0",
			func(t *testing.T) string { return fixtures.EnginePath(t, "javy-plugin-1.1.0") },
			func(t *testing.T) string { return fixtures.EnginePath(t, "javy-plugin-1.7.0") },
			[]string{fixtures.Path("js", "cart.js")}},
		{"a Shopify function, shopify_functions_javy_v3 to v4",
			func(t *testing.T) string {
				return filepath.Join(fixtures.ProvidersDir(t), "shopify_functions_javy_v3.wasm")
			},
			func(t *testing.T) string {
				return filepath.Join(fixtures.ProvidersDir(t), "shopify_functions_javy_v4.wasm")
			},
			[]string{"--input", filepath.Join("testdata", "shopify", "input.json"), filepath.Join("testdata", "shopify", "shopify_function.js")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			comparePage := filepath.Join(t.TempDir(), "compare.html")
			got := jsprof(t, "", append([]string{"compare", "--out-dir", dir, "--html", comparePage, "--plugin", tt.base(t), "--plugin", tt.new(t)}, tt.args...)...)
			require.Equal(t, 0, got.code, got.stderr)
			// compare names the functions after the user's JS, not the
			// name Javy compiles it as, and says the engine changed.
			js := filepath.Base(tt.args[len(tt.args)-1])
			assert.Contains(t, got.stdout, "("+js+":")
			assert.NotContains(t, got.stdout, "function.mjs")
			assert.Contains(t, strings.Join(strings.Fields(got.stdout), " "), "The engine changed (code sha256 ")
			profiles := []string{filepath.Join(dir, "base.pb.gz"), filepath.Join(dir, "new.pb.gz")}
			for _, p := range profiles {
				jp, err := jsprofile.ReadFile(p)
				require.NoError(t, err)
				assert.Positive(t, jp.Meta.WasmStacks, "%s has its Wasm frames", filepath.Base(p))
			}
			page := filepath.Join(dir, "diff.html")
			got = jsprof(t, "", append([]string{"diff", "--html", page}, profiles...)...)
			require.Equal(t, 0, got.code, got.stderr)
			m := flameMatches(t, readFileText(t, page))
			t.Logf("%d nodes: of new's %d, %d in the base; of the base's %d, %d in new", m.nodes, m.inNew, m.found, m.inBase, m.kept)
			assert.GreaterOrEqual(t, float64(m.found), 0.9*float64(m.inNew), "new's stacks are found in the base")
			assert.GreaterOrEqual(t, float64(m.kept), 0.9*float64(m.inBase), "and the base's in new")
			// compare --html draws the same flame graphs as diff --html of
			// its profiles.
			assert.Equal(t, m, flameMatches(t, readFileText(t, comparePage)), "compare's page")
		})
	}
}

// flameCounts counts a diff page's flame graph nodes: those of new, of
// the base, and of each those the other run has too.
type flameCounts struct{ nodes, inNew, found, inBase, kept int }

// flameMatches reads them from the page's flame data (htmlview's
// flameJSON: five numbers a node, base -1 where the base has not the
// node, not_in_new the nodes only the base has).
func flameMatches(t *testing.T, html string) flameCounts {
	t.Helper()
	const open = `<script type="application/json" id="flame-data">`
	i := strings.Index(html, open)
	require.GreaterOrEqual(t, i, 0, "the page's flame data")
	data := html[i+len(open):]
	data = data[:strings.Index(data, "</script>")]
	var doc struct {
		Nodes    []int64 `json:"nodes"`
		Base     []int64 `json:"base"`
		NotInNew []int   `json:"not_in_new"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &doc))
	require.Len(t, doc.Nodes, 5*len(doc.Base))
	onlyBase := map[int]bool{}
	for _, n := range doc.NotInNew {
		onlyBase[n] = true
	}
	c := flameCounts{nodes: len(doc.Base)}
	for n, b := range doc.Base {
		if !onlyBase[n] {
			c.inNew++
			if b >= 0 {
				c.found++
			}
		}
		if b >= 0 {
			c.inBase++
			if !onlyBase[n] {
				c.kept++
			}
		}
	}
	return c
}

// TestDiffModesDiffer: a diff of an exact and a sampled profile of the
// same program warns that the modes differ, and does not read the missing
// executions as different bytecode; two exact profiles do not warn (the
// negative control).
func TestDiffModesDiffer(t *testing.T) {
	exact, sampled := fixtureProfile(filepath.Join("real", "sort-quickjs-ng-0.10.pb.gz")), fixtureProfile(filepath.Join("real", "sort-quickjs-ng-0.10-sample.pb.gz"))
	got := jsprof(t, "", "diff", exact, sampled)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Contains(t, got.stderr, "jsprof: warning: the base was measured in exact mode, the new in sample mode")
	assert.Contains(t, got.stdout, "warning: the base was measured in exact mode, the new in sample mode")
	assert.NotContains(t, got.stdout, "different bytecode")
	same := jsprof(t, "", "diff", exact, exact)
	require.Equal(t, 0, same.code, same.stderr)
	assert.Empty(t, same.stderr)
}
