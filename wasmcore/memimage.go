package wasmcore

import "sort"

// MemoryImage is the initial content of linear memory 0 as the module's
// active data segments with constant offsets give it, before any code
// runs: the one reading of it that dispatch, its natives and the bytecode
// reader share. Segments closer than a gap are joined into one chunk, the
// gap zero-filled, as memory starts zeroed (Wizer snapshots split data at
// runs of zero bytes, often inside a record); later segments overwrite
// earlier ones, as instantiation does. A memory.init of a passive
// segment, or the code itself, may change it at run time.
type MemoryImage struct {
	Chunks []MemoryChunk // sorted by base, non-overlapping
}

// MemoryChunk is a run of adjacent bytes of the image.
type MemoryChunk struct {
	Base uint64
	Data []byte
}

// NewMemoryImage builds the image of segs: a segment starting at most gap
// bytes after the end of the chunk before it joins that chunk; pad zero
// bytes (memory beyond a segment is zero too) are kept after each chunk,
// up to the next; limit, when not 0, bounds the bytes the chunks may hold
// (later chunks are left out), so that a hostile module cannot make the
// image allocate without limit. A segment past 4 GiB, which would trap at
// instantiation, is left out.
func NewMemoryImage(segs []DataSegment, gap, pad, limit uint64) MemoryImage {
	type seg struct {
		lo, hi uint64
		init   []byte
		order  int
	}
	var ss []seg
	for i, d := range segs {
		if d.Mode != DataActive || d.Memory != 0 || len(d.Init) == 0 {
			continue
		}
		off, ok := d.Offset.I32()
		if !ok {
			continue
		}
		lo := uint64(uint32(off))
		hi := lo + uint64(len(d.Init))
		if hi > 1<<32 {
			continue
		}
		ss = append(ss, seg{lo, hi, d.Init, i})
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].lo < ss[b].lo })
	type span struct{ lo, hi uint64 }
	var spans []span
	for _, s := range ss {
		if n := len(spans); n > 0 && s.lo <= spans[n-1].hi+gap {
			spans[n-1].hi = max(spans[n-1].hi, s.hi)
		} else {
			spans = append(spans, span{s.lo, s.hi})
		}
	}
	var img MemoryImage
	var size uint64
	for i, sp := range spans {
		hi := min(sp.hi+pad, 1<<32)
		if i+1 < len(spans) {
			hi = min(hi, spans[i+1].lo)
		}
		if size += hi - sp.lo; limit > 0 && size > limit {
			break
		}
		img.Chunks = append(img.Chunks, MemoryChunk{Base: sp.lo, Data: make([]byte, hi-sp.lo)})
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].order < ss[b].order })
	for _, s := range ss {
		if c, ok := img.ChunkAt(s.lo); ok {
			copy(c.Data[s.lo-c.Base:], s.init)
		}
	}
	return img
}

// ChunkAt returns the chunk holding addr, the one lookup every reader of
// an image makes.
func (img MemoryImage) ChunkAt(addr uint64) (MemoryChunk, bool) {
	i := sort.Search(len(img.Chunks), func(i int) bool {
		c := img.Chunks[i]
		return c.Base+uint64(len(c.Data)) > addr
	})
	if i < len(img.Chunks) && img.Chunks[i].Base <= addr {
		return img.Chunks[i], true
	}
	return MemoryChunk{}, false
}
