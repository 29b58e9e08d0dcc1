package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/view/report"
)

// runInputs is jsprof run with several inputs: the module prepared once,
// run on each input in an instance of its own, in parallel; a table of
// the runs on stderr; -o the profile merged over them, --out-dir each
// one's; then what each input was checked against (report.WriteInputVerdicts).
// jsprof exits with the first input's exit code that is not 0, or 128+n
// when signal n stopped the runs (profiler.Several.ExitCode), else 1 when
// a check failed.
func runInputs(ctx context.Context, p *profiler.Prepared, inputs []string, f runFlags, io stdio) int {
	s, err := p.RunSeveral(ctx, inputs)
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	mark := func(s string) string { return paint(io, red, s) }
	code := s.ExitCode
	report.WriteInputThrows(io.err, s.Facts)
	report.WriteInputsTable(io.err, report.WithCostliest(s.Facts, f.costs), mark)
	report.WriteInputCost(io.err, f.costs)
	if len(s.Facts) > 0 && !f.quiet {
		fmt.Fprintf(io.err, "jsprof: the inputs' outputs and logs are not printed: give one input alone (--input %s) to see its output\n", printable.Name(s.Facts[0].Input))
	}
	if report.WriteInputVerdicts(io.err, s.Facts, report.Gates{OverLimit: f.failLimit, InvalidOutput: f.failInval}, mark) {
		code = cmp.Or(code, cli.ExitFailure)
	}
	if s.Merged != nil && !f.quiet {
		fmt.Fprintf(io.err, "jsprof: profile of %d inputs written to %s (jsprof report %s; go tool pprof -tagfocus=input=NAME %s)\n", len(s.MergedInputs), f.output, f.output, f.output)
	}
	return code
}
