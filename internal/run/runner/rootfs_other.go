//go:build !linux

package runner

import experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

// utimens sets the file's times by its name beneath the root: without
// futimens in package syscall, a file renamed since it was opened is not
// found (or another file of that name, beneath the root, is changed).
func (f *rootFile) utimens(atim, mtim int64) experimentalsys.Errno {
	return pathErrno(f.fs.root.Chtimes(f.name, utime(atim), utime(mtim)))
}
