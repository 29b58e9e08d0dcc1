package jsprofile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSName: every field a JS system_name carries reads back, names with
// @0x of their own (anonymous@0x…) included; other system names are not
// JS names.
func TestJSName(t *testing.T) {
	t.Parallel()
	for _, n := range []JSName{
		{Name: "fib", Address: 0x1000},
		{Name: "anonymous@0x148ac4", Address: 0x148ac4, Column: 12},
		{Name: "t", Address: 0x10, Column: 5610, Generated: &GeneratedPos{Line: 1, Column: 5610}, Lines: map[int64]int64{3: 1, 12: 1}},
		{Name: "<eval>", Address: 0x20, Column: 1, Generated: &GeneratedPos{Line: 1, Column: 1}, Part: 2},
	} {
		s := n.String()
		got, ok := ParseJSName(s)
		require.True(t, ok, s)
		assert.Equal(t, n, got, s)
	}
	assert.Equal(t, "js:fib@0x1000/col=3", JSName{Name: "fib", Address: 0x1000, Column: 3}.String())
	for _, s := range []string{"native:JSON.parse@table[3]", "js:fib", "js:fib@0x", "js:fib@0x10/col=x", "op:12"} {
		_, ok := ParseJSName(s)
		assert.False(t, ok, s)
	}
}

// TestJSNameWhole: the parts of one source-mapped function share Whole,
// MapNamed tells them from a bundle's name; another function's differs.
func TestJSNameWhole(t *testing.T) {
	t.Parallel()
	gen := &GeneratedPos{Line: 1, Column: 1}
	first := JSName{Name: "<eval>", Address: 0x10, Column: 1, Generated: gen, Lines: map[int64]int64{1: 9}}
	part := JSName{Name: "<eval>", Address: 0x10, Column: 1, Generated: gen, Lines: map[int64]int64{5: 64}, Part: 2}
	other := JSName{Name: "<eval>", Address: 0x20, Column: 1, Generated: gen}
	assert.Equal(t, first.Whole(), part.Whole())
	assert.NotEqual(t, first.Whole(), other.Whole())
	assert.True(t, MapNamed(part.String()))
	assert.False(t, MapNamed(JSName{Name: "<eval>", Address: 0x10, Column: 1}.String()))
}
