package wasmcore

import (
	"math"
	"unicode/utf8"
)

// reader reads the binary format from b[pos:end]. Positions are absolute
// offsets into b so that errors can name file offsets without bookkeeping.
// what names the enclosing unit ("section", "body") in end-of-input errors.
type reader struct {
	b    []byte
	pos  int
	end  int
	base int // added to positions in errors: b's offset in the file
	what string
}

func (r *reader) remaining() int { return r.end - r.pos }

func (r *reader) errAt(off int, err error) error { return &posError{off: off + r.base, err: err} }

func (r *reader) eof() error { return r.errAt(r.pos, &eofError{r.what}) }

func (r *reader) byte() (byte, error) {
	if r.pos >= r.end {
		return 0, r.eof()
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > r.end-r.pos {
		return nil, r.eof()
	}
	s := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return s, nil
}

// u32 reads an unsigned LEB128 of at most 5 bytes. Non-canonical (padded)
// encodings are accepted, as the spec allows; the unused bits of the last
// byte must be zero.
func (r *reader) u32() (uint32, error) {
	var v uint32
	start := r.pos
	for i := 0; i < 5; i++ {
		if r.pos >= r.end {
			return 0, r.eof()
		}
		c := r.b[r.pos]
		r.pos++
		if i == 4 && c&0xF0 != 0 {
			return 0, r.errAt(start, malformed("integer representation too long or too large"))
		}
		v |= uint32(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, r.errAt(start, malformed("integer representation too long"))
}

// u64 reads an unsigned LEB128 of at most 10 bytes.
func (r *reader) u64() (uint64, error) {
	var v uint64
	start := r.pos
	for i := 0; i < 10; i++ {
		if r.pos >= r.end {
			return 0, r.eof()
		}
		c := r.b[r.pos]
		r.pos++
		if i == 9 && c&0xFE != 0 {
			return 0, r.errAt(start, malformed("integer representation too long or too large"))
		}
		v |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, r.errAt(start, malformed("integer representation too long"))
}

// sN reads a signed LEB128 of at most bits bits (32, 33 or 64).
func (r *reader) sN(bits int) (int64, error) {
	var v int64
	start := r.pos
	maxBytes := (bits + 6) / 7
	var shift uint
	for i := 0; i < maxBytes; i++ {
		if r.pos >= r.end {
			return 0, r.eof()
		}
		c := r.b[r.pos]
		r.pos++
		v |= int64(c&0x7F) << shift
		shift += 7
		if c&0x80 == 0 {
			if i == maxBytes-1 {
				// The unused bits of the last byte must be a sign
				// extension of the value's top bit.
				used := bits - 7*(maxBytes-1) // value bits in this byte
				rest := (c & 0x7F) >> (used - 1)
				if rest != 0 && rest != 0x7F>>(used-1) {
					return 0, r.errAt(start, malformed("integer too large"))
				}
			}
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, nil
		}
	}
	return 0, r.errAt(start, malformed("integer representation too long"))
}

func (r *reader) s32() (int32, error) {
	v, err := r.sN(32)
	return int32(v), err
}

func (r *reader) s64() (int64, error) { return r.sN(64) }

func (r *reader) u32le() (uint32, error) {
	b, err := r.bytes(4)
	if err != nil {
		return 0, err
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, nil
}

func (r *reader) u64le() (uint64, error) {
	b, err := r.bytes(8)
	if err != nil {
		return 0, err
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// count reads a vector length and checks it against the bytes left: each
// item takes at least minSize bytes, so a count that the input cannot hold
// is rejected before anything is allocated for it.
func (r *reader) count(minSize int) (int, error) {
	start := r.pos
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if minSize > 0 && uint64(n)*uint64(minSize) > uint64(r.remaining()) {
		return 0, r.errAt(start, malformed("count %d too large for the %d bytes left", n, r.remaining()))
	}
	return int(n), nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	start := r.pos
	b, err := r.bytes(int(min(n, math.MaxInt32)))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", r.errAt(start, malformed("name is not valid UTF-8"))
	}
	return string(b), nil
}

func (r *reader) valType() (ValType, error) {
	start := r.pos
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	if !validValType(ValType(c)) {
		return 0, r.errAt(start, malformed("invalid value type 0x%02x", c))
	}
	return ValType(c), nil
}

func (r *reader) refType() (ValType, error) {
	start := r.pos
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	if !validRefType(ValType(c)) {
		return 0, r.errAt(start, malformed("invalid reference type 0x%02x", c))
	}
	return ValType(c), nil
}

// Encoding helpers. They append canonical (shortest) encodings.

func appendU32(b []byte, v uint32) []byte { return appendU64(b, uint64(v)) }

func appendU64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// appendPaddedU32 appends v as an unsigned LEB128 of exactly width bytes
// (1..5); ok is false when v does not fit.
func appendPaddedU32(b []byte, v uint32, width int) ([]byte, bool) {
	if width < 1 || width > 5 || (width < 5 && uint64(v) >= 1<<(7*width)) {
		return b, false
	}
	for i := 0; i < width-1; i++ {
		b = append(b, byte(v&0x7F)|0x80)
		v >>= 7
	}
	return append(b, byte(v)), true
}

func sizeU32(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendName(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}
