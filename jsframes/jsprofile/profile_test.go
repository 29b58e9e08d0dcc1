package jsprofile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfileBuilderMergesAndValidates(t *testing.T) {
	b := NewBuilder(Meta{Mode: "exact", TotalInstructions: 100, Module: "index.wasm",
		Engine: EngineInfo{Family: "quickjs-ng", Releases: []string{"v0.10.0"}, OpcodeNamesSource: "table"}})
	fib := func(line int) Frame { return JSFrame("fib", "index.js", 1, line, 0x1000, uint32(line)) }
	add := OpcodeFrame("add", 37)
	b.Add([]Frame{fib(2), add}, 10, 1, 0)
	b.Add([]Frame{fib(2), add}, 15, 2, 0) // same stack: merged
	b.Add([]Frame{fib(3), add}, 20, 1, 0) // same function, other line: one function, two locations
	b.Add([]Frame{fib(3)}, 0, 0, 0)       // all zero: dropped
	b.Add([]Frame{BucketFrame("(outside JS)")}, 55, 0, 0)
	p, err := b.Profile()
	require.NoError(t, err)

	require.Len(t, p.Sample, 3)
	assert.Equal(t, []int64{25, 3, 0}, p.Sample[0].Value)
	assert.Len(t, p.Function, 3, "fib, op:add, (outside JS)")
	assert.Len(t, p.Location, 4)
	assert.Equal(t, "op:add", p.Sample[0].Location[0].Line[0].Function.Name, "leaf first")
	assert.Equal(t, "js:fib@0x1000", p.Sample[0].Location[1].Line[0].Function.SystemName)
	assert.Equal(t, int64(2), p.Sample[0].Location[1].Line[0].Line)
	assert.Equal(t, "bucket:outside", p.Sample[2].Location[0].Line[0].Function.SystemName)
	assert.Contains(t, p.Comments, "jsprof.engine.releases=v0.10.0")
	assert.Equal(t, "wasm_instructions", p.DefaultSampleType)

	var out bytes.Buffer
	require.NoError(t, WriteCollapsed(&out, p, ValueInstructions))
	assert.Equal(t, "(outside JS) 55\nfib (index.js:2);op:add 25\nfib (index.js:3);op:add 20\n", out.String())
}

// TestNativeFrames: a native's frame keeps its table index and magic in
// its system name, so that natives of one name stay apart, and reads back
// as KindNative.
func TestNativeFrames(t *testing.T) {
	tests := []struct {
		name       string
		table      uint32
		magic      int16
		systemName string
	}{
		{"JSON.parse", 412, 0, "native:JSON.parse@table[412]"},
		{"Math.max", 77, 1, "native:Math.max@table[77]/magic=1"},
		{"native@table[257]", 257, 0, "native:native@table[257]@table[257]"},
	}
	b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: 60})
	eval := JSFrame("<eval>", "index.js", 1, 1, 0x1000, 0)
	for i, tt := range tests {
		f := NativeFrame(tt.name, tt.table, tt.magic)
		assert.Equal(t, Frame{Kind: KindNative, Name: tt.name, SystemName: tt.systemName}, f)
		b.Add([]Frame{eval, OpcodeFrame("call_method", 36), f}, int64(10*(i+1)), 0, 1)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	jp, err := Read(p)
	require.NoError(t, err)
	var kinds []FrameKind
	for _, s := range jp.Sample {
		kinds = append(kinds, jp.Stack(s, nil)[0].Kind)
	}
	assert.Equal(t, []FrameKind{KindNative, KindNative, KindNative}, kinds)
}
