package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
)

// output is a file to be written: its directory, opened before the guest
// runs and held, and its name there. It is written to a temporary file
// created in that directory when the content is ready (the guest has
// ended), and renamed over the name: no reader ever sees half a file.
// Nothing is resolved by path again after the directory is opened, so a
// guest granted that directory (--dir) cannot send the write elsewhere:
// it can rename or replace entries while it runs, but the temporary file
// does not exist yet, is created O_EXCL, changed through its descriptor
// only, and renamed within the held directory, which replaces whatever
// is at the name (a link the guest left is replaced, never followed).
// A character device (/dev/null, a terminal) is written in place instead:
// it has no content to replace and its directory entry must stay.
type output struct {
	path   string   // as given, for messages
	dir    *os.Root // the directory the file is written in
	name   string   // the file's name in dir
	device *os.File // a character device, written in place
}

// temporaries are the temporary files of outputs being written, for
// exitNow to remove when a second signal ends jsprof before they are
// renamed (deferred calls do not run then).
var temporaries = struct {
	sync.Mutex
	files map[temporary]bool
}{files: map[temporary]bool{}}

// temporary is a temporary file: its name in a held directory.
type temporary struct {
	dir  *os.Root
	name string
}

func addTemporary(t temporary) {
	temporaries.Lock()
	defer temporaries.Unlock()
	temporaries.files[t] = true
}

func dropTemporary(t temporary) {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.files, t)
}

// removeTemporaries removes every temporary file not yet renamed into
// place or removed; the lock is kept, so that none is renamed after.
func removeTemporaries() {
	temporaries.Lock()
	for t := range temporaries.files {
		t.dir.Remove(t.name)
	}
}

// createOutput checks that path can be written, failing now if it cannot
// (a missing directory, a directory, a read-only place), and opens its
// directory. A symbolic link is not written through, as the file it
// names may be anything a guest or another user chose (a guest can make
// one in its --dir; another user, in a sticky /tmp, where the kernel's
// protected_symlinks applies only to links the kernel follows): it is
// refused, unless it leads to a character device (/dev/stdout on a
// terminal), which the kernel opens through it.
func createOutput(path string) (*output, error) {
	if st, err := os.Lstat(path); err == nil {
		switch {
		case st.Mode()&(os.ModeSymlink|os.ModeCharDevice) != 0:
			if dev, err := openDevice(path); err != nil || dev != nil {
				return &output{path: path, device: dev}, err
			}
			return nil, fmt.Errorf("writing %s: a symbolic link: jsprof writes no file through a link (name the file itself)", path)
		case !st.Mode().IsRegular():
			return nil, fmt.Errorf("writing %s: not a regular file", path)
		}
	}
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	o := &output{path: path, dir: dir, name: filepath.Base(path)}
	// A temporary file, made and removed at once, says whether the
	// directory takes new files.
	tmp, t, err := o.createTemporary()
	if err == nil {
		tmp.Close()
		removeTemporary(t)
		return o, nil
	}
	dir.Close()
	return nil, fmt.Errorf("writing %s: %w", path, err)
}

// openDevice opens path for writing if it is, or leads to, a character
// device, and returns nil otherwise. The kernel follows the link (and
// applies protected_symlinks); what it opened is checked again, as the
// entry may have changed since it was looked at.
func openDevice(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		f.Close()
		return nil, fmt.Errorf("writing %s: changed while being opened", path)
	}
	return f, nil
}

// createTemporary creates a new temporary file in o's directory: O_EXCL,
// so that nothing already there (a link) is opened, readable by all
// (0644, set on the descriptor), as profiles and reports are meant to be
// shared.
func (o *output) createTemporary() (*os.File, temporary, error) {
	for range 100 {
		t := temporary{dir: o.dir, name: ".jsprof-" + strconv.FormatUint(rand.Uint64()%1e12, 10)}
		f, err := o.dir.OpenFile(t.name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, t, err
		}
		addTemporary(t)
		if err := f.Chmod(0o644); err != nil {
			f.Close()
			removeTemporary(t)
			return nil, t, err
		}
		return f, t, nil
	}
	return nil, temporary{}, errors.New("no free name for a temporary file")
}

func removeTemporary(t temporary) {
	t.dir.Remove(t.name)
	dropTemporary(t)
}

// commit writes the file's content and puts it in place.
func (o *output) commit(write func(f *os.File) error) error {
	defer o.discard()
	if o.device != nil {
		err := write(o.device)
		if cerr := o.device.Close(); err == nil {
			err = cerr
		}
		o.device = nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
		return nil
	}
	tmp, t, err := o.createTemporary()
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameTemporary(t, o.name)
	}
	if err != nil {
		removeTemporary(t)
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// renameTemporary puts a temporary file in place, under the lock of
// removeTemporaries: jsprof ending on a second signal then either removes
// it or finds it in place, never half of each.
func renameTemporary(t temporary, name string) error {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.files, t)
	return t.dir.Rename(t.name, name)
}

// discard releases what o holds; nothing is left on disk.
func (o *output) discard() {
	if o == nil {
		return
	}
	if o.device != nil {
		o.device.Close()
		o.device = nil
	}
	if o.dir != nil {
		o.dir.Close()
		o.dir = nil
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
