package main

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/view/diff"
)

// ordersProfiles builds the versions of testdata/shopify/orders (base, new:
// a closure moved down two lines and made cheaper, slower: lineTotal made
// dearer) against one provider, as the README's CI example does, runs
// each on one input and returns their profiles by version.
func ordersProfiles(t *testing.T, versions ...string) map[string]string {
	t.Helper()
	providers := fixtures.ProvidersDir(t)
	dir := filepath.Join("testdata", "shopify", "orders")
	out := map[string]string{}
	for _, v := range versions {
		module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join(dir, v, "orders.js"))
		out[v] = filepath.Join(t.TempDir(), v+".pb.gz")
		got := jsprof(t, "", "run", "-q", "--fail-over-limit", "--plugin", providers, "--input", filepath.Join(dir, "input.json"), "-o", out[v], module)
		require.Equal(t, 0, got.code, "%s: %s", v, got.stderr)
	}
	return out
}

// diffJSONFunction is what the tests read of a function of jsprof diff
// --json.
type diffJSONFunction struct {
	Name    string          `json:"name"`
	Line    int             `json:"line"`
	NewLine int             `json:"new_line"`
	Only    string          `json:"only"`
	Delta   int64           `json:"delta_wasm_instructions"`
	Base    json.RawMessage `json:"base"`
	New     json.RawMessage `json:"new"`
}

// TestDiffTwoBuilds: the diff of two builds of one function on one
// provider, where only the JS changed (one closure moved down two lines
// and made cheaper), says that the program changed and not the engine,
// matches the closure across the move (<anonymous> (orders.js:12→14), one
// row, cheaper), and --by line aligns the lines that moved with it. The
// diff of a build with itself says nothing changed (the negative control
// of "the program changed").
func TestDiffTwoBuilds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and profiles a Shopify Function twice")
	}
	p := ordersProfiles(t, "base", "new")

	text := jsprof(t, "", "diff", p["base"], p["new"])
	require.Equal(t, 0, text.code, text.stderr)
	summary := strings.Join(strings.Fields(text.stdout), " ")
	assert.Contains(t, summary, "The program changed, not the engine: both ran the same engine code (sha256 ")
	assert.Contains(t, summary, "The new build executed ")
	assert.Contains(t, summary, ": the program changed.")
	assert.NotContains(t, summary, "the engines compiled the JS to different bytecode")
	assert.NotContains(t, summary, "engine ran", "no engine is said to run what the other did not")
	assert.Regexp(t, `(?m)^<anonymous> \(orders\.js:12→14\) +300 +300 +[0-9.]+[kM] +[0-9.]+[kM] +-[0-9.]+[kM] +-[0-9.]+%$`, text.stdout, "the closure, one row, cheaper")

	var doc struct {
		Changed   string             `json:"changed"`
		Functions []diffJSONFunction `json:"functions"`
	}
	js := jsprof(t, "", "diff", "--json", p["base"], p["new"])
	require.Equal(t, 0, js.code, js.stderr)
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &doc))
	assert.Equal(t, diff.ChangedProgram, doc.Changed)
	var anonymous []diffJSONFunction
	for _, f := range doc.Functions {
		if f.Name == "<anonymous>" {
			anonymous = append(anonymous, f)
		}
	}
	require.Len(t, anonymous, 2, "the map and the reduce closures, each matched once: %+v", anonymous)
	for _, f := range anonymous {
		assert.Empty(t, f.Only, "%+v", f)
		assert.Equal(t, f.Line+2, f.NewLine, "%+v: moved down two lines", f)
	}
	closure := anonymous[0] // by the size of the change
	assert.Equal(t, 12, closure.Line)
	assert.Negative(t, closure.Delta, "made cheaper")

	lines := jsprof(t, "", "diff", "--by", "line", "--csv", p["base"], p["new"])
	require.Equal(t, 0, lines.code, lines.stderr)
	rows, err := csv.NewReader(strings.NewReader(lines.stdout)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"function", "file", "base_line", "new_line", "only"}, rows[0][:5])
	moved := map[string]string{} // function:base line → new line
	for _, r := range rows[1:] {
		if r[0] != "<eval>" && r[2] != "" && r[3] != "" && r[2] != r[3] {
			moved[r[0]+":"+r[2]] = r[3]
		}
		assert.False(t, r[0] == "run" && r[4] != "", "run's lines are all in both: %v", r)
	}
	assert.Equal(t, map[string]string{"<anonymous>:12": "14", "<anonymous>:14": "16", "<anonymous>:17": "19", "run:12": "14", "run:17": "19"}, moved)
	byLine := jsprof(t, "", "diff", "--by", "line", p["base"], p["new"])
	require.Equal(t, 0, byLine.code, byLine.stderr)
	assert.Regexp(t, `(?m)^orders\.js:14→16 +<anonymous> +[0-9.]+[kM] +[0-9.]+[kM] +-`, byLine.stdout)

	same := jsprof(t, "", "diff", "--json", p["base"], p["base"])
	require.Equal(t, 0, same.code, same.stderr)
	require.NoError(t, json.Unmarshal([]byte(same.stdout), &doc))
	assert.Equal(t, diff.ChangedNothing, doc.Changed)
}

