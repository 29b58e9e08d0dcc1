package shopify

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// appendMessagePack encodes v the way function-runner does since v9.2.1
// (its MessagePackJsonValue): a number whose literal is an i64 becomes the
// smallest MessagePack integer holding it (positive values as unsigned, as
// rmp's write_sint does), else a u64 likewise, else a float64 (always the
// 9-byte form), and a number neither can hold finitely is sent as its
// literal string. Strings use the str family, maps keep key order.
func appendMessagePack(enc *msgpack.Encoder, v value) error {
	switch v.kind {
	case kindNull:
		return enc.EncodeNil()
	case kindBool:
		return enc.EncodeBool(v.b)
	case kindNumber:
		if n, err := strconv.ParseInt(v.s, 10, 64); err == nil {
			return enc.EncodeInt(n)
		}
		if n, err := strconv.ParseUint(v.s, 10, 64); err == nil {
			return enc.EncodeUint(n)
		}
		if f, err := strconv.ParseFloat(v.s, 64); err == nil && !math.IsInf(f, 0) {
			return enc.EncodeFloat64(f)
		}
		return enc.EncodeString(v.s)
	case kindString:
		return enc.EncodeString(v.s)
	case kindArray:
		if err := enc.EncodeArrayLen(len(v.items)); err != nil {
			return err
		}
		for _, item := range v.items {
			if err := appendMessagePack(enc, item); err != nil {
				return err
			}
		}
		return nil
	default:
		if err := enc.EncodeMapLen(len(v.keys)); err != nil {
			return err
		}
		for i, key := range v.keys {
			if err := enc.EncodeString(key); err != nil {
				return err
			}
			if err := appendMessagePack(enc, v.items[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// parseMessagePack decodes one MessagePack value into what serde_json would
// make of it through rmp_serde, which is how function-runner shows a
// function's output: integers stay integers, floats (float32 widened) are
// written as serde_json writes them, NaN and infinities become null, and
// what JSON cannot hold (binary, extensions, non-string map keys, strings
// that are not UTF-8) is an error. Bytes after the value are a
// *TrailingBytes error, with the value.
func parseMessagePack(b []byte) (value, error) {
	r := bytes.NewReader(b)
	// A bytes.Reader is an io.ByteScanner, so the decoder reads it directly
	// without buffering ahead: r.Len() is exactly what is left, which bounds
	// the lengths the data claims before anything is allocated for them.
	dec := msgpack.NewDecoder(r)
	p := mpParser{dec: dec, r: r, size: len(b)}
	v, err := p.value(0)
	if err != nil {
		return value{}, err
	}
	if r.Len() > 0 {
		return v, &TrailingBytes{N: r.Len(), Offset: p.offset()}
	}
	return v, nil
}

// TrailingBytes is the error of a MessagePack output with bytes after its
// value. function-runner decodes such an output all the same (rmp_serde's
// from_slice reads one value and ignores the rest) and shows the value:
// JSON is it, converted.
type TrailingBytes struct {
	N, Offset int
	JSON      []byte
}

func (e *TrailingBytes) Error() string {
	return fmt.Sprintf("%d bytes after the MessagePack value (at offset %d)", e.N, e.Offset)
}

type mpParser struct {
	dec  *msgpack.Decoder
	r    *bytes.Reader
	size int
}

func (p *mpParser) offset() int { return p.size - p.r.Len() }

func (p *mpParser) value(depth int) (value, error) {
	at := p.offset()
	c, err := p.dec.PeekCode()
	if err != nil {
		return value{}, fmt.Errorf("truncated MessagePack at offset %d", at)
	}
	fail := func(err error) (value, error) {
		return value{}, fmt.Errorf("MessagePack at offset %d: %w", at, err)
	}
	switch {
	case c == msgpcode.Nil:
		return value{kind: kindNull}, p.dec.DecodeNil()
	case c == msgpcode.False || c == msgpcode.True:
		b, err := p.dec.DecodeBool()
		return value{kind: kindBool, b: b}, err
	case msgpcode.IsFixedNum(c) || c == msgpcode.Int8 || c == msgpcode.Int16 || c == msgpcode.Int32 || c == msgpcode.Int64:
		n, err := p.dec.DecodeInt64()
		if err != nil {
			return fail(err)
		}
		return value{kind: kindNumber, s: strconv.FormatInt(n, 10)}, nil
	case c == msgpcode.Uint8 || c == msgpcode.Uint16 || c == msgpcode.Uint32 || c == msgpcode.Uint64:
		n, err := p.dec.DecodeUint64()
		if err != nil {
			return fail(err)
		}
		return value{kind: kindNumber, s: strconv.FormatUint(n, 10)}, nil
	case c == msgpcode.Float || c == msgpcode.Double:
		f, err := p.dec.DecodeFloat64() // widens a float32 exactly, as serde does
		if err != nil {
			return fail(err)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return value{kind: kindNull}, nil
		}
		return value{kind: kindNumber, s: formatFloat(f)}, nil
	case msgpcode.IsString(c):
		s, err := p.str()
		if err != nil {
			return fail(err)
		}
		return value{kind: kindString, s: s}, nil
	case msgpcode.IsBin(c):
		return fail(fmt.Errorf("binary data (code %#x), which JSON cannot hold", c))
	case msgpcode.IsExt(c):
		return fail(fmt.Errorf("an extension type (code %#x), which JSON cannot hold", c))
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		if depth >= maxDepth {
			return fail(errDepth)
		}
		n, err := p.dec.DecodeArrayLen()
		if err != nil {
			return fail(err)
		}
		if n > p.r.Len() { // every element takes at least one byte
			return fail(fmt.Errorf("array of %d elements in %d remaining bytes", n, p.r.Len()))
		}
		v := value{kind: kindArray, items: make([]value, 0, n)}
		for i := 0; i < n; i++ {
			item, err := p.value(depth + 1)
			if err != nil {
				return value{}, err
			}
			v.items = append(v.items, item)
		}
		return v, nil
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		if depth >= maxDepth {
			return fail(errDepth)
		}
		n, err := p.dec.DecodeMapLen()
		if err != nil {
			return fail(err)
		}
		if n > p.r.Len()/2 { // a key and a value take at least two bytes
			return fail(fmt.Errorf("map of %d entries in %d remaining bytes", n, p.r.Len()))
		}
		v := value{kind: kindObject}
		index := make(map[string]int, n)
		for i := 0; i < n; i++ {
			keyAt := p.offset()
			kc, err := p.dec.PeekCode()
			if err != nil {
				return value{}, fmt.Errorf("truncated MessagePack at offset %d", keyAt)
			}
			if !msgpcode.IsString(kc) {
				return value{}, fmt.Errorf("MessagePack at offset %d: map key of code %#x is not a string, which JSON cannot hold", keyAt, kc)
			}
			key, err := p.str()
			if err != nil {
				return value{}, fmt.Errorf("MessagePack at offset %d: %w", keyAt, err)
			}
			item, err := p.value(depth + 1)
			if err != nil {
				return value{}, err
			}
			v.set(index, key, item)
		}
		return v, nil
	}
	return fail(fmt.Errorf("unknown code %#x", c))
}

// str decodes a str-family value that must be UTF-8, as serde's String is.
func (p *mpParser) str() (string, error) {
	s, err := p.dec.DecodeString()
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("string %q is not valid UTF-8", s)
	}
	return s, nil
}
