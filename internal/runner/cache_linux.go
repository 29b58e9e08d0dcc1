//go:build linux

package runner

import (
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
