package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/view/report"
)

// The Shopify CLI files of testdata/shopify/cli, in the shapes Shopify CLI
// writes them: a run log as `shopify app dev` saves one
// (services/app-logs/utils.ts, toFormattedAppLogJson) and a fixture as
// `shopify app function generate-fixture` writes one
// (services/function/generate-fixture.ts); cli-wrong holds the fixture
// with a wrong expected output (total 6 for 5).
var (
	cliRunLog      = filepath.Join("testdata", "shopify", "cli", "20240523_191700_240Z_extensions_my-function_a1b2c3.json")
	cliFixture     = filepath.Join("testdata", "shopify", "cli", "two-lines.json")
	cliWrongFolder = filepath.Join("testdata", "shopify", "cli-wrong")
)

// cliProduction is the run log's fuelConsumed.
const cliProduction = 512436

// TestShopifyCLIInputs: --input takes Shopify CLI's run logs and
// fixtures, a file or a folder of them. Each runs with its own export
// (here _start, over a -e naming an export the module lacks); a
// fixture's output is checked against the function's (a wrong one fails
// the run, naming where they differ); a run log's production count is
// shown beside jsprof's, and flagged when they differ.
func TestShopifyCLIInputs(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "shopify_function.js"))
	out := t.TempDir()

	// The folder: a run log and a fixture, each with its export.
	doc := filepath.Join(out, "report.json")
	got := jsprof(t, "", "run", "-q", "-e", "no-such-export", "--plugin", dir, "--input", filepath.Dir(cliRunLog), "--report-json", doc, "-o", filepath.Join(out, "all.pb.gz"), module)
	require.Equal(t, 0, got.code, got.stderr)
	var rep struct {
		Inputs []report.InputRun `json:"inputs"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFileText(t, doc)), &rep))
	require.Len(t, rep.Inputs, 2)
	log, fix := rep.Inputs[0], rep.Inputs[1]
	assert.Equal(t, cliRunLog, log.Input)
	assert.Equal(t, "run log", log.Kind)
	assert.Equal(t, uint64(cliProduction), log.Production)
	assert.Equal(t, "fixture", fix.Kind)
	assert.Empty(t, fix.OutputMismatch)
	for _, in := range rep.Inputs {
		assert.Equal(t, 0, in.ExitCode, in.Input)
		assert.Positive(t, in.TotalWasmInstructions, in.Input)
	}
	counted := log.TotalWasmInstructions
	require.NotEqual(t, uint64(cliProduction), counted, "the log's count is not jsprof's: the flag below is due")
	assert.Equal(t, counted, fix.TotalWasmInstructions, "the same input, the same export")
	assert.Regexp(t, `(?m)^input\s+instructions\s+of 11M\s+production\s+memory`, got.stderr, "a production column")
	assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(cliRunLog)+`\s+\S+\s+\S+\s+512\.436K\s`, got.stderr)
	assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(cliFixture)+`\s+\S+\s+\S+\s+-\s`, got.stderr)
	assert.Contains(t, got.stderr, "jsprof: "+cliRunLog+": production charged 512436 instructions (its run log's fuelConsumed), jsprof counts "+
		strconv.FormatUint(counted, 10)+" (")
	assert.Contains(t, got.stderr, "not equal: the module or provider differs from what production ran, or the count does")
	assert.Contains(t, got.stderr, "jsprof: "+cliFixture+": the output is the fixture's")

	// One file: the run log alone, its input and export; the function's
	// output printed.
	one := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", cliRunLog, "-o", filepath.Join(out, "one.pb.gz"), module)
	require.Equal(t, 0, one.code, one.stderr)
	assert.Equal(t, wantOutput, one.stdout)
	assert.Contains(t, one.stderr, "jsprof: _start (shopify_functions_javy_v4, messagepack): Instructions: ")
	assert.Contains(t, one.stderr, "jsprof counts "+strconv.FormatUint(counted, 10)+" (")

	// The negative control: a log whose count is jsprof's is not flagged.
	same := filepath.Join(out, "same.json")
	require.NoError(t, os.WriteFile(same, []byte(strings.Replace(readFileText(t, cliRunLog), `"fuelConsumed": 512436`, `"fuelConsumed": `+strconv.FormatUint(counted, 10), 1)), 0o644))
	eq := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", same, "-o", filepath.Join(out, "same.pb.gz"), module)
	require.Equal(t, 0, eq.code, eq.stderr)
	assert.Contains(t, eq.stderr, "jsprof: "+same+": production charged "+strconv.FormatUint(counted, 10)+" instructions (its run log's fuelConsumed), jsprof counts the same\n")
	assert.NotContains(t, eq.stderr, "not equal")

	// A wrong fixture fails, saying where the outputs differ, alone or
	// in a folder, profiled or not.
	for _, args := range [][]string{
		{"--input", cliWrongFolder, "-o", filepath.Join(out, "wrong.pb.gz")},
		{"--input", filepath.Join(cliWrongFolder, "two-lines.json"), "--mode", "off"},
	} {
		wrong := jsprof(t, "", append(append([]string{"run", "-q", "--plugin", dir}, args...), module)...)
		assert.Equal(t, cli.ExitFailure, wrong.code, wrong.stderr)
		assert.Contains(t, wrong.stderr, "jsprof: "+filepath.Join(cliWrongFolder, "two-lines.json")+": the output differs from the fixture's: $.total: want 6, got 5\n")
	}

	// An input for an export the module lacks: one line naming both.
	other := filepath.Join(out, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(readFileText(t, cliFixture), `"export": "_start"`, `"export": "cart-lines-discounts-generate-run"`, 1)), 0o644))
	for _, mode := range [][]string{{"-o", filepath.Join(out, "miss.pb.gz")}, {"--mode", "off"}} {
		miss := jsprof(t, "", append(append([]string{"run", "-q", "--plugin", dir, "--input", other}, mode...), module)...)
		assert.Equal(t, cli.ExitFailure, miss.code)
		assert.Equal(t, "jsprof: input "+other+" is for export cart-lines-discounts-generate-run (its fixture), which the module does not export\n", miss.stderr, mode)
	}
}

// TestInvalidOutputAsFunctionRunner: function-runner counts a run a
// success when its module ran to completion, whatever it wrote
// (engine.rs: success is the export call's result); so does jsprof,
// saying in one line what is wrong with the output, and exits 1 only
// when asked (--fail-invalid-output). An output that is not JSON is
// shown as it is; MessagePack with a byte after its value (Javy's 2022
// default benchmark) is shown decoded, as rmp_serde decodes it.
func TestInvalidOutputAsFunctionRunner(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	notJSON := buildFunction(t, "shopify_functions_javy_v1", filepath.Join("testdata", "shopify", "not_json.js"))
	trailing := buildFunction(t, "shopify_functions_javy_v2", filepath.Join("testdata", "shopify", "msgpack_trailing.js"))
	input := filepath.Join("testdata", "shopify", "input.json")
	out := t.TempDir()
	const notJSONLine = "jsprof: " + "testdata/shopify/input.json" + ": the function's output does not decode as json: output is not JSON: "
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string
	}{
		{"not JSON", []string{notJSON}, 0, "export1", []string{notJSONLine, "; function-runner counts such a run a success\n"}},
		{"not JSON, unprofiled", []string{"--mode", "off", notJSON}, 0, "export1", []string{notJSONLine}},
		{"not JSON, gated", []string{"--fail-invalid-output", notJSON}, cli.ExitFailure, "export1", []string{notJSONLine, "a success (--fail-invalid-output)\n"}},
		{"a byte after the MessagePack value", []string{trailing}, 0, `{"a":1}` + "\n",
			[]string{"jsprof: testdata/shopify/input.json: the function's output has 1 bytes after the MessagePack value (at offset 4), which function-runner ignores; function-runner counts such a run a success\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"run", "-q", "--plugin", dir, "--input", input}
			if tt.args[0] != "--mode" { // --mode off writes no profile
				args = append(args, "-o", filepath.Join(out, strings.ReplaceAll(tt.name, " ", "_")+".pb.gz"))
			}
			args = append(args, tt.args...)
			got := jsprof(t, "", args...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Equal(t, tt.stdout, got.stdout)
			for _, s := range tt.stderr {
				assert.Contains(t, got.stderr, s)
			}
			assert.Equal(t, 1, strings.Count(got.stderr, "function-runner counts such a run a success"), "one line")
		})
	}

	// Several inputs: each row's exit code is function-runner's (0), a
	// line for each input's output.
	inputs := t.TempDir()
	for _, n := range []string{"a.json", "b.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(inputs, n), []byte(readFileText(t, input)), 0o644))
	}
	got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", inputs, "-o", filepath.Join(out, "several.pb.gz"), notJSON)
	assert.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, 2, strings.Count(got.stderr, "does not decode as json"), got.stderr)
	gated := jsprof(t, "", "run", "-q", "--fail-invalid-output", "--plugin", dir, "--input", inputs, "-o", filepath.Join(out, "gated.pb.gz"), notJSON)
	assert.Equal(t, cli.ExitFailure, gated.code, gated.stderr)
}
