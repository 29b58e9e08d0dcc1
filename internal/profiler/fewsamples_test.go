package profiler

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFewSamples(t *testing.T) {
	for _, tt := range []struct {
		taken int
		total uint64
		want  string
	}{
		{0, 116_283, "no samples: the guest ran only 116283 Wasm instructions, and a sample comes about every 1000000 (--sample-every); --sample-every 100 takes about 1162"},
		{6, 6_704_893, "only 6 samples (one about every 1000000 Wasm instructions, --sample-every): too few to rank functions, one sample can make a function look like 16.7% of the run; --sample-every 6000 takes about 1117"},
		{99, 99_000_000, "only 99 samples"},
		{100, 100_000_000, ""},
		{0, 999, "--sample-every 1 takes"},
	} {
		err := fewSamples(tt.taken, tt.total, 1_000_000)
		if tt.want == "" {
			assert.NoError(t, err, "%d samples", tt.taken)
			continue
		}
		assert.ErrorContains(t, err, tt.want)
	}
}
