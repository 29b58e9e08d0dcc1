package main

import (
	"errors"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/view/report"
)

// files are the files jsprof writes, for exitNow to remove their
// temporary files (outfile.Set.RemoveTemporaries).
var files outfile.Set

// writeOutputs says out's warnings, writes the files of outs
// (profiler.Outputs.Write) and, with --report, prints the cost tables on
// stderr: the same summary view of the profile's tables as
// --report-json's.
func writeOutputs(outs *profiler.Outputs, out *profiler.Outcome, f runFlags, io stdio, inputs []report.InputRun) error {
	for _, w := range out.Warnings {
		warn(io, w)
	}
	err := outs.Write(out, inputs)
	if f.report {
		r, rerr := report.NewReport(out.Tables, report.ReportOptions{By: report.BySummary, Top: f.top, Source: filepath.Base(f.output)})
		if rerr == nil {
			rerr = r.WriteText(io.err)
		}
		err = errors.Join(err, rerr)
	}
	return err
}
