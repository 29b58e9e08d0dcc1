package sourcemap

import (
	"context"
	"fmt"
	"slices"
)

// base64Digit is a base64 digit's value, -1 for other bytes.
func base64Digit(c byte) int8 {
	switch {
	case c >= 'A' && c <= 'Z':
		return int8(c - 'A')
	case c >= 'a' && c <= 'z':
		return int8(c-'a') + 26
	case c >= '0' && c <= '9':
		return int8(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// checkEvery is how many segments decodeMappings and Check handle between
// two looks at their context: a signal abandons a map's reading within
// about a millisecond.
const checkEvery = 1 << 14

// decodeMappings decodes a map's mappings string (Base64 VLQ, segments of
// 1, 4 or 5 fields, lines separated by ';', segments by ','), appending
// its segments to segs. Source and name indices are checked against the
// map's counts, positions against maxPosition. segs grows once, by the
// segments counted first: a segment takes 24 bytes for the 2 bytes ("A,")
// it may take in the map, and growing by doubling held up to three times
// that at once. It gives up with ctx's cause when ctx is done.
func decodeMappings(ctx context.Context, s string, sources, names int32, segs []segment) ([]segment, error) {
	segs = slices.Grow(segs, countSegments(s))
	var line, col int64
	var src, oline, ocol, name int64
	var fields [5]int64
	i := 0
	for i < len(s) {
		switch s[i] {
		case ';':
			line++
			col = 0
			if line > maxPosition {
				return nil, fmt.Errorf("mappings: more than %d lines", int64(maxPosition))
			}
			i++
			continue
		case ',':
			i++
			continue
		}
		start := i
		n := 0
		for i < len(s) && s[i] != ',' && s[i] != ';' {
			if n == len(fields) {
				return nil, fmt.Errorf("mappings: the segment at offset %d has more than 5 fields", start)
			}
			v, next, err := vlq(s, i)
			if err != nil {
				return nil, err
			}
			fields[n] = v
			n++
			i = next
		}
		if n != 1 && n != 4 && n != 5 {
			return nil, fmt.Errorf("mappings: the segment at offset %d has %d fields, want 1, 4 or 5", start, n)
		}
		col += fields[0]
		g := segment{genLine: int32(line), src: -1, name: -1}
		if col < 0 || col > maxPosition {
			return nil, fmt.Errorf("mappings: the segment at offset %d has generated column %d", start, col)
		}
		g.genCol = int32(col)
		if n >= 4 {
			src += fields[1]
			oline += fields[2]
			ocol += fields[3]
			switch {
			case src < 0 || src >= int64(sources):
				return nil, fmt.Errorf("mappings: the segment at offset %d names source %d of %d", start, src, sources)
			case oline < 0 || oline > maxPosition || ocol < 0 || ocol > maxPosition:
				return nil, fmt.Errorf("mappings: the segment at offset %d maps to line %d column %d", start, oline, ocol)
			}
			g.src, g.line, g.col = int32(src), int32(oline), int32(ocol)
		}
		if n == 5 {
			name += fields[4]
			if name < 0 || name >= int64(names) {
				return nil, fmt.Errorf("mappings: the segment at offset %d names name %d of %d", start, name, names)
			}
			g.name = int32(name)
		}
		segs = append(segs, g)
		if len(segs)%checkEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
	}
	return segs, nil
}

// countSegments is how many segments a mappings string holds: the runs of
// bytes between separators.
func countSegments(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); i++ {
		sep := s[i] == ',' || s[i] == ';'
		if !sep && !in {
			n++
		}
		in = !sep
	}
	return n
}

// vlq reads one Base64 VLQ value at s[i:], returning it and the offset
// after it.
func vlq(s string, i int) (int64, int, error) {
	var v uint64
	for shift := uint(0); ; shift += 5 {
		if i >= len(s) {
			return 0, 0, fmt.Errorf("mappings: a value is cut short at offset %d", i)
		}
		d := base64Digit(s[i])
		if d < 0 {
			return 0, 0, fmt.Errorf("mappings: %q at offset %d is not a base64 digit", s[i], i)
		}
		if shift > 30 {
			return 0, 0, fmt.Errorf("mappings: the value at offset %d is longer than 32 bits", i)
		}
		i++
		v |= uint64(d&31) << shift
		if d&32 == 0 {
			break
		}
	}
	if v&1 != 0 {
		return -int64(v >> 1), i, nil
	}
	return int64(v >> 1), i, nil
}
