//go:build linux || darwin

package enginecache

import (
	"fmt"
	"os"
	"syscall"
)

// readMapped returns a file's bytes mapped read-only rather than read: a
// prepared engine's instrumented module is 1.7 MB, which read into fresh
// memory took 5-6 ms of every run's start on the machine of
// docs/performance.md, and mapped takes a tenth of a millisecond (its pages
// come from the page cache as they are read).
//
// The mapping is never unmapped: the bytes are a session's for as long as
// it lives, and a process makes few sessions. Only files jsprof writes
// whole and renames into place are read so (a file cut short in place
// under a mapping would fault its reader), and nothing writes to them: a
// write would fault at once rather than corrupt the cache.
func readMapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	if size == 0 || size != int64(int(size)) {
		return os.ReadFile(path)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	return b, nil
}
