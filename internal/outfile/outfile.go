package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
)

// File is a file to be written: its directory, opened before the guest
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
type File struct {
	set    *Set
	path   string   // as given, for messages
	dir    *os.Root // the directory the file is written in
	shared bool     // dir is the caller's (CreateIn), not closed here
	name   string   // the file's name in dir
	device *os.File // a character device, written in place
}

// Set is the files a process writes: it knows their temporary files, for
// RemoveTemporaries to remove when the process must end before they are
// renamed (on a second signal: deferred calls do not run then). Its zero
// value is ready to use.
type Set struct {
	mu    sync.Mutex
	files map[temporary]bool
	open  map[*File]bool // created, not yet written nor discarded
}

// temporary is a temporary file: its name in a held directory.
type temporary struct {
	dir  *os.Root
	name string
}

func (s *Set) add(t temporary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[temporary]bool{}
	}
	s.files[t] = true
}

func (s *Set) drop(t temporary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, t)
}

// opened counts o among the files not yet written.
func (s *Set) opened(o *File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[*File]bool{}
	}
	s.open[o] = true
}

// closed says o is written or discarded.
func (s *Set) closed(o *File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, o)
}

// RemoveTemporaries removes every temporary file not yet renamed into
// place or removed, and returns the paths of the files created and not
// yet written (nor discarded), sorted; the lock is kept, so that none is
// renamed after: the process is ending.
func (s *Set) RemoveTemporaries() (unwritten []string) {
	s.mu.Lock()
	for t := range s.files {
		t.dir.Remove(t.name)
	}
	for o := range s.open {
		unwritten = append(unwritten, o.path)
	}
	slices.Sort(unwritten)
	return unwritten
}

// Create checks that path can be written, failing now if it cannot
// (a missing directory, a directory, a read-only place), and opens its
// directory. A symbolic link is not written through, as the file it
// names may be anything a guest or another user chose (a guest can make
// one in its --dir; another user, in a sticky /tmp, where the kernel's
// protected_symlinks applies only to links the kernel follows): it is
// refused, unless it leads to a character device (/dev/stdout on a
// terminal), which the kernel opens through it.
func (s *Set) Create(path string) (*File, error) {
	if st, err := os.Lstat(path); err == nil {
		switch {
		case st.Mode()&(os.ModeSymlink|os.ModeCharDevice) != 0:
			if dev, err := openDevice(path); err != nil || dev != nil {
				if err != nil {
					return nil, err
				}
				o := &File{set: s, path: path, device: dev}
				s.opened(o)
				return o, nil
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
	o, err := s.create(dir, path, false)
	if err != nil {
		dir.Close()
	}
	return o, err
}

// CreateIn is Create for the file name of dir, a directory the caller
// opened and keeps open until its files are written or discarded (many
// files of one directory then hold one descriptor). Anything but a
// regular file at the name is refused, a character device too.
func (s *Set) CreateIn(dir *os.Root, name string) (*File, error) {
	path := filepath.Join(dir.Name(), name)
	if st, err := dir.Lstat(name); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("writing %s: not a regular file", path)
	}
	return s.create(dir, path, true)
}

// create makes the File of path in dir, once a temporary file, made and
// removed at once, says that the directory takes new files.
func (s *Set) create(dir *os.Root, path string, shared bool) (*File, error) {
	o := &File{set: s, path: path, dir: dir, name: filepath.Base(path), shared: shared}
	tmp, t, err := o.createTemporary()
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	tmp.Close()
	o.removeTemporary(t)
	s.opened(o)
	return o, nil
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
func (o *File) createTemporary() (*os.File, temporary, error) {
	for range 100 {
		t := temporary{dir: o.dir, name: ".jsprof-" + strconv.FormatUint(rand.Uint64()%1e12, 10)}
		f, err := o.dir.OpenFile(t.name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, t, err
		}
		o.set.add(t)
		if err := f.Chmod(0o644); err != nil {
			f.Close()
			o.removeTemporary(t)
			return nil, t, err
		}
		return f, t, nil
	}
	return nil, temporary{}, errors.New("no free name for a temporary file")
}

func (o *File) removeTemporary(t temporary) {
	t.dir.Remove(t.name)
	o.set.drop(t)
}

// Commit writes the file's content and puts it in place.
func (o *File) Commit(write func(f *os.File) error) error {
	defer o.Discard()
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
		err = o.set.rename(o, t)
	}
	if err != nil {
		o.removeTemporary(t)
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// rename puts a temporary file in place, under the lock of
// RemoveTemporaries: a process ending on a second signal then either
// removes it or finds it in place, never half of each.
func (s *Set) rename(o *File, t temporary) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, t)
	err := t.dir.Rename(t.name, o.name)
	if err == nil {
		delete(s.open, o)
	}
	return err
}

// Discard releases what o holds; nothing is left on disk.
func (o *File) Discard() {
	if o == nil {
		return
	}
	o.set.closed(o)
	if o.device != nil {
		o.device.Close()
		o.device = nil
	}
	if o.dir != nil {
		if !o.shared {
			o.dir.Close()
		}
		o.dir = nil
	}
}

// WriteAtomic writes path via a temporary file in the same directory and
// a rename, so that an interrupted process never leaves half a file.
func (s *Set) WriteAtomic(path string, write func(f *os.File) error) error {
	o, err := s.Create(path)
	if err != nil {
		return err
	}
	return o.Commit(write)
}

// Named is a file a command names, and what it is there ("-o", "the
// --input file").
type Named struct{ What, Path string }

// Distinct checks that no output (empty paths aside) is one of the inputs
// or another output (SamePath): writing it would destroy what was read,
// or what another output wrote.
func Distinct(outputs, inputs []Named) error {
	for i, a := range outputs {
		if a.Path == "" {
			continue
		}
		for _, in := range inputs {
			if in.Path != "" && SamePath(a.Path, in.Path) {
				return fmt.Errorf("%s %s: that is %s", a.What, a.Path, in.What)
			}
		}
		for _, b := range outputs[:i] {
			if b.Path != "" && SamePath(a.Path, b.Path) {
				return fmt.Errorf("%s and %s both name %s", b.What, a.What, a.Path)
			}
		}
	}
	return nil
}

// SamePath reports whether two paths name one file: the same file on
// disk (through links, or hard links, too), or, for files not yet there,
// the same absolute path. A character device is no file: -o /dev/null
// and --collapsed /dev/null (or --input /dev/null) may share it.
func SamePath(a, b string) bool {
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
