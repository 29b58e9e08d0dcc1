package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// rootFS is the file system of one --dir mount: a host directory that the
// guest cannot leave. wazero's own directory mount joins the guest's path
// to the host directory and lets the host follow symbolic links wherever
// they lead, so a guest that makes a link ../../etc/passwd (or finds one
// already there) reads and writes through it. Here every path, and every
// link met along it, is resolved by os.Root beneath the directory: a link
// or a .. that would lead out is refused (EPERM), and so is any absolute
// link.
//
// Making a link is allowed when its target is relative, wherever it points
// (following it out is what fails); an absolute target is refused, as
// wasmtime (cap-std) and wazero refuse it.
type rootFS struct {
	experimentalsys.UnimplementedFS
	root *os.Root
}

// openRootFS opens dir for a mount; the caller closes it after the run.
func openRootFS(dir string) (*rootFS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("--dir %s: %w", dir, err)
	}
	return &rootFS{root: root}, nil
}

func (r *rootFS) String() string { return r.root.Name() }

// Close releases the directory.
func (r *rootFS) Close() error { return r.root.Close() }

// rootPath turns a path wazero hands the file system (relative to the
// mount, cleaned, perhaps with a trailing slash) into one for os.Root.
func rootPath(p string) string {
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return "."
	}
	return p
}

// pathErrno maps the error of an operation on a path. What is not a system
// error there is os.Root refusing the path: a .. or a link that leads out,
// an absolute link.
func pathErrno(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return experimentalsys.UnwrapOSError(errno)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return experimentalsys.ENOENT
	case errors.Is(err, fs.ErrExist):
		return experimentalsys.EEXIST
	case errors.Is(err, fs.ErrInvalid):
		return experimentalsys.EINVAL
	case errors.Is(err, fs.ErrClosed):
		return experimentalsys.EBADF
	}
	return experimentalsys.EPERM
}

// fileErrno maps the error of an operation on an open file.
func fileErrno(err error) experimentalsys.Errno {
	if errors.Is(err, io.EOF) {
		return 0
	}
	return experimentalsys.UnwrapOSError(err)
}

// osFlags converts WASI open flags to os.OpenFile's. O_DIRECTORY and
// O_NOFOLLOW are checked by OpenFile itself (os.Root follows a final link
// whatever the flags say, beneath the root); O_DSYNC and O_RSYNC are made
// O_SYNC, which implies them.
func osFlags(flag experimentalsys.Oflag) int {
	var f int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY) {
	case experimentalsys.O_RDWR:
		f = os.O_RDWR
	case experimentalsys.O_WRONLY:
		f = os.O_WRONLY
	default:
		f = os.O_RDONLY
	}
	for _, m := range []struct {
		wasi experimentalsys.Oflag
		os   int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND},
		{experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL},
		{experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC | experimentalsys.O_DSYNC | experimentalsys.O_RSYNC, os.O_SYNC},
	} {
		if flag&m.wasi != 0 {
			f |= m.os
		}
	}
	return f | openNonblock
}

// OpenFile opens a regular file or a directory. Other kinds (FIFOs, devices,
// sockets) are refused with EACCES: reading them can block the guest in
// the host for ever, where the run's context cannot reach it, and WASI
// cannot make them.
func (r *rootFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	name := rootPath(p)
	isDir := flag&experimentalsys.O_DIRECTORY != 0
	if isDir && flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) != 0 {
		return nil, experimentalsys.EISDIR
	}
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		if fi, err := r.root.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	f, err := r.root.OpenFile(name, osFlags(flag), perm)
	if err != nil {
		return nil, pathErrno(err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fileErrno(err)
	}
	switch {
	case fi.Mode().IsDir():
	case isDir:
		_ = f.Close()
		return nil, experimentalsys.ENOTDIR
	case !fi.Mode().IsRegular():
		_ = f.Close()
		return nil, experimentalsys.EACCES
	}
	return &rootFile{fs: r, name: name, flag: flag, perm: perm, file: f, st: sys.NewStat_t(fi)}, 0
}

