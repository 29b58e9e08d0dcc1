//go:build linux

package naming

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTouchedRegions: of a memory, large or small, only the pages written
// are read.
func TestTouchedRegions(t *testing.T) {
	const size = 128 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(mem)
	page := syscall.Getpagesize()
	mem[3*page+5] = 1
	mem[3*page+page+1] = 1 // the next page: one region of two
	mem[100<<20] = 1
	assert.Equal(t, [][2]int{{3 * page, 5 * page}, {100 << 20, 100<<20 + page}}, touchedRegions(mem))
	small, err := syscall.Mmap(-1, 0, 1<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(small)
	small[7*page] = 1
	assert.Equal(t, [][2]int{{7 * page, 8 * page}}, touchedRegions(small))
	assert.Empty(t, touchedRegions(small[:0]))
}
