//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package runner

// newMemoryAllocator is none elsewhere: wazero's own, whose memories grow
// by copying.
func newMemoryAllocator() memoryAllocator { return nil }
