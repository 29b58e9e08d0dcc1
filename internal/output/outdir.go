package output

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/internal/outfile"
)

// Dir is --out-dir: each of several inputs' own profile, NAME.pb.gz in
// the folder, NAME the input's file name without its extension. The
// folder is opened and its files created when it is opened, before the
// guests run: nothing a guest does to the folder's path (renamed, a link
// put in its place) moves them.
type Dir struct {
	path  string
	names []string // by input: file names in the folder
	root  *os.Root
	files []*outfile.File
}

// NewDir makes the folder path and names the inputs' profiles there, in
// the inputs' order. Two inputs of one name are an error naming both,
// and nothing is made.
func NewDir(path string, inputs []string) (*Dir, error) {
	d := &Dir{path: path, names: make([]string, len(inputs))}
	seen := map[string]string{}
	for i, in := range inputs {
		d.names[i] = strings.TrimSuffix(filepath.Base(in), filepath.Ext(in)) + ".pb.gz"
		if other, ok := seen[d.names[i]]; ok {
			return nil, fmt.Errorf("%s and %s would both be %s", other, in, filepath.Join(path, d.names[i]))
		}
		seen[d.names[i]] = in
	}
	return d, os.MkdirAll(path, 0o755)
}

// Files names each input's profile.
func (d *Dir) Files() []outfile.Named {
	named := make([]outfile.Named, len(d.names))
	for i, n := range d.names {
		named[i] = outfile.Named{What: "--out-dir", Path: filepath.Join(d.path, n)}
	}
	return named
}

// Open opens the folder and creates every input's file in it.
func (d *Dir) Open(_ context.Context, o Opening) error {
	root, err := os.OpenRoot(d.path)
	if err != nil {
		return fmt.Errorf("--out-dir: %w", err)
	}
	d.root = root
	for _, n := range d.names {
		f, err := o.Files.CreateIn(root, n)
		if err != nil {
			d.Discard()
			return err
		}
		d.files = append(d.files, f)
	}
	return nil
}

// WriteEach writes input i's profile to its file, as its run ends.
func (d *Dir) WriteEach(_ context.Context, i int, _ *profile.Profile, raw []byte) error {
	if i < 0 || i >= len(d.files) {
		return fmt.Errorf("--out-dir: no input %d", i)
	}
	return d.files[i].Commit(func(w *os.File) error { _, err := w.Write(raw); return err })
}

// Write releases the files of the inputs that made no profile: they
// leave none.
func (d *Dir) Write(context.Context, Result) error {
	d.Discard()
	return nil
}

// Discard releases the files not written, and the folder.
func (d *Dir) Discard() {
	for _, f := range d.files {
		f.Discard()
	}
	d.files = nil
	if d.root != nil {
		d.root.Close()
		d.root = nil
	}
}
