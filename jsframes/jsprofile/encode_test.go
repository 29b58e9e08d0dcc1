package jsprofile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyField is a profile that sets every field pprof encodes, labels and
// repeated fields of one, two and more values included (pprof packs only
// the longer ones).
func everyField() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, Offset: 0x10, File: "index.wasm", BuildID: "abc",
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	f1 := &profile.Function{ID: 1, Name: "fib", SystemName: "js:fib@0x1000", Filename: "index.js", StartLine: 3}
	f2 := &profile.Function{ID: 2, Name: "op:add", SystemName: "op:add"}
	f3 := &profile.Function{ID: 300, Name: "(outside JS)"}
	l1 := &profile.Location{ID: 1, Mapping: m, Address: 0x1234, Line: []profile.Line{{Function: f1, Line: 4, Column: 7}}}
	l2 := &profile.Location{ID: 2, Line: []profile.Line{{Function: f2}, {Function: f1, Line: 5}}, IsFolded: true}
	l3 := &profile.Location{ID: 1 << 20, Line: []profile.Line{{Function: f3}}}
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "wasm_instructions", Unit: "count"}, {Type: "opcode_executions", Unit: "count"}, {Type: "calls", Unit: "count"}},
		DefaultSampleType: "wasm_instructions",
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l2, l1}, Value: []int64{25, 3, 0}},
			{Location: []*profile.Location{l3}, Value: []int64{1 << 40, 0, -1}},
			{Location: []*profile.Location{l2, l1, l3}, Value: []int64{7, 1, 1},
				Label:    map[string][]string{"phase": {"JS program"}, "engine": {"quickjs", "ng"}},
				NumLabel: map[string][]int64{"bytes": {10, 20}, "pc": {4}}, NumUnit: map[string][]string{"bytes": {"bytes", "bytes"}}},
		},
		Mapping:       []*profile.Mapping{m},
		Location:      []*profile.Location{l1, l2, l3},
		Function:      []*profile.Function{f1, f2, f3},
		Comments:      []string{"jsprof.mode=exact", "jsprof.engine.releases=v0.10.0"},
		DocURL:        "https://example.com/docs",
		DropFrames:    "runtime\\..*",
		KeepFrames:    "main",
		TimeNanos:     1_700_000_000_000_000_000,
		DurationNanos: 250_000_000,
		PeriodType:    &profile.ValueType{Type: "wasm_instructions", Unit: "count"},
		Period:        1_000_000,
	}
}

// TestEncodeMatchesPprof: the encoder writes, byte for byte, what pprof's
// own writes, for hand-made profiles of every field and for real jsprof
// profiles of both modes.
func TestEncodeMatchesPprof(t *testing.T) {
	profiles := map[string]*profile.Profile{
		"every field": everyField(),
		"empty":       {},
	}
	b := NewBuilder(Meta{Mode: "exact", TotalInstructions: 65, Module: "index.wasm"})
	b.Add([]Frame{JSFrame("fib", "index.js", 1, 2, 0x1000, 2), OpcodeFrame("add", 37)}, 10, 1, 0)
	b.Add([]Frame{BucketFrame("(outside JS)")}, 55, 0, 0)
	built, err := b.Profile()
	require.NoError(t, err)
	profiles["built"] = built
	real, err := filepath.Glob("../../internal/view/reporttest/testdata/real/*.pb.gz")
	require.NoError(t, err)
	require.NotEmpty(t, real)
	for _, path := range real {
		f, err := os.Open(path)
		require.NoError(t, err)
		p, err := profile.Parse(f)
		f.Close()
		require.NoError(t, err, path)
		profiles[filepath.Base(path)] = p
	}
	for name, p := range profiles {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			require.NoError(t, encodeProfile(&got, p))
			require.NoError(t, p.WriteUncompressed(&want))
			assert.Equal(t, want.Len(), got.Len())
			assert.True(t, bytes.Equal(want.Bytes(), got.Bytes()), "the encodings differ")
			back, err := profile.ParseData(got.Bytes())
			require.NoError(t, err)
			assert.Len(t, back.Sample, len(p.Sample))
		})
	}
}

// TestEncodeStreams: a profile larger than a chunk is written in chunks,
// and a failing writer's error is returned.
func TestEncodeStreams(t *testing.T) {
	p := everyField()
	for i := range 20_000 {
		p.Sample = append(p.Sample, &profile.Sample{Location: p.Sample[0].Location, Value: []int64{int64(i), 1, 0}})
	}
	w := &countingWriter{}
	require.NoError(t, encodeProfile(w, p))
	var want bytes.Buffer
	require.NoError(t, p.WriteUncompressed(&want))
	assert.Equal(t, want.Len(), w.n)
	assert.Greater(t, w.writes, 2, "written in chunks")
	for _, w := range w.sizes[:len(w.sizes)-1] {
		assert.GreaterOrEqual(t, w, flushAt)
	}

	broken := errors.New("disk full")
	assert.ErrorIs(t, encodeProfile(failingWriter{broken}, p), broken)
	assert.ErrorIs(t, Write(failingWriter{broken}, p), broken)
}

// TestWriteReadsBack: Write's gzip reads back as the same profile.
func TestWriteReadsBack(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, everyField()))
	zr, err := gzip.NewReader(&buf)
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, everyField().WriteUncompressed(&want))
	assert.True(t, bytes.Equal(want.Bytes(), raw))
}

type countingWriter struct {
	n, writes int
	sizes     []int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	w.writes++
	w.sizes = append(w.sizes, len(b))
	return len(b), nil
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// BenchmarkEncode compares the encoder with pprof's on a sampled
// profile's shape: 2,000 samples of 36 frames.
func BenchmarkEncode(b *testing.B) {
	p := everyField()
	locs := make([]*profile.Location, 36)
	for i := range locs {
		locs[i] = p.Location[i%len(p.Location)]
	}
	for i := range 2000 {
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{int64(i), 1, 0}})
	}
	b.Run("jsprof", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, encodeProfile(io.Discard, p))
		}
	})
	b.Run("pprof", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, p.WriteUncompressed(io.Discard))
		}
	})
}
