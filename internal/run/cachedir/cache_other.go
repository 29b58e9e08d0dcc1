//go:build !linux

package cachedir

import (
	"fmt"
	"io/fs"
	"time"
)

// lastUse is when a cache entry was last written: this platform's access
// times are not read.
func lastUse(info fs.FileInfo) time.Time { return info.ModTime() }

// fileStamp says which write of a file info is, as well as this platform
// tells: its size and modification time.
func fileStamp(info fs.FileInfo) string {
	return fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
}
