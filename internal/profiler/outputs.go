package profiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// OutputPaths are the files a profiled run writes ("": not written): the
// profile (-o), its stacks in collapsed format (--collapsed) and the cost
// report as JSON (--report-json).
type OutputPaths struct {
	Profile, Collapsed, ReportJSON string
}

// Outputs are a run's output files (OutputPaths), created before the
// guest runs (OpenOutputs) and written from its Outcome (Write).
type Outputs struct {
	paths                          OutputPaths
	profile, collapsed, reportJSON *outfile.File
}

// OpenOutputs checks and creates, in set, every output of paths before
// the guest runs, so that an unwritable path is said before a long run,
// and the guest's exit code survives: each must be writable, and none may
// be another output or one of the files job reads (its module, the
// --source, --plugin and --input files) or that linking found (the plugin
// or provider a folder of providers resolved to). Writing one would
// destroy what the run read.
func OpenOutputs(set *outfile.Set, paths OutputPaths, job Job, linked Linking) (*Outputs, error) {
	inputs := []outfile.Named{{What: "the module being run", Path: job.ModulePath}, {What: "the --source file", Path: job.Profile.Source}, {What: "the --input file", Path: job.Input}}
	for _, p := range job.Inputs {
		inputs = append(inputs, outfile.Named{What: "an --input file", Path: p})
	}
	for _, p := range job.Plugins {
		inputs = append(inputs, outfile.Named{What: "a --plugin", Path: p})
	}
	if linked.Plugin != nil {
		inputs = append(inputs, outfile.Named{What: "the plugin linked", Path: linked.Plugin.Name})
	}
	if linked.Provider != nil && linked.Provider.Path != "" {
		inputs = append(inputs, outfile.Named{What: "the provider linked", Path: linked.Provider.Path})
	}
	if err := outfile.Distinct([]outfile.Named{{What: "-o", Path: paths.Profile}, {What: "--collapsed", Path: paths.Collapsed}, {What: "--report-json", Path: paths.ReportJSON}}, inputs); err != nil {
		return nil, err
	}
	o := &Outputs{paths: paths}
	var err error
	open := func(path string) *outfile.File {
		if path == "" || err != nil {
			return nil
		}
		var out *outfile.File
		out, err = set.Create(path)
		return out
	}
	o.profile, o.collapsed, o.reportJSON = open(paths.Profile), open(paths.Collapsed), open(paths.ReportJSON)
	if err != nil {
		o.Discard()
		return nil, err
	}
	return o, nil
}

// Discard releases the files not written; nothing is left on disk. A nil
// o has none.
func (o *Outputs) Discard() {
	if o == nil {
		return
	}
	o.profile.Discard()
	o.collapsed.Discard()
	o.reportJSON.Discard()
}

// Write writes out into every output opened: the profile, the collapsed
// stacks and the cost report (the summary view of the profile's tables,
// as jsprof report --by summary shows them, with the table of inputs
// when there were several). Its error joins each output's.
func (o *Outputs) Write(out *Outcome, inputs []report.InputRun) error {
	var errs []error
	errs = append(errs, o.profile.Commit(func(w *os.File) error { return jsprofile.Write(w, out.Profile) }))
	if o.collapsed != nil {
		errs = append(errs, o.collapsed.Commit(func(w *os.File) error {
			return jsprofile.WriteCollapsed(w, out.Profile, jsprofile.ValueInstructions)
		}))
	}
	if o.reportJSON != nil {
		r, err := report.NewReport(out.Tables, report.ReportOptions{By: report.BySummary, Source: filepath.Base(o.paths.Profile), Inputs: inputs})
		if err == nil {
			err = o.reportJSON.Commit(func(w *os.File) error { return r.WriteJSON(w) })
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// OutDir makes dir, where the inputs' own profiles go (jsprof run
// --out-dir), and returns their files there, in the inputs' order:
// NAME.pb.gz, NAME the input's file name without its extension. Two
// inputs of one name are an error naming both, and nothing is made.
func OutDir(inputs []string, dir string) ([]string, error) {
	names := make([]string, len(inputs))
	seen := map[string]string{}
	for i, in := range inputs {
		names[i] = filepath.Join(dir, strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+".pb.gz")
		if other, ok := seen[names[i]]; ok {
			return nil, fmt.Errorf("%s and %s would both be %s", other, in, names[i])
		}
		seen[names[i]] = in
	}
	return names, os.MkdirAll(dir, 0o755)
}

// WriteEach writes, in set, each run's profile to its file of names
// (OutDir); a run that made none writes nothing. It stops at the first
// error.
func WriteEach(set *outfile.Set, runs []InputRun, names []string) error {
	for i, r := range runs {
		if r.Done != nil && r.Done.Outcome != nil {
			if err := writeProfile(set, names[i], r.Done.Outcome.Profile); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeProfile writes p to path, in set, atomically.
func writeProfile(set *outfile.Set, path string, p *profile.Profile) error {
	return set.WriteAtomic(path, func(w *os.File) error { return jsprofile.Write(w, p) })
}
