package jsprofile

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/google/pprof/profile"
)

// TestMerge: profiles of one module on several inputs merge into one
// whose samples carry their input, whose total is theirs, and whose
// comments keep what holds for all the runs and leave out what was one
// run's (a trap, a throw, a function's sizes).
func TestMerge(t *testing.T) {
	t.Parallel()
	eval := JSFrame("<eval>", "index.js", 1, 3, 0x1000, 7)
	build := func(total int64, code int, throw *Throw) *profile.Profile {
		b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: uint64(total), ExitCode: &code, Trap: map[bool]string{true: "unreachable"}[throw != nil],
			Throw: throw, Run: RunInfo{Export: "_start", Provider: "p", Codec: "json", InputBytes: 10, OutputBytes: 20}})
		b.Add([]Frame{eval, OpcodeFrame("call", 34)}, total, 1, 0)
		p, err := b.Profile()
		require.NoError(t, err)
		return p
	}
	a, b := build(100, 0, nil), build(50, 134, &Throw{Message: "Error: x", Stack: []ThrowFrame{}})
	merged, err := Merge([]*profile.Profile{a, b}, []string{"in/a.json", "in/b.json"})
	require.NoError(t, err)
	jp, err := Read(merged)
	require.NoError(t, err)
	assert.Equal(t, uint64(150), jp.Meta.TotalInstructions)
	require.NotNil(t, jp.Meta.ExitCode)
	assert.Equal(t, 134, *jp.Meta.ExitCode, "the first exit code that is not 0")
	assert.Empty(t, jp.Meta.Trap)
	assert.Nil(t, jp.Meta.Throw)
	assert.Equal(t, RunInfo{Export: "_start", Provider: "p", Codec: "json"}, jp.Meta.Run)
	byInput := map[string]int64{}
	for _, s := range merged.Sample {
		byInput[s.Label[InputLabel][0]] += s.Value[ValueInstructions]
	}
	assert.Equal(t, map[string]int64{"in/a.json": 100, "in/b.json": 50}, byInput)
	assert.Empty(t, a.Sample[0].Label, "the inputs' profiles are left as they were")

	_, err = Merge([]*profile.Profile{a}, []string{"x", "y"})
	assert.Error(t, err)
	sampled := NewBuilder(Meta{Mode: ModeSample, SampleEvery: 10})
	sampled.Add([]Frame{eval, OpcodeFrame("call", 34)}, 10, 0, 0)
	s, err := sampled.Profile()
	require.NoError(t, err)
	_, err = Merge([]*profile.Profile{a, s}, []string{"x", "y"})
	assert.ErrorContains(t, err, "the profile of y: sample mode")
}

// TestMergerBatches: more inputs than a batch merge as Merge merges a
// few: every input's samples kept apart, in the inputs' order, the
// total summed; a Merger given nothing is an error.
func TestMergerBatches(t *testing.T) {
	t.Parallel()
	eval := JSFrame("<eval>", "index.js", 1, 3, 0x1000, 7)
	n := 2*mergeBatch + 3
	var m Merger
	for i := range n {
		b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: uint64(i + 1)})
		b.Add([]Frame{eval, OpcodeFrame("call", 34)}, int64(i+1), 1, 0)
		p, err := b.Profile()
		require.NoError(t, err)
		require.NoError(t, m.Add(p, fmt.Sprintf("in/%03d.json", i)))
	}
	merged, err := m.Profile()
	require.NoError(t, err)
	jp, err := Read(merged)
	require.NoError(t, err)
	assert.Equal(t, uint64(n*(n+1)/2), jp.Meta.TotalInstructions)
	require.Len(t, merged.Sample, n, "one sample an input")
	for i, s := range merged.Sample {
		assert.Equal(t, []string{fmt.Sprintf("in/%03d.json", i)}, s.Label[InputLabel], "in the inputs' order")
		assert.Equal(t, int64(i+1), s.Value[ValueInstructions])
	}
	_, err = (&Merger{}).Profile()
	assert.Error(t, err)
}
