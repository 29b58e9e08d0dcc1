package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// files are the files jsprof writes, for exitNow to remove their
// temporary files (outfile.Set.RemoveTemporaries).
var files outfile.Set

// outputs are the files jsprof run writes: the profile, and the collapsed
// stacks and the JSON report when asked for.
type outputs struct {
	profile, collapsed, reportJSON *outfile.File
}

// openOutputs checks and creates every output of f before the guest runs:
// each must be writable, and none may be another output or one of the
// run's inputs: the module, the --source, --plugin and --input files,
// and the files linking found (the plugin or provider a folder of
// providers resolved to). Writing one would destroy what the run read.
func openOutputs(f runFlags, modulePath string, linked profiler.Linking) (*outputs, error) {
	inputs := []outfile.Named{{What: "the module being run", Path: modulePath}, {What: "the --source file", Path: f.source}, {What: "the --input file", Path: f.input}}
	for _, p := range f.plugins {
		inputs = append(inputs, outfile.Named{What: "a --plugin", Path: p})
	}
	if linked.Plugin != nil {
		inputs = append(inputs, outfile.Named{What: "the plugin linked", Path: linked.Plugin.Name})
	}
	if linked.Provider != nil && linked.Provider.Path != "" {
		inputs = append(inputs, outfile.Named{What: "the provider linked", Path: linked.Provider.Path})
	}
	if err := outfile.Distinct([]outfile.Named{{What: "-o", Path: f.output}, {What: "--collapsed", Path: f.collapsed}, {What: "--report-json", Path: f.reportJSON}}, inputs); err != nil {
		return nil, err
	}
	o := &outputs{}
	var err error
	open := func(path string) *outfile.File {
		if path == "" || err != nil {
			return nil
		}
		var out *outfile.File
		out, err = files.Create(path)
		return out
	}
	o.profile, o.collapsed, o.reportJSON = open(f.output), open(f.collapsed), open(f.reportJSON)
	if err != nil {
		o.discard()
		return nil, err
	}
	return o, nil
}

func (o *outputs) discard() {
	if o == nil {
		return
	}
	o.profile.Discard()
	o.collapsed.Discard()
	o.reportJSON.Discard()
}

// write writes every output the flags ask for: the profile, the
// collapsed stacks and the cost tables (the summary view of the profile's
// tables, as jsprof report --by summary shows them).
func (o *outputs) write(out *profiler.Outcome, f runFlags, io stdio, inputs []report.InputRun) error {
	for _, w := range out.Warnings {
		warn(io, w)
	}
	var errs []error
	errs = append(errs, o.profile.Commit(func(w *os.File) error { return jsprofile.Write(w, out.Profile) }))
	if o.collapsed != nil {
		errs = append(errs, o.collapsed.Commit(func(w *os.File) error {
			return jsprofile.WriteCollapsed(w, out.Profile, jsprofile.ValueInstructions)
		}))
	}
	if o.reportJSON != nil {
		r, err := report.NewReport(out.Tables, report.ReportOptions{By: report.BySummary, Source: filepath.Base(f.output), Inputs: inputs})
		if err == nil {
			err = o.reportJSON.Commit(func(w *os.File) error { return r.WriteJSON(w) })
		}
		errs = append(errs, err)
	}
	if f.report {
		r, err := report.NewReport(out.Tables, report.ReportOptions{By: report.BySummary, Top: f.top, Source: filepath.Base(f.output)})
		if err == nil {
			err = r.WriteText(io.err)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
