package runner

import (
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// memoryAllocator makes the linear memories of one instantiation
// (memory_unix.go), and is told the instance's memory once it exists, so
// that it can free what it made when that memory is garbage.
type memoryAllocator interface {
	experimental.MemoryAllocator
	releaseWith(mem api.Memory)
}
