package meter

import (
	"testing"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPCSlabSlicesDoNotOverlap: the slices Collect cuts from one slab
// hold exactly what was asked for, and appending past that moves a slice
// elsewhere rather than writing over the next one.
func TestPCSlabSlicesDoNotOverlap(t *testing.T) {
	var s pcSlab
	assert.Nil(t, s.take(0), "no room asked, no slice")

	sizes := []int{3, 1, 5000, 2, 4096} // 5000 and 4096 need slabs of their own
	got := make([][]costs.PCCost, len(sizes))
	for i, n := range sizes {
		got[i] = s.take(n)
		require.Len(t, got[i], 0)
		require.Equal(t, n, cap(got[i]), "slice %d", i)
		for pc := range n {
			got[i] = append(got[i], costs.PCCost{PC: uint32(i), Opcode: pc})
		}
	}
	// One past the room taken: the next slice must not see it.
	got[0] = append(got[0], costs.PCCost{PC: 99})
	for i, n := range sizes {
		if i == 0 {
			n++
		}
		require.Len(t, got[i], n, "slice %d", i)
		for pc, c := range got[i][:sizes[i]] {
			assert.Equal(t, costs.PCCost{PC: uint32(i), Opcode: pc}, c, "slice %d, element %d", i, pc)
		}
	}
	assert.Equal(t, uint32(99), got[0][3].PC)
}
