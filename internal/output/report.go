package output

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/view/report"
)

// ReportJSON is --report-json: the cost report, as jsprof report --by
// summary shows it (with the table of inputs when there were several),
// as JSON written to Path. Profile is the profile's file, which the
// report names as its source. InputCost, when set, is filled (jsprof run
// --input-cost) before the report is written, which lists it.
type ReportJSON struct {
	Path, Profile string
	InputCost     *[]report.InputCost
	file          *outfile.File
}

// Files names the report's file.
func (j *ReportJSON) Files() []outfile.Named {
	return []outfile.Named{{What: "--report-json", Path: j.Path}}
}

// Open creates the file.
func (j *ReportJSON) Open(_ context.Context, o Opening) (err error) {
	j.file, err = o.Files.Create(j.Path)
	return err
}

// Write writes the report of r's tables.
func (j *ReportJSON) Write(_ context.Context, r Result) error {
	rep, err := report.NewReport(r.Tables, report.ReportOptions{By: report.BySummary, Source: filepath.Base(j.Profile), Inputs: r.Inputs, InputCost: deref(j.InputCost)})
	if err != nil {
		j.file.Discard()
		return err
	}
	return j.file.Commit(func(w *os.File) error { return rep.WriteJSON(w) })
}

// Discard releases the file if it was not written.
func (j *ReportJSON) Discard() { j.file.Discard() }

// ReportText is --report: the same summary as ReportJSON's as text
// tables of Top rows (0: all), on W (stderr). Profile is the profile's
// file, which the report names as its source.
type ReportText struct {
	W       io.Writer
	Top     int
	Profile string
}

// Open does nothing: the tables go to W.
func (*ReportText) Open(context.Context, Opening) error { return nil }

// Write writes the tables of r.
func (t *ReportText) Write(_ context.Context, r Result) error {
	rep, err := report.NewReport(r.Tables, report.ReportOptions{By: report.BySummary, Top: t.Top, Source: filepath.Base(t.Profile)})
	if err != nil {
		return err
	}
	return rep.WriteText(t.W)
}

// Discard does nothing.
func (*ReportText) Discard() {}

// deref is *p, or nil.
func deref[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}
