package jsprofile

import (
	"bytes"
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
	build := func(total int64, code int, throw *Throw, export string) *profile.Profile {
		b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: uint64(total), ExitCode: &code, Trap: map[bool]string{true: "unreachable"}[throw != nil],
			Throw: throw, Run: RunInfo{Export: export, Provider: "p", Codec: "json", InputBytes: 10, OutputBytes: 20}})
		b.Add([]Frame{eval, OpcodeFrame("call", 34)}, total, 1, 0)
		p, err := b.Profile()
		require.NoError(t, err)
		return p
	}
	a, b := build(100, 0, nil, "_start"), build(50, 134, &Throw{Message: "Error: x", Stack: []ThrowFrame{}}, "_start")
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

	// Inputs run through their own exports (a function's targets): the
	// merged profile names each, never only the first's.
	two, err := Merge([]*profile.Profile{build(1, 0, nil, "run-a"), build(2, 0, nil, "run-b"), build(3, 0, nil, "run-a")}, []string{"a", "b", "c"})
	require.NoError(t, err)
	jp2, err := Read(two)
	require.NoError(t, err)
	assert.Equal(t, "run-a, run-b", jp2.Meta.Run.Export)
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

// TestMergerManyInputs: many inputs merge as Merge merges a few: every
// input's samples kept apart, in the inputs' order, the total summed; a
// Merger given nothing is an error.
func TestMergerManyInputs(t *testing.T) {
	t.Parallel()
	eval := JSFrame("<eval>", "index.js", 1, 3, 0x1000, 7)
	n := 131
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

// mergeInputs builds the profiles of a few inputs whose stacks overlap
// (one each input has, one two share, one of its own) and one zero sample.
func mergeInputs(t *testing.T) ([]*profile.Profile, []string) {
	t.Helper()
	eval := JSFrame("<eval>", "index.js", 1, 3, 0x1000, 7)
	f := JSFrame("f", "index.js", 2, 4, 0x1100, 9)
	var ps []*profile.Profile
	var inputs []string
	for i := range 5 {
		b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: uint64(100 + i + i%2)})
		b.Add([]Frame{eval, OpcodeFrame("call", 34)}, int64(10+i), 1, 0)
		b.Add([]Frame{eval, f, OpcodeFrame("add", 1)}, int64(i%2), 0, 0) // zero for even inputs
		b.Add([]Frame{eval, JSFrame(fmt.Sprintf("g%d", i), "index.js", 5, 6, uint32(0x1200+i), 3), OpcodeFrame("get_loc", 2)}, 90, 3, 1)
		p, err := b.Profile()
		require.NoError(t, err)
		ps, inputs = append(ps, p), append(inputs, fmt.Sprintf("in/%d.json", i))
	}
	return ps, inputs
}

// samplesByInput is a profile's samples as text: input, stack (function
// and line, leaf first) and values, in order.
func samplesByInput(p *profile.Profile) []string {
	var out []string
	for _, s := range p.Sample {
		line := fmt.Sprint(s.Label[InputLabel])
		for _, l := range s.Location {
			for _, ln := range l.Line {
				line += fmt.Sprintf(" %s:%d", ln.Function.Name, ln.Line)
			}
		}
		out = append(out, fmt.Sprint(line, " ", s.Value))
	}
	return out
}

// TestMergerAsPprofMerges: the Merger's profile has the samples pprof's
// own merge makes of the inputs' profiles, each labelled with its input
// (zero samples left out), and each distinct stack once: samples of one
// stack share their locations, an input's samples their label map.
func TestMergerAsPprofMerges(t *testing.T) {
	t.Parallel()
	ps, inputs := mergeInputs(t)
	var labelled []*profile.Profile
	for i, p := range ps {
		c := p.Copy()
		for _, s := range c.Sample {
			s.Label = map[string][]string{InputLabel: {inputs[i]}}
		}
		labelled = append(labelled, c)
	}
	want, err := profile.Merge(labelled)
	require.NoError(t, err)
	got, err := Merge(ps, inputs)
	require.NoError(t, err)
	assert.ElementsMatch(t, samplesByInput(want), samplesByInput(got))
	assert.Len(t, got.Sample, 5*2+2, "two samples an input, and the odd inputs' third")
	assert.Len(t, got.Location, len(want.Location))
	assert.Len(t, got.Function, len(want.Function))
	require.NoError(t, got.CheckValid())

	first, second := got.Sample[0], got.Sample[2] // the first stack of inputs 0 and 1
	require.Equal(t, []string{"in/1.json"}, second.Label[InputLabel])
	assert.Same(t, &first.Location[0], &second.Location[0], "one stack, one slice")
	assert.NotSame(t, &got.Sample[1].Location[0], &got.Sample[4].Location[0], "the control: g0's stack is not g1's")
	assert.Equal(t, fmt.Sprintf("%p", got.Sample[2].Label), fmt.Sprintf("%p", got.Sample[4].Label), "input 1's samples share a label map")
	assert.NotEqual(t, fmt.Sprintf("%p", first.Label), fmt.Sprintf("%p", second.Label), "the control: inputs 0 and 1 do not")
}

// TestMergerEnded: runs that end in any order merge as in the inputs'
// order; an input without a profile is left out of Inputs; one whose
// profile does not read is Profile's error, naming it; none with a
// profile is ErrNothingMerged.
func TestMergerEnded(t *testing.T) {
	t.Parallel()
	ps, inputs := mergeInputs(t)
	raw := make([][]byte, len(ps))
	for i, p := range ps {
		var b bytes.Buffer
		require.NoError(t, Write(&b, p))
		raw[i] = b.Bytes()
	}
	raw[2] = nil // no profile
	want, err := Merge([]*profile.Profile{ps[0], ps[1], ps[3], ps[4]}, []string{inputs[0], inputs[1], inputs[3], inputs[4]})
	require.NoError(t, err)

	var m Merger
	for _, i := range []int{3, 1, 4, 0, 2} {
		m.Ended(i, raw[i], inputs)
	}
	got, err := m.Profile()
	require.NoError(t, err)
	assert.Equal(t, samplesByInput(want), samplesByInput(got), "in the inputs' order")
	assert.Equal(t, []string{inputs[0], inputs[1], inputs[3], inputs[4]}, m.Inputs())

	var bad Merger
	for i := range raw {
		bad.Ended(i, map[bool][]byte{true: []byte("not a profile")}[i == 1], inputs)
	}
	_, err = bad.Profile()
	assert.ErrorContains(t, err, "the profile of in/1.json")
	_, err = (&Merger{}).Profile()
	assert.ErrorIs(t, err, ErrNothingMerged)
}