func (r *rootFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Lstat(rootPath(p))
	if err != nil {
		return sys.Stat_t{}, pathErrno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Stat(rootPath(p))
	if err != nil {
		return sys.Stat_t{}, pathErrno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	errno := pathErrno(r.root.Mkdir(rootPath(p), perm))
	if errno == experimentalsys.ENOTDIR { // a parent that is a file: as wazero reports it
		errno = experimentalsys.ENOENT
	}
	return errno
}

func (r *rootFS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	return pathErrno(r.root.Chmod(rootPath(p), perm))
}

func (r *rootFS) Rename(from, to string) experimentalsys.Errno {
	return pathErrno(r.root.Rename(rootPath(from), rootPath(to)))
}

// Rmdir and Unlink check what they remove first: os.Root.Remove removes
// either kind. Were the entry replaced in between, the wrong kind would go,
// still beneath the root.
func (r *rootFS) Rmdir(p string) experimentalsys.Errno {
	name := rootPath(p)
	fi, err := r.root.Lstat(name)
	if err != nil {
		return pathErrno(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	return pathErrno(r.root.Remove(name))
}

func (r *rootFS) Unlink(p string) experimentalsys.Errno {
	name := rootPath(p)
	fi, err := r.root.Lstat(name)
	if err != nil {
		return pathErrno(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	return pathErrno(r.root.Remove(name))
}

func (r *rootFS) Link(oldPath, newPath string) experimentalsys.Errno {
	return pathErrno(r.root.Link(rootPath(oldPath), rootPath(newPath)))
}

func (r *rootFS) Symlink(target, link string) experimentalsys.Errno {
	if path.IsAbs(target) || filepath.IsAbs(target) {
		return experimentalsys.EPERM
	}
	return pathErrno(r.root.Symlink(target, rootPath(link)))
}

func (r *rootFS) Readlink(p string) (string, experimentalsys.Errno) {
	target, err := r.root.Readlink(rootPath(p))
	if err != nil {
		return "", pathErrno(err)
	}
	return filepath.ToSlash(target), 0
}

func (r *rootFS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	return pathErrno(r.root.Chtimes(rootPath(p), utime(atim), utime(mtim)))
}

// utime converts a WASI time for Chtimes, for which the zero time means
// "leave it", as UTIME_OMIT does.
func utime(nsec int64) time.Time {
	if nsec == experimentalsys.UTIME_OMIT {
		return time.Time{}
	}
	return time.Unix(0, nsec)
}

var (
	_ experimentalsys.FS   = (*rootFS)(nil)
	_ experimentalsys.File = (*rootFile)(nil)
)

// rootFile is a file or directory opened in a rootFS.
type rootFile struct {
	experimentalsys.UnimplementedFile
	fs     *rootFS
	name   string // beneath the root, to reopen it and to find its entries
	flag   experimentalsys.Oflag
	perm   fs.FileMode
	file   *os.File
	st     sys.Stat_t // at open: its device, inode and kind do not change
	closed bool
}

func (f *rootFile) isDir() bool { return f.st.Mode.IsDir() }

func (f *rootFile) Dev() (uint64, experimentalsys.Errno)    { return f.st.Dev, 0 }
func (f *rootFile) Ino() (sys.Inode, experimentalsys.Errno) { return f.st.Ino, 0 }
func (f *rootFile) IsDir() (bool, experimentalsys.Errno)    { return f.isDir(), 0 }
func (f *rootFile) IsAppend() bool                          { return f.flag&experimentalsys.O_APPEND != 0 }
func (f *rootFile) Sync() experimentalsys.Errno             { return f.check(false, f.file.Sync()) }
func (f *rootFile) Datasync() experimentalsys.Errno         { return f.check(false, f.file.Sync()) }
func (f *rootFile) Utimens(atim, mtim int64) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	return f.utimens(atim, mtim)
}

// check maps err, after the checks every operation makes: the file is open,
// and, for operations on contents, not a directory.
func (f *rootFile) check(contents bool, err error) experimentalsys.Errno {
	switch {
	case f.closed:
		return experimentalsys.EBADF
	case contents && f.isDir():
		return experimentalsys.EISDIR
	}
	return fileErrno(err)
}

// SetAppend reopens the file with or without O_APPEND (a flag Go fixes at
// open), beneath the root, at the same offset, checking that it is still
// the same file.
func (f *rootFile) SetAppend(enable bool) experimentalsys.Errno {
	if errno := f.check(true, nil); errno != 0 {
		return errno
	}
	flag := f.flag &^ (experimentalsys.O_APPEND | experimentalsys.O_CREAT | experimentalsys.O_EXCL | experimentalsys.O_TRUNC)
	if enable {
		flag |= experimentalsys.O_APPEND
	}
	offset, err := f.file.Seek(0, io.SeekCurrent)
	if err != nil {
		return fileErrno(err)
	}
	nf, err := f.fs.root.OpenFile(f.name, osFlags(flag), f.perm)
	if err != nil {
		return pathErrno(err)
	}
	was, err1 := f.file.Stat()
	now, err2 := nf.Stat()
	if err := errors.Join(err1, err2); err != nil || !os.SameFile(was, now) {
		_ = nf.Close()
		if err != nil {
			return fileErrno(err)
		}
		return experimentalsys.ENOENT // replaced since it was opened
	}
	if _, err := nf.Seek(offset, io.SeekStart); err != nil {
		_ = nf.Close()
		return fileErrno(err)
	}
	_ = f.file.Close()
	f.file, f.flag = nf, flag
	return 0
}

func (f *rootFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if f.closed {
		return sys.Stat_t{}, experimentalsys.EBADF
	}
	fi, err := f.file.Stat()
	if err != nil {
		return sys.Stat_t{}, fileErrno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (f *rootFile) Read(buf []byte) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, f.check(true, nil)
	}
	n, err := f.file.Read(buf)
	return n, f.check(true, err)
}

func (f *rootFile) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, f.check(true, nil)
	}
	n, err := f.file.ReadAt(buf, off)
	return n, f.check(true, err)
}

func (f *rootFile) Write(buf []byte) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, f.check(true, nil)
	}
	n, err := f.file.Write(buf)
	return n, f.check(true, err)
}

func (f *rootFile) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, f.check(true, nil)
	}
	n, err := f.file.WriteAt(buf, off)
	return n, f.check(true, err)
}

