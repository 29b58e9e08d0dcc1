package wasmcore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/wasmcore"
)

func active(off int32, init string) wasmcore.DataSegment {
	return wasmcore.DataSegment{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(off), Init: []byte(init)}
}

func TestNewMemoryImage(t *testing.T) {
	t.Parallel()
	type chunk struct {
		base uint64
		data string
	}
	tests := []struct {
		name            string
		segs            []wasmcore.DataSegment
		gap, pad, limit uint64
		want            []chunk
	}{
		{"none", nil, 8, 0, 0, nil},
		{"one", []wasmcore.DataSegment{active(4, "ab")}, 8, 0, 0, []chunk{{4, "ab"}}},
		{"padded", []wasmcore.DataSegment{active(4, "ab")}, 8, 3, 0, []chunk{{4, "ab\x00\x00\x00"}}},
		{"joined within the gap", []wasmcore.DataSegment{active(0, "a"), active(4, "b")}, 3, 0, 0, []chunk{{0, "a\x00\x00\x00b"}}},
		{"apart past the gap", []wasmcore.DataSegment{active(0, "a"), active(5, "b")}, 3, 0, 0, []chunk{{0, "a"}, {5, "b"}}},
		{"padding stops at the next chunk", []wasmcore.DataSegment{active(0, "a"), active(5, "b")}, 3, 10, 0, []chunk{{0, "a\x00\x00\x00\x00"}, {5, "b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"}}},
		{"later segments win", []wasmcore.DataSegment{active(0, "abcd"), active(1, "XY")}, 0, 0, 0, []chunk{{0, "aXYd"}}},
		{"sorted by address", []wasmcore.DataSegment{active(100, "z"), active(0, "a")}, 0, 0, 0, []chunk{{0, "a"}, {100, "z"}}},
		{"limit leaves later chunks out", []wasmcore.DataSegment{active(0, "abcd"), active(100, "efgh")}, 0, 0, 6, []chunk{{0, "abcd"}}},
		{"near the top of memory", []wasmcore.DataSegment{active(-2, "ab")}, 0, 8, 0, []chunk{{1<<32 - 2, "ab"}}},
		{"past 4 GiB left out", []wasmcore.DataSegment{active(-1, "ab")}, 0, 0, 0, nil},
		{"passive left out", []wasmcore.DataSegment{{Mode: wasmcore.DataPassive, Init: []byte("p")}}, 0, 0, 0, nil},
		{"non-constant offset left out", []wasmcore.DataSegment{{Mode: wasmcore.DataActive, Offset: wasmcore.ConstExpr{Code: []byte{0x23, 0, 0x0b}}, Init: []byte("g")}}, 0, 0, 0, nil},
		{"other memory left out", []wasmcore.DataSegment{{Mode: wasmcore.DataActive, Memory: 1, Offset: wasmcore.ConstI32(0), Init: []byte("m")}}, 0, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []chunk
			for _, c := range wasmcore.NewMemoryImage(tt.segs, tt.gap, tt.pad, tt.limit).Chunks {
				got = append(got, chunk{c.Base, string(c.Data)})
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMemoryImageChunkAt(t *testing.T) {
	t.Parallel()
	img := wasmcore.NewMemoryImage([]wasmcore.DataSegment{active(10, "abc"), active(100, "xyz")}, 0, 0, 0)
	tests := []struct {
		addr uint64
		base uint64 // of the chunk found
		ok   bool
	}{
		{9, 0, false}, {10, 10, true}, {12, 10, true}, {13, 0, false},
		{99, 0, false}, {100, 100, true}, {102, 100, true}, {103, 0, false}, {1 << 40, 0, false},
	}
	for _, tt := range tests {
		c, ok := img.ChunkAt(tt.addr)
		assert.Equal(t, tt.ok, ok, "address %d", tt.addr)
		assert.Equal(t, tt.base, c.Base, "address %d", tt.addr)
	}
	_, ok := wasmcore.MemoryImage{}.ChunkAt(0)
	assert.False(t, ok, "an empty image holds nothing")
}
