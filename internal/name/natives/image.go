package natives

import (
	"github.com/jsprof/jsprof/wasmcore"
)

// image is the initial content of linear memory 0 as the active data
// segments with constant offsets give it (wasmcore.NewMemoryImage): what the engine's read-only data
// (the JSCFunctionListEntry arrays, their names, the strings) looks like
// before any code runs. Segments closer than mergeGap bytes are joined into
// one chunk with the gap zero-filled, as memory starts zeroed: Wizer
// snapshots split data at runs of zeros, often inside an entry. (A
// memory.init of a passive segment, or the code itself, may overwrite
// some of it at run time; read-only data is not written.)
type image struct {
	wasmcore.MemoryImage
}

// mergeGap bounds the zero bytes filled between two segments; it also
// bounds what the image can allocate beyond the segments' own bytes
// (mergeGap per segment), so a hostile module cannot make it large.
const mergeGap = 64

// tailPad zero bytes are kept after each chunk, memory beyond the last
// segment being zero too: an entry whose last bytes are zeros (a string
// property's union) reads back whole where a snapshot dropped them.
const tailPad = entrySize

func newImage(m *wasmcore.Module) image {
	return image{wasmcore.NewMemoryImage(m.Data, mergeGap, tailPad, 0)}
}

// mapped reports whether [addr, addr+n) lies between the first segment's
// start and the last one's end (plus tailPad): the static data. Bytes
// there that no segment gives are zero, as in a fresh memory; pointers
// outside it point at nothing the module's data describes.
func (img *image) mapped(addr uint32, n int) bool {
	if len(img.Chunks) == 0 {
		return false
	}
	last := &img.Chunks[len(img.Chunks)-1]
	return uint64(addr) >= img.Chunks[0].Base && uint64(addr)+uint64(n) <= last.Base+uint64(len(last.Data))
}

// bytes returns the n bytes at addr (n ≤ len(buf)), or nil when they are
// not mapped. Bytes within one chunk are returned in place; others are
// assembled in buf, zero where no chunk holds them.
func (img *image) bytes(addr uint32, n int, buf []byte) []byte {
	if !img.mapped(addr, n) {
		return nil
	}
	if c, ok := img.ChunkAt(uint64(addr)); ok {
		if off := uint64(addr) - c.Base; off+uint64(n) <= uint64(len(c.Data)) {
			return c.Data[off : off+uint64(n)]
		}
	}
	out := buf[:n]
	for k := range out {
		out[k] = 0
		a := uint64(addr) + uint64(k)
		if c, ok := img.ChunkAt(a); ok {
			out[k] = c.Data[a-c.Base]
		}
	}
	return out
}

// cstring returns the NUL-terminated string at addr, if it is mapped, ends
// within maxLen bytes and holds printable ASCII only. A string starting
// where no segment gives bytes is empty (memory there is zero).
func (img *image) cstring(addr uint32, maxLen int) (string, bool) {
	if !img.mapped(addr, 1) {
		return "", false
	}
	c, ok := img.ChunkAt(uint64(addr))
	if !ok {
		return "", true
	}
	d := c.Data[uint64(addr)-c.Base:]
	for j := 0; j <= maxLen; j++ {
		if j == len(d) {
			// The chunk ends: the bytes after it are zero.
			return string(d), true
		}
		switch b := d[j]; {
		case b == 0:
			return string(d[:j]), true
		case b < 0x20 || b > 0x7e:
			return "", false
		}
	}
	return "", false
}
