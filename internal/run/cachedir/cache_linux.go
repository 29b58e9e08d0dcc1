//go:build linux

package cachedir

import (
	"fmt"
	"io/fs"
	"syscall"
	"time"
)

// lastUse is when a cache entry was last read or written, as well as the
// file system tells (reads update the access time, at least daily).
func lastUse(info fs.FileInfo) time.Time {
	used := info.ModTime()
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		if at := time.Unix(st.Atim.Sec, st.Atim.Nsec); at.After(used) {
			used = at
		}
	}
	return used
}

// fileStamp says which file and which write of it info is: a write
// changes its change time, which no one but the kernel sets.
func fileStamp(info fs.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d:%d.%d:%d.%d", st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
}
