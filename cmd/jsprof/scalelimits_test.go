package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// cartLines writes an input of testdata/shopify/cartlines.js
// into dir: lines cart lines of quantity rounds each.
func cartLines(t *testing.T, dir, name string, lines, quantity int) string {
	t.Helper()
	line := fmt.Sprintf(`{"quantity":%d}`, quantity)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(`{"cart":{"lines":[`+strings.Repeat(line+",", lines-1)+line+`]}}`), 0o644))
	return path
}

// TestScaleLimits: with function-runner's own schema and query fixtures
// (Cart.lines @scaleLimits(rate: 0.005)), a cart of 400 lines has its
// limits doubled, as function-runner doubles them: a run of 15.9M
// instructions passes --fail-over-limit against 11M × 2 = 22M, which the
// summary and --report-json say; one of 26.1M fails it, naming that
// limit; without --schema-path the first fails against 11M (the negative
// control). With several inputs, the table has each input's limit.
func TestScaleLimits(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "cartlines.js"))
	schema, query := fixtures.Path("shopify", "scalelimits", "schema.graphql"), fixtures.Path("shopify", "scalelimits", "query.graphql")
	inputs := t.TempDir()
	under, over := cartLines(t, inputs, "under.json", 400, 35), cartLines(t, inputs, "over.json", 400, 60)
	scaled := []string{"--schema-path", schema, "--query-path", query}
	out := t.TempDir()
	run := func(input string, extra ...string) (invocation, runReport) {
		doc := filepath.Join(out, filepath.Base(input)+fmt.Sprint(len(extra))+".json")
		args := append([]string{"run", "-q", "--fail-over-limit", "--plugin", dir, "--input", input, "--report-json", doc, "-o", filepath.Join(out, "p.pb.gz")}, extra...)
		got := jsprof(t, "", append(args, module)...)
		if got.code == cli.ExitUsage {
			t.Fatal(got.stderr)
		}
		return got, readRunReport(t, doc)
	}

	got, rep := run(under, scaled...)
	assert.Equal(t, 0, got.code, got.stderr)
	assert.Greater(t, rep.Total, uint64(11_000_000), "over Shopify's 11M")
	assert.Less(t, rep.Total, uint64(22_000_000), "under the scaled limit")
	assert.Regexp(t, `Instructions: [0-9.]+M \(fuel\) of 11M × 2 = 22M; .*; Input Size: [0-9.]+KB of 125.00KB × 2 = 250.00KB; Output Size: [0-9]+B of 19.53KB × 2 = 39.06KB\n`, got.stderr)
	assert.NotContains(t, got.stderr, "OVER THE LIMIT")
	assert.Equal(t, &jsprofile.Limits{Instructions: 22_000_000, InputBytes: 256_000, OutputBytes: 40_000, ScaleFactor: 2}, rep.Run.Limits,
		"function-runner's limits × 2 (its test_scale_limits_analyzer_with_scaled_limits: 22M, 250.00KB, 39.06KB)")

	got, rep = run(over, scaled...)
	assert.Equal(t, cli.ExitFailure, got.code, got.stderr)
	assert.Greater(t, rep.Total, uint64(22_000_000))
	assert.True(t, rep.Run.Limits.InstructionsOver)
	assert.Regexp(t, `(?m)^jsprof: `+regexp.QuoteMeta(over)+`: over the limit: Instructions [0-9.]+M of 11M × 2 = 22M \(--fail-over-limit\)$`, got.stderr)

	got, rep = run(under)
	assert.Equal(t, cli.ExitFailure, got.code, "no schema, no scaling: "+got.stderr)
	assert.Regexp(t, `(?m)^jsprof: `+regexp.QuoteMeta(under)+`: over the limit: Instructions [0-9.]+M of 11M \(--fail-over-limit\)$`, got.stderr)
	assert.Equal(t, uint64(11_000_000), rep.Run.Limits.Instructions)
	assert.Zero(t, rep.Run.Limits.ScaleFactor)

	// Several inputs: each its own limit, a small cart's not scaled.
	cartLines(t, inputs, "small.json", 10, 1)
	doc := filepath.Join(out, "several.json")
	several := jsprof(t, "", append(append([]string{"run", "-q", "--fail-over-limit", "--plugin", dir, "--input", inputs, "--report-json", doc, "-o", filepath.Join(out, "all.pb.gz")}, scaled...), module)...)
	assert.Equal(t, cli.ExitFailure, several.code, several.stderr)
	assert.Regexp(t, `(?m)^input\s+instructions\s+of limit\s+limit\s+memory`, several.stderr)
	assert.Regexp(t, `(?m)^\S*/over\.json\s+[0-9.]+M\s+1[0-9][0-9]\.[0-9]%\s+11M × 2 = 22M\s+.*instructions$`, several.stderr)
	assert.Regexp(t, `(?m)^\S*/under\.json\s+[0-9.]+M\s+[5-9][0-9]\.[0-9]%\s+11M × 2 = 22M\s+`, several.stderr)
	assert.Regexp(t, `(?m)^\S*/small\.json\s+[0-9.]+K\s+[0-9.]+%\s+11M\s+`, several.stderr)
	assert.Contains(t, several.stderr, "jsprof: "+over+": over the limit: Instructions")
	assert.NotContains(t, several.stderr, "jsprof: "+under+": over the limit")
	var rows struct {
		Inputs []report.InputRun `json:"inputs"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFileText(t, doc)), &rows))
	factors := map[string]float64{}
	for _, in := range rows.Inputs {
		factors[filepath.Base(in.Input)] = in.Limits.ScaleFactor
	}
	assert.Equal(t, map[string]float64{"over.json": 2, "under.json": 2, "small.json": 0}, factors)
}

// TestScaleLimitsRefused: a schema without its query, a schema that is
// not GraphQL, and a query of two operations are refused before anything
// runs, naming the file.
func TestScaleLimitsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.graphql")
	require.NoError(t, os.WriteFile(bad, []byte("type Query { field: String // not a comment\n}"), 0o644))
	two := filepath.Join(dir, "two.graphql")
	require.NoError(t, os.WriteFile(two, []byte("query A { cart { lines { quantity } } } query B { cart { lines { quantity } } }"), 0o644))
	schema, query := fixtures.Path("shopify", "scalelimits", "schema.graphql"), fixtures.Path("shopify", "scalelimits", "query.graphql")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a schema alone", []string{"--schema-path", schema}, cli.ExitUsage, "a schema and an input query go together"},
		{"a query alone", []string{"--query-path", query}, cli.ExitUsage, "a schema and an input query go together"},
		{"not GraphQL", []string{"--schema-path", bad, "--query-path", query}, cli.ExitUsage, "schema " + bad + ":1"},
		{"two operations", []string{"--schema-path", schema, "--query-path", two}, cli.ExitUsage, "query " + two + ": 2 operations"},
		{"a folder", []string{"--schema-path", dir, "--query-path", query}, cli.ExitUsage, "schema: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), "testdata/shopify/absent.wasm")...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
}
