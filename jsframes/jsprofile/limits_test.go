package jsprofile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimitsReadBack: a function's limits, scaled or not, read back as
// written; a scale factor out of 1-10 is an error naming its comment.
func TestLimitsReadBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits Limits
	}{
		{"not scaled", Limits{Instructions: 11_000_000, InputBytes: 128_000, OutputBytes: 20_000, InstructionsOver: true}},
		{"scaled", Limits{Instructions: 27_500_000, InputBytes: 320_000, OutputBytes: 50_000, OutputOver: true, ScaleFactor: 2.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: 5, Run: RunInfo{Export: "_start", Limits: &tt.limits}})
			b.Add([]Frame{JSFrame("<eval>", "index.js", 1, 1, 0x10, 0), OpcodeFrame("call", 34)}, 5, 1, 0)
			p, err := b.Profile()
			require.NoError(t, err)
			jp, err := Read(p)
			require.NoError(t, err)
			assert.Equal(t, &tt.limits, jp.Meta.Run.Limits)
			assert.Equal(t, tt.limits.ScaleFactor != 0, tt.limits.Scaled())

			p.Comments = append(p.Comments, commentScaleFactor+"=11")
			_, err = Read(p)
			assert.ErrorContains(t, err, "jsprof.run.scale_factor=11: want a scale factor from 1 to 10")
		})
	}
}
