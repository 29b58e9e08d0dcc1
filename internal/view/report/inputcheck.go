package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/jsprof/jsprof/internal/printable"
)

// Gates are the checks of a run's inputs that the user asked to fail it
// (jsprof run's --fail-over-limit and --fail-invalid-output).
type Gates struct {
	// OverLimit fails an input that went over one of Shopify's limits.
	OverLimit bool
	// InvalidOutput fails an input whose output function-runner counts
	// a success's though it is missing or does not decode.
	InvalidOutput bool
}

// WriteInputVerdicts says, on w (stderr), a line for each of what the
// runs of facts were checked against, in their order: a limit gone over
// (with gates.OverLimit), production's count beside jsprof's (a Shopify
// CLI run log), a fixture's output and the function's, an output
// function-runner shows as it is (missing, not decoding). It returns
// whether one of them fails the run: a fixture's output that differs
// always does, the others as gates ask. Inputs jsprof could not run
// have their row in the table and nothing here.
func WriteInputVerdicts(w io.Writer, facts []InputRun, gates Gates, mark func(string) string) (failed bool) {
	if mark == nil {
		mark = func(s string) string { return s }
	}
	for _, f := range facts {
		if f.Error != "" {
			continue
		}
		name := printable.Name(f.Input)
		if over := InputOverLimit(f); gates.OverLimit && over != "" {
			fmt.Fprintf(w, "jsprof: %s: %s (--fail-over-limit)\n", name, mark(over))
			failed = true
		}
		if f.Production > 0 {
			fmt.Fprintf(w, "jsprof: %s: %s\n", name, productionLine(f.Production, f.TotalWasmInstructions, mark))
		}
		switch {
		case f.Kind == "fixture" && len(f.OutputMismatch) > 0:
			fmt.Fprintf(w, "jsprof: %s: %s: %s\n", name, mark("the output differs from the fixture's"), printable.String(strings.Join(f.OutputMismatch, "; ")))
			failed = true
		case f.Kind == "fixture":
			fmt.Fprintf(w, "jsprof: %s: the output is the fixture's\n", name)
		}
		if f.OutputProblem != "" {
			gate := ""
			if gates.InvalidOutput {
				gate, failed = " (--fail-invalid-output)", true
			}
			fmt.Fprintf(w, "jsprof: %s: %s; function-runner counts such a run a success%s\n", name, printable.String(f.OutputProblem), gate)
		}
	}
	return failed
}

// WriteInputThrows says, on w (stderr), the uncaught JS error each run of
// facts ended with, naming its input.
func WriteInputThrows(w io.Writer, facts []InputRun) {
	for _, f := range facts {
		if f.Throw != nil {
			fmt.Fprintf(w, "jsprof: %s: uncaught %s%s\n", printable.Name(f.Input), f.Throw.Message, f.Throw.Place())
		}
	}
}

// productionLine compares production's count with jsprof's (0: not
// counted, --mode off).
func productionLine(production, counted uint64, mark func(string) string) string {
	said := fmt.Sprintf("production charged %d instructions (its run log's fuelConsumed)", production)
	switch {
	case counted == 0:
		return said + "; jsprof did not count this run"
	case counted == production:
		return said + ", jsprof counts the same"
	}
	diff := (float64(counted) - float64(production)) / float64(production) * 100
	return fmt.Sprintf("%s, jsprof counts %d (%+.2f%%): %s", said, counted, diff,
		mark("not equal: the module or provider differs from what production ran, or the count does"))
}
