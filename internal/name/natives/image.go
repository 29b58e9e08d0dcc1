package natives

import (
	"sort"

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
	chunks []chunk // sorted by base, non-overlapping
}

type chunk struct {
	base uint32
	data []byte
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
	var img image
	for _, c := range wasmcore.NewMemoryImage(m.Data, mergeGap, tailPad, 0).Chunks {
		img.chunks = append(img.chunks, chunk{base: uint32(c.Base), data: c.Data})
	}
	return img
}

// chunkIndex returns the index of the chunk holding addr, or -1.
func (img *image) chunkIndex(addr uint32) int {
	i := sort.Search(len(img.chunks), func(i int) bool {
		c := &img.chunks[i]
		return uint64(c.base)+uint64(len(c.data)) > uint64(addr)
	})
	if i < len(img.chunks) && img.chunks[i].base <= addr {
		return i
	}
	return -1
}

// mapped reports whether [addr, addr+n) lies between the first segment's
// start and the last one's end (plus tailPad): the static data. Bytes
// there that no segment gives are zero, as in a fresh memory; pointers
// outside it point at nothing the module's data describes.
func (img *image) mapped(addr uint32, n int) bool {
	if len(img.chunks) == 0 {
		return false
	}
	last := &img.chunks[len(img.chunks)-1]
	return addr >= img.chunks[0].base && uint64(addr)+uint64(n) <= uint64(last.base)+uint64(len(last.data))
}

// bytes returns the n bytes at addr (n ≤ len(buf)), or nil when they are
// not mapped. Bytes within one chunk are returned in place; others are
// assembled in buf, zero where no chunk holds them.
func (img *image) bytes(addr uint32, n int, buf []byte) []byte {
	if !img.mapped(addr, n) {
		return nil
	}
	if i := img.chunkIndex(addr); i >= 0 {
		c := &img.chunks[i]
		if off := uint64(addr - c.base); off+uint64(n) <= uint64(len(c.data)) {
			return c.data[off : off+uint64(n)]
		}
	}
	out := buf[:n]
	for k := range out {
		out[k] = 0
		if i := img.chunkIndex(addr + uint32(k)); i >= 0 {
			out[k] = img.chunks[i].data[addr+uint32(k)-img.chunks[i].base]
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
	i := img.chunkIndex(addr)
	if i < 0 {
		return "", true
	}
	c := &img.chunks[i]
	d := c.data[addr-c.base:]
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
