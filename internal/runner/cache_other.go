//go:build !linux

package runner

import (
	"io/fs"
	"time"
)

// lastUse is when a cache entry was last written: this platform's access
// times are not read.
func lastUse(info fs.FileInfo) time.Time { return info.ModTime() }