func (f *rootFile) Truncate(size int64) experimentalsys.Errno {
	if size < 0 {
		return experimentalsys.EINVAL
	}
	return f.check(true, f.file.Truncate(size))
}

// fileOffset is int64 under another name, only so that go vet does not take
// Seek, which returns an Errno as sys.File wants, for a wrong io.Seeker.
type fileOffset = int64

// Seek on a directory only rewinds it (offset 0 from the start), as
// sys.File asks; os.File then reads its entries from the beginning again.
func (f *rootFile) Seek(offset fileOffset, whence int) (int64, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	if uint(whence) > io.SeekEnd {
		return 0, experimentalsys.EINVAL
	}
	if f.isDir() && (offset != 0 || whence != io.SeekStart) {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.file.Seek(offset, whence)
	return n, fileErrno(err)
}

// Readdir lists up to n entries (all that remain for n <= 0). Their inode
// numbers come from lstat beneath the root (os.DirEntry.Info would lstat
// the host path, outside the root's resolution); an entry gone since is
// listed with inode 0.
func (f *rootFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if f.closed {
		return nil, experimentalsys.EBADF
	}
	if !f.isDir() {
		return nil, experimentalsys.ENOTDIR
	}
	entries, err := f.file.ReadDir(n)
	if errno := fileErrno(err); errno != 0 {
		return nil, errno
	}
	out := make([]experimentalsys.Dirent, 0, len(entries))
	for _, e := range entries {
		d := experimentalsys.Dirent{Name: e.Name(), Type: e.Type()}
		if fi, err := f.fs.root.Lstat(path.Join(f.name, e.Name())); err == nil {
			d.Ino = sys.NewStat_t(fi).Ino
		}
		out = append(out, d)
	}
	return out, 0
}

func (f *rootFile) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	return fileErrno(f.file.Close())
}
