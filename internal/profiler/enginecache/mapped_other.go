//go:build !(linux || darwin)

package enginecache

import "os"

// readMapped reads a file (mapped_unix.go maps it).
func readMapped(path string) ([]byte, error) { return os.ReadFile(path) }
