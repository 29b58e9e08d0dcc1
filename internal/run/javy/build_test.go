package javy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNonZeroRuns(t *testing.T) {
	tests := []struct {
		name string
		mem  []byte
		gap  int
		want [][2]int
	}{
		{"all zero", make([]byte, 16), 2, nil},
		{"one byte", []byte{0, 0, 7, 0}, 2, [][2]int{{2, 3}}},
		{"short gap merged", []byte{1, 0, 0, 2}, 2, [][2]int{{0, 4}}},
		{"long gap split", []byte{1, 0, 0, 0, 2}, 2, [][2]int{{0, 1}, {4, 5}}},
		{"trailing zeros dropped", []byte{0, 3, 3, 0, 0, 0, 0}, 8, [][2]int{{1, 3}}},
		{"ends non-zero", []byte{5, 0, 5}, 0, [][2]int{{0, 1}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, nonZeroRuns(tt.mem, tt.gap))
		})
	}
}
