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
// one's. jsprof exits with the first input's exit code that is not 0, or
// 128+n when signal n stopped the runs (profiler.Several.ExitCode).
func runInputs(ctx context.Context, p *profiler.Prepared, inputs []string, f runFlags, io stdio) int {
	s, err := p.RunSeveral(ctx, inputs)
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	mark := func(s string) string { return paint(io, red, s) }
	code := s.ExitCode
	for _, in := range s.Facts {
		if in.Throw != nil {
			fmt.Fprintf(io.err, "jsprof: %s: uncaught %s%s\n", printable.Name(in.Input), in.Throw.Message, in.Throw.Place())
		}
	}
	report.WriteInputsTable(io.err, report.WithCostliest(s.Facts, f.costs), mark)
	report.WriteInputCost(io.err, f.costs)
	for _, in := range s.Facts {
		if over := report.InputOverLimit(in); f.failLimit && in.Error == "" && over != "" {
			fmt.Fprintf(io.err, "jsprof: %s: %s (--fail-over-limit)\n", printable.Name(in.Input), mark(over))
			code = cmp.Or(code, cli.ExitFailure)
		}
	}
	if s.Merged != nil && !f.quiet {
		fmt.Fprintf(io.err, "jsprof: profile of %d inputs written to %s (jsprof report %s; go tool pprof -tagfocus=input=NAME %s)\n", len(s.MergedInputs), f.output, f.output, f.output)
	}
	return code
}
