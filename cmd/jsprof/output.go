package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
)

// output is a file being written: a temporary file beside it, renamed
// over it when complete, so that no reader ever sees half a file; or a
// character device (/dev/null, a terminal), written in place, as it has
// no content to replace and its directory entry must stay.
type output struct {
	path   string // as given, for messages
	target string // the file written: path with its links followed
	tmp    *os.File
	device bool // tmp is the device itself
}

// temporaries are the temporary files of outputs being written, for
// exitNow to remove when a second signal ends jsprof before they are
// committed or discarded (deferred calls do not run then).
var temporaries = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

func addTemporary(name string) {
	temporaries.Lock()
	defer temporaries.Unlock()
	temporaries.names[name] = true
}

func dropTemporary(name string) {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.names, name)
}

// removeTemporaries removes every temporary file not yet committed or
// discarded; the lock is kept, so that none is renamed into place after.
func removeTemporaries() {
	temporaries.Lock()
	for name := range temporaries.names {
		os.Remove(name)
	}
}

// createOutput creates the temporary file of path, failing now if path
// cannot be written (a missing directory, a directory, a read-only
// place). A path that is a link is written through it: the file it names
// is replaced and the link kept (renaming over the link would replace
// it, /dev/stdout as well).
func createOutput(path string) (*output, error) {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	if st, err := os.Stat(target); err == nil {
		switch {
		case st.Mode()&os.ModeCharDevice != 0:
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("writing %s: %w", path, err)
			}
			return &output{path: path, target: target, tmp: f, device: true}, nil
		case !st.Mode().IsRegular():
			return nil, fmt.Errorf("writing %s: not a regular file", path)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), ".jsprof-*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	addTemporary(tmp.Name())
	return &output{path: path, target: target, tmp: tmp}, nil
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
	if o.device {
		if err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
		return nil
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = renameTemporary(tmp.Name(), o.target)
	}
	if err != nil {
		os.Remove(tmp.Name())
		dropTemporary(tmp.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// renameTemporary puts a temporary file in place, under the lock of
// removeTemporaries: jsprof ending on a second signal then either removes
// it or finds it in place, never half of each.
func renameTemporary(tmp, target string) error {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.names, tmp)
	return os.Rename(tmp, target)
}

// discard removes the temporary file if it was not committed (a device
// is only closed).
func (o *output) discard() {
	if o != nil && o.tmp != nil {
		o.tmp.Close()
		if !o.device {
			os.Remove(o.tmp.Name())
			dropTemporary(o.tmp.Name())
		}
		o.tmp = nil
	}
}

// outputs are the files jsprof run writes: the profile, and the collapsed
// stacks and the JSON report when asked for.
type outputs struct {
	profile, collapsed, reportJSON *output
}

// openOutputs checks and creates every output of f before the guest runs:
// each must be writable, and none may be another output or one of the
// run's inputs: the module, the --source, --plugin and --input files,
// and the files linking found (the plugin or provider a folder of
// providers resolved to). Writing one would destroy what the run read.
func openOutputs(f runFlags, modulePath string, linked profiler.Linking) (*outputs, error) {
	type input struct{ what, path string }
	inputs := []input{{"the module being run", modulePath}, {"the --source file", f.source}, {"the --input file", f.input}}
	for _, p := range f.plugins {
		inputs = append(inputs, input{"a --plugin", p})
	}
	if linked.Plugin != nil {
		inputs = append(inputs, input{"the plugin linked", linked.Plugin.Name})
	}
	if linked.Provider != nil && linked.Provider.Path != "" {
		inputs = append(inputs, input{"the provider linked", linked.Provider.Path})
	}
	named := []struct{ flag, path string }{{"-o", f.output}, {"--collapsed", f.collapsed}, {"--report-json", f.reportJSON}}
	for i, a := range named {
		if a.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && samePath(a.path, in.path) {
				return nil, fmt.Errorf("%s %s: that is %s", a.flag, a.path, in.what)
			}
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
// disk (through links, or hard links, too), or, for files not yet there,
// the same absolute path. A character device is no file: -o /dev/null
// and --collapsed /dev/null (or --input /dev/null) may share it.
func samePath(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		if sa.Mode()&os.ModeCharDevice != 0 {
			return false
		}
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
	errs = append(errs, o.profile.commit(func(w *os.File) error { return jsprofile.Write(w, out.Profile) }))
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
