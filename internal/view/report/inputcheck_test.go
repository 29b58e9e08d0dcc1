package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestWriteInputVerdicts: a line for each check of each input, and
// whether one fails the run: a fixture's output that differs always, an
// output problem and a limit only as gates ask; an input that did not
// run has none; a name or difference is made printable.
func TestWriteInputVerdicts(t *testing.T) {
	t.Parallel()
	over := &jsprofile.Limits{Instructions: 11_000_000, InstructionsOver: true}
	tests := []struct {
		name   string
		fact   InputRun
		gates  Gates
		lines  []string
		failed bool
	}{
		{"plain", InputRun{Input: "a.json", TotalWasmInstructions: 5}, Gates{OverLimit: true, InvalidOutput: true}, nil, false},
		{"production, equal", InputRun{Input: "l.json", Kind: "run log", Production: 7, TotalWasmInstructions: 7}, Gates{},
			[]string{"jsprof: l.json: production charged 7 instructions (its run log's fuelConsumed), jsprof counts the same"}, false},
		{"production, not equal", InputRun{Input: "l.json", Kind: "run log", Production: 200, TotalWasmInstructions: 100}, Gates{},
			[]string{"jsprof: l.json: production charged 200 instructions (its run log's fuelConsumed), jsprof counts 100 (-50.00%): not equal: the module or provider differs from what production ran, or the count does"}, false},
		{"production, not counted", InputRun{Input: "l.json", Kind: "run log", Production: 200}, Gates{},
			[]string{"jsprof: l.json: production charged 200 instructions (its run log's fuelConsumed); jsprof did not count this run"}, false},
		{"fixture, same", InputRun{Input: "f.json", Kind: "fixture"}, Gates{}, []string{"jsprof: f.json: the output is the fixture's"}, false},
		{"fixture, differs", InputRun{Input: "f\x1b.json", Kind: "fixture", OutputMismatch: []string{"$.a: want 1, got 2", "$.b: want \"\x07\", got nothing"}}, Gates{},
			[]string{`jsprof: "f\x1b.json": the output differs from the fixture's: $.a: want 1, got 2; $.b: want " ", got nothing`}, true},
		{"output problem", InputRun{Input: "a.json", OutputProblem: "the function wrote no output"}, Gates{},
			[]string{"jsprof: a.json: the function wrote no output; function-runner counts such a run a success"}, false},
		{"output problem, gated", InputRun{Input: "a.json", OutputProblem: "the function wrote no output"}, Gates{InvalidOutput: true},
			[]string{"jsprof: a.json: the function wrote no output; function-runner counts such a run a success (--fail-invalid-output)"}, true},
		{"over the limit, not gated", InputRun{Input: "a.json", TotalWasmInstructions: 12_000_000, Limits: over}, Gates{}, nil, false},
		{"over the limit, gated", InputRun{Input: "a.json", TotalWasmInstructions: 12_000_000, Limits: over}, Gates{OverLimit: true},
			[]string{"jsprof: a.json: over the limit: Instructions 12M of 11M (--fail-over-limit)"}, true},
		{"did not run", InputRun{Input: "a.json", Error: "boom", Kind: "fixture", OutputMismatch: []string{"x"}}, Gates{InvalidOutput: true}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			failed := WriteInputVerdicts(&b, []InputRun{tt.fact}, tt.gates, nil)
			assert.Equal(t, tt.failed, failed)
			var lines []string
			if b.Len() > 0 {
				lines = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			}
			assert.Equal(t, tt.lines, lines)
		})
	}
}
