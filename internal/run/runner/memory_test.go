package runner

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/tetratelabs/wazero/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoryAllocatorGrowsInPlace: memory grows without moving, keeps its
// contents, and stops at its maximum.
func TestMemoryAllocatorGrowsInPlace(t *testing.T) {
	alloc := newMemoryAllocator()
	if alloc == nil {
		t.Skip("wazero's own allocator on this platform")
	}
	const page = 65536
	mem := alloc.Allocate(page, 4*page)
	defer mem.Free()
	buf := mem.Reallocate(page)
	require.Len(t, buf, page)
	buf[0], buf[page-1] = 7, 9
	grown := mem.Reallocate(3 * page)
	require.Len(t, grown, 3*page)
	assert.Same(t, &buf[0], &grown[0], "grown in place")
	assert.Equal(t, byte(7), grown[0])
	assert.Equal(t, byte(9), grown[page-1])
	grown[3*page-1] = 1 // the new pages are writable
	assert.Len(t, mem.Reallocate(4*page), 4*page)
	assert.Nil(t, mem.Reallocate(4*page+1), "past the maximum")
}

// TestMemoryReadableAfterExit: a guest that exits is closed by wazero,
// which frees its memory; the meter and the namer read it afterwards, so
// it must stay mapped while anything can reach it, garbage collections
// and all.
func TestMemoryReadableAfterExit(t *testing.T) {
	wasm, err := os.ReadFile("testdata/exitmem.wasm")
	require.NoError(t, err)
	var mem api.Memory
	res, err := Run(context.Background(), wasm, Options{Name: "exitmem", Instantiated: func(_ context.Context, mod api.Module) error {
		mem = mod.Memory()
		return nil
	}})
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode)
	require.NotNil(t, mem)
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	v, ok := mem.ReadUint32Le(8)
	require.True(t, ok)
	assert.Equal(t, uint32(42), v)
}