// gateLine reads a function's line of the gate: its label and the
// percentage it rose by.
var gateLine = regexp.MustCompile(`(?m)^jsprof: diff: (.+): its total \(with what it called\) rose by ([0-9]+\.[0-9])% of its base, [0-9.kM]+ → [0-9.kM]+ Wasm instructions \(\+([0-9.]+)(k|M)?\): over --fail-over 5% and --fail-floor 10000$`)

// TestDiffGateTwoBuilds: the README's CI example (diff --by function
// --fail-over 5%) on two builds of one function: it passes a change that
// made the function cheaper, whatever small costs rose in it, and fails
// one that raised a function's total by 5% and more than the floor,
// naming each such function with the rise the table prints on its row,
// a plain decimal. With no floor, a rise of a few instructions fails
// the cheaper change (the floor's negative control).
func TestDiffGateTwoBuilds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and profiles a Shopify Function three times")
	}
	p := ordersProfiles(t, "base", "new", "slower")
	gate := []string{"diff", "--by", "function", "--fail-over", "5%"}

	cheaper := jsprof(t, "", append(gate, p["base"], p["new"])...)
	assert.Equal(t, 0, cheaper.code, cheaper.stderr)
	assert.Empty(t, cheaper.stderr)
	noFloor := jsprof(t, "", "diff", "--by", "function", "--fail-over", "0", "--fail-floor", "0", p["base"], p["new"])
	assert.Equal(t, cli.ExitFailure, noFloor.code, "something rose a little: %s", noFloor.stderr)
	assert.Regexp(t, `rose by [0-9]+\.[0-9]% of its base, [0-9]+ → [0-9]+ Wasm instructions \(\+[0-9]+\): over --fail-over 0 and --fail-floor 0`, noFloor.stderr)

	dearer := jsprof(t, "", append(gate, p["base"], p["slower"])...)
	assert.Equal(t, cli.ExitFailure, dearer.code, dearer.stderr)
	assert.NotContains(t, dearer.stderr, "e+", "plain decimals")
	fails := gateLine.FindAllStringSubmatch(dearer.stderr, -1)
	require.NotEmpty(t, fails, dearer.stderr)
	names := map[string]bool{}
	for _, f := range fails {
		names[f[1]] = true
		pct, err := strconv.ParseFloat(f[2], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, pct, 5.0)
		// The table's row of the function ends with the same change.
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(f[1]) + ` .* \+` + regexp.QuoteMeta(f[3]+f[4]) + ` +\+` + regexp.QuoteMeta(f[2]) + `%$`)
		assert.Regexp(t, row, dearer.stdout, "the gate's figure for %s is the table's", f[1])
	}
	assert.True(t, names["lineTotal (orders.js:4)"], "the function made dearer: %v", names)
	assert.Contains(t, dearer.stderr, "jsprof: diff: the total rose by ")
}
