package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSecondSignal: what a second signal says it left unwritten: nothing
// (every output written), the files by name, the first three of many.
func TestSecondSignal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		unwritten []string
		want      string
	}{
		{nil, "exiting, every output written"},
		{[]string{"p.pb.gz"}, "exiting without writing p.pb.gz"},
		{[]string{"a", "b", "c"}, "exiting without writing a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, "exiting without writing a, b, c and 2 more"},
		{[]string{"a\x1b[2Jb"}, "exiting without writing a [2Jb"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, SecondSignal(tt.unwritten))
	}
}
