//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package runner

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator is wazero's default elsewhere: memory grows by copying.
func memoryAllocator() experimental.MemoryAllocator { return nil }
