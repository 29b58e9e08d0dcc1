package dispatch

import (
	"encoding/binary"

	"github.com/jsprof/jsprof/wasmcore"
)

// memImage is the initial content of linear memory 0 as far as active data
// segments with constant offsets describe it (wasmcore.NewMemoryImage).
// Segments closer than chunkGap bytes (and the chunkPad after the first)
// are merged into one chunk, the gap zero-filled (memory starts zeroed),
// so that tables split by a snapshotter at runs of zero bytes read back
// whole.
type memImage struct {
	wasmcore.MemoryImage
}

const chunkGap = 64

// chunkPad is the zero bytes kept after each chunk.
const chunkPad = 8

// maxImage bounds the bytes an image may hold (segments plus gap filling),
// so that a hostile module cannot make the analysis allocate without limit.
const maxImage = 256 << 20

func newMemImage(segs []wasmcore.DataSegment) memImage {
	return memImage{wasmcore.NewMemoryImage(segs, chunkGap+chunkPad, chunkPad, maxImage)}
}

// read returns n bytes at addr; known is false when some of them lie outside
// every data segment (they read as zero, as in a fresh memory, but nothing
// says the program did not change them before use).
func (m *memImage) read(addr uint64, n int) (b []byte, known bool) {
	c, ok := m.ChunkAt(addr)
	if !ok || addr-c.Base+uint64(n) > uint64(len(c.Data)) {
		return make([]byte, n), false
	}
	off := addr - c.Base
	return c.Data[off : off+uint64(n)], true
}

// readUint reads a little-endian unsigned integer of width 1, 2, 4 or 8.
func (m *memImage) readUint(addr uint64, width int) (uint64, bool) {
	b, ok := m.read(addr, width)
	switch width {
	case 1:
		return uint64(b[0]), ok
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), ok
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), ok
	case 8:
		return binary.LittleEndian.Uint64(b), ok
	}
	return 0, false
}

// cstring reads a NUL-terminated string of at most maxLen bytes at addr.
func (m *memImage) cstring(addr uint64, maxLen int) (string, bool) {
	c, ok := m.ChunkAt(addr)
	if !ok {
		return "", false
	}
	data := c.Data[addr-c.Base:]
	for i := 0; i < len(data) && i <= maxLen; i++ {
		if data[i] == 0 {
			return string(data[:i]), true
		}
	}
	return "", false
}
