package shopify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// kind is the JSON type of a value.
type kind byte

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a JSON document as function-runner holds it (serde_json with the
// preserve_order and arbitrary_precision features): objects keep their keys
// in input order, and numbers keep the literal text they were written with,
// so that minifying never rewrites -0.9191460999999999 or 1.0 and converting
// to MessagePack can tell an integer from a float by its text.
type value struct {
	kind  kind
	b     bool
	s     string  // a string, or a number's literal
	items []value // array elements, or object values
	keys  []string
}

// maxDepth is serde_json's nesting limit (128 levels of recursion budget:
// 127 nested arrays or objects parse, 128 do not). function-runner rejects
// deeper input, so jsprof does too, which also bounds recursion here.
const maxDepth = 127

// errDepth is reported for documents nested deeper than maxDepth.
var errDepth = fmt.Errorf("nested more than %d levels deep (serde_json's limit, which function-runner applies)", maxDepth)

// parseJSON parses one JSON document, surrounded by optional whitespace.
// Duplicate object keys keep the position of their first occurrence and the
// value of their last, as an IndexMap insert does.
func parseJSON(b []byte) (value, error) {
	// encoding/json replaces invalid UTF-8 with U+FFFD; serde_json rejects
	// it, and so must we, or the function would see different bytes.
	if !utf8.Valid(b) {
		return value{}, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return value{}, errors.New("unexpected end of input")
		}
		return value{}, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return value{}, err
		}
		return value{}, fmt.Errorf("trailing data after the document (%v at offset %d)", tok, dec.InputOffset())
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return value{kind: kindNull}, nil
	case bool:
		return value{kind: kindBool, b: t}, nil
	case json.Number:
		return value{kind: kindNumber, s: string(t)}, nil
	case string:
		return value{kind: kindString, s: t}, nil
	case json.Delim:
		if depth >= maxDepth {
			return value{}, errDepth
		}
		if t == '[' {
			v := value{kind: kindArray}
			for dec.More() {
				item, err := parseValue(dec, depth+1)
				if err != nil {
					return value{}, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token() // ']'
			return v, err
		}
		v := value{kind: kindObject}
		index := map[string]int{}
		for dec.More() {
			ktok, err := dec.Token()
			if err != nil {
				return value{}, err
			}
			key := ktok.(string) // the decoder guarantees object keys are strings
			item, err := parseValue(dec, depth+1)
			if err != nil {
				return value{}, err
			}
			v.set(index, key, item)
		}
		_, err := dec.Token() // '}'
		return v, err
	}
	return value{}, fmt.Errorf("unexpected token %v", tok)
}

// set adds key to an object, or replaces the value of a key it already has
// in place (IndexMap semantics).
func (v *value) set(index map[string]int, key string, item value) {
	if i, ok := index[key]; ok {
		v.items[i] = item
		return
	}
	index[key] = len(v.keys)
	v.keys = append(v.keys, key)
	v.items = append(v.items, item)
}

// appendJSON writes v compactly as serde_json does. shopifyEscapes adds the
// escapes of Shopify's JSON encoder that function-runner applies to inputs
// (its ShopifyJsonFormatter): "/" as "\/", U+2028 as "\u2028" and U+2029 as
// "\u2029", in keys and values alike.
func appendJSON(dst []byte, v value, shopifyEscapes bool) []byte {
	switch v.kind {
	case kindNull:
		return append(dst, "null"...)
	case kindBool:
		return strconv.AppendBool(dst, v.b)
	case kindNumber:
		return append(dst, v.s...)
	case kindString:
		return appendJSONString(dst, v.s, shopifyEscapes)
	case kindArray:
		dst = append(dst, '[')
		for i, item := range v.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, item, shopifyEscapes)
		}
		return append(dst, ']')
	default:
		dst = append(dst, '{')
		for i, key := range v.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, key, shopifyEscapes)
			dst = append(dst, ':')
			dst = appendJSON(dst, v.items[i], shopifyEscapes)
		}
		return append(dst, '}')
	}
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s with serde_json's escapes: \" \\ \b \t \n \f \r,
// other control characters as \u00xx (lower-case hex), everything else,
// including non-ASCII and DEL, as is — unlike encoding/json, which also
// escapes <, > and & and would change the bytes the function reads.
func appendJSONString(dst []byte, s string, shopifyEscapes bool) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if shopifyEscapes && (r == '\u2028' || r == '\u2029') {
				dst = append(dst, `\u`...)
				dst = strconv.AppendInt(dst, int64(r), 16)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"':
			dst = append(dst, `\"`...)
		case c == '\\':
			dst = append(dst, `\\`...)
		case c == '/' && shopifyEscapes:
			dst = append(dst, `\/`...)
		case c == '\b':
			dst = append(dst, `\b`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\f':
			dst = append(dst, `\f`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}

// formatFloat writes f as serde_json does (the ryu crate's format64): the
// shortest digits that round-trip, in plain notation with a ".0" for
// integral values up to 16 digits, and as d.ddde±x beyond. Keeping the ".0"
// is what tells a reader that a MessagePack float was a float.
func formatFloat(f float64) string {
	if f == 0 {
		if strconv.FormatFloat(f, 'g', -1, 64)[0] == '-' {
			return "-0.0"
		}
		return "0.0"
	}
	// 'e' with precision -1 gives the shortest round-trip digits, the same
	// digits Ryū picks: "-d.ddde±xx".
	s := strconv.FormatFloat(f, 'e', -1, 64)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	length := len(digits)
	kk := exp + 1 // the decimal point's position: 10^(kk-1) <= |f| < 10^kk
	k := kk - length
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case k >= 0 && kk <= 16:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", k))
		b.WriteString(".0")
	case kk > 0 && kk <= 16:
		b.WriteString(digits[:kk])
		b.WriteByte('.')
		b.WriteString(digits[kk:])
	case kk > -5 && kk <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -kk))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if length > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(kk - 1))
	}
	return b.String()
}
