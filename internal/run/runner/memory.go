package runner

import (
	"context"

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

// ReservedMemory returns ctx with the allocator Session.Instantiate backs
// a guest's linear memories with (memory_unix.go: address space reserved
// up to the memory's maximum, committed as the memory grows; wazero's own
// elsewhere), for an instantiation made with it outside a Session, and
// release, to be called with the instance's memory once it is made: what
// was reserved for it is unmapped once that memory is garbage.
func ReservedMemory(ctx context.Context) (_ context.Context, release func(api.Memory)) {
	alloc := newMemoryAllocator()
	if alloc == nil {
		return ctx, func(api.Memory) {}
	}
	return experimental.WithMemoryAllocator(ctx, alloc), alloc.releaseWith
}
