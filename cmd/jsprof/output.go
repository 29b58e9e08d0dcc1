package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
)

// output is a file being written: a temporary file beside it, renamed
// over it when complete, so that no reader ever sees half a file.
type output struct {
	path string
	tmp  *os.File
}

// createOutput creates the temporary file of path, failing now if path
// cannot be written (a missing directory, a directory, a read-only
// place).
func createOutput(path string) (*output, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("writing %s: not a regular file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".jsprof-*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &output{path: path, tmp: tmp}, nil
}

// commit writes the file's content and puts it in place. The file is
// readable by all (0644), as profiles and reports are meant to be shared;
// CreateTemp's 0600 would not be.
func (o *output) commit(write func(f *os.File) error) error {
	tmp := o.tmp
	o.tmp = nil
	err := write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// discard removes the temporary file if it was not committed.
func (o *output) discard() {
	if o != nil && o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}

// outputs are the files jsprof run writes: the profile, and the collapsed
// stacks and the JSON report when asked for.
type outputs struct {
	profile, collapsed, reportJSON *output
}

// openOutputs checks and creates every output of f before the guest runs:
// each must be writable, and none may be another output or the module.
func openOutputs(f runFlags, modulePath string) (*outputs, error) {
	named := []struct{ flag, path string }{{"-o", f.output}, {"--collapsed", f.collapsed}, {"--report-json", f.reportJSON}}
	for i, a := range named {
		if a.path == "" {
			continue
		}
		if samePath(a.path, modulePath) {
			return nil, fmt.Errorf("%s %s: that is the module being run", a.flag, a.path)
		}
		for _, b := range named[:i] {
			if b.path != "" && samePath(a.path, b.path) {
				return nil, fmt.Errorf("%s and %s both name %s", b.flag, a.flag, a.path)
			}
		}
	}
	o := &outputs{}
	var err error
	open := func(path string) *output {
		if path == "" || err != nil {
			return nil
		}
		var out *output
		out, err = createOutput(path)
		return out
	}
	o.profile, o.collapsed, o.reportJSON = open(f.output), open(f.collapsed), open(f.reportJSON)
	if err != nil {
		o.discard()
		return nil, err
	}
	return o, nil
}

// samePath reports whether two paths name one file: the same file on
// disk, or, for files not yet there, the same absolute path.
func samePath(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

func (o *outputs) discard() {
	o.profile.discard()
	o.collapsed.discard()
	o.reportJSON.discard()
}

// write writes every output the flags ask for: the profile, the
// collapsed stacks and the cost tables (the summary view of the profile's
// tables, as jsprof report --by summary shows them).
func (o *outputs) write(out *profiler.Outcome, f runFlags, io stdio) error {
	for _, w := range out.Warnings {
		warn(io, w)
	}
	var errs []error
	errs = append(errs, o.profile.commit(func(w *os.File) error { return out.Profile.Write(w) }))
	if o.collapsed != nil {
		errs = append(errs, o.collapsed.commit(func(w *os.File) error {
			return jsprofile.WriteCollapsed(w, out.Profile, jsprofile.ValueInstructions)
		}))
	}
	if o.reportJSON != nil {
		r, err := report.NewReport(out.Tables, report.ReportOptions{By: report.BySummary, Source: filepath.Base(f.output)})
		if err == nil {
			err = o.reportJSON.commit(func(w *os.File) error { return r.WriteJSON(w) })
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
