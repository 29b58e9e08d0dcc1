package output

import (
	"context"
	"os"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// File is -o: the run's pprof profile, gzipped, written to Path.
type File struct {
	Path string
	file *outfile.File
}

// Files names the profile's file.
func (f *File) Files() []outfile.Named { return []outfile.Named{{What: "-o", Path: f.Path}} }

// Open creates the file (outfile.Set.Create).
func (f *File) Open(_ context.Context, o Opening) (err error) {
	f.file, err = o.Files.Create(f.Path)
	return err
}

// Write writes r's profile.
func (f *File) Write(_ context.Context, r Result) error {
	return f.file.Commit(func(w *os.File) error { return jsprofile.Write(w, r.Profile) })
}

// Discard releases the file if it was not written.
func (f *File) Discard() { f.file.Discard() }
