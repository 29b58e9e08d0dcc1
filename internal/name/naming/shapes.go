package naming

import (
	"encoding/binary"

	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// A runtime buffer matches a serialized function when their bytes are
// equal but for atom operands (match). Trying every function of the same
// length made naming quadratic: a program of 50,000 small functions, most
// of one length, took 36 s after a 2 s run. shapeIndex finds the few
// functions a buffer can match from a digest of the bytes that must be
// equal.
//
// Functions are grouped by their shape: code length and the offsets of
// their atom operands. Within a group each is filed under the digest of its
// code with those operands left out; a buffer is looked up in every group
// of its length, digested with that group's offsets. Groups per length are
// few (functions of one length mostly have their atoms in the same
// places), so a lookup costs a few digests of the buffer.
type shapeIndex struct {
	byLen map[int][]*shapeGroup
	byKey map[string]*shapeGroup // by length and offsets, to build it
}

// shapeGroup is the functions of one shape.
type shapeGroup struct {
	offsets []uint32 // atom operands, 4 bytes each
	byHash  map[uint64][]*bytecode.Function
}

func newShapeIndex() *shapeIndex {
	return &shapeIndex{byLen: map[int][]*shapeGroup{}, byKey: map[string]*shapeGroup{}}
}

func (x *shapeIndex) add(f *bytecode.Function) {
	key := make([]byte, 0, 8+4*len(f.AtomOps))
	key = binary.LittleEndian.AppendUint64(key, uint64(len(f.Code)))
	offsets := make([]uint32, len(f.AtomOps))
	for i, op := range f.AtomOps {
		offsets[i] = op.Offset
		key = binary.LittleEndian.AppendUint32(key, op.Offset)
	}
	g := x.byKey[string(key)]
	if g == nil {
		g = &shapeGroup{offsets: offsets, byHash: map[uint64][]*bytecode.Function{}}
		x.byKey[string(key)] = g
		x.byLen[len(f.Code)] = append(x.byLen[len(f.Code)], g)
	}
	h := maskedDigest(f.Code, g.offsets)
	g.byHash[h] = append(g.byHash[h], f)
}

// lookup returns the functions code may match: those whose bytes outside
// their atom operands digest as code's do.
func (x *shapeIndex) lookup(code []byte) []*bytecode.Function {
	var out []*bytecode.Function
	for _, g := range x.byLen[len(code)] {
		out = append(out, g.byHash[maskedDigest(code, g.offsets)]...)
	}
	return out
}

// maskedDigest is the FNV-1a digest of code without the 4-byte operands at
// offsets (ascending, as the parser lists them; an operand past the end
// ends the digest there, as match would fail on it anyway).
func maskedDigest(code []byte, offsets []uint32) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	pos := 0
	for _, o := range offsets {
		end := min(int(o), len(code))
		if end < pos {
			continue
		}
		for _, b := range code[pos:end] {
			h = (h ^ uint64(b)) * prime
		}
		pos = min(end+4, len(code))
	}
	for _, b := range code[pos:] {
		h = (h ^ uint64(b)) * prime
	}
	return h
}
