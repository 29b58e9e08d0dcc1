package wasmcore

import (
	"errors"
	"io"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Helpers to build small binaries by hand.

func header() []byte { return []byte{0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00} }

func sec(id SectionID, payload ...byte) []byte {
	return append(appendU32([]byte{byte(id)}, uint32(len(payload))), payload...)
}

func module(sections ...[]byte) []byte {
	b := header()
	for _, s := range sections {
		b = append(b, s...)
	}
	return b
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// A valid module: one type () -> (), one function `nop; end`.
var (
	typeSec = sec(SectionType, 1, 0x60, 0, 0)
	funcSec = sec(SectionFunction, 1, 0)
	codeSec = sec(SectionCode, 1, 3, 0, 0x01, 0x0B)
)

func TestDecodeErrors(t *testing.T) {
	valid := module(typeSec, funcSec, codeSec)
	_, err := Decode(valid)
	require.NoError(t, err)

	cases := []struct {
		name string
		in   []byte
		want string // substring of the error
		eof  bool   // errors.Is(err, io.ErrUnexpectedEOF)
	}{
		{"empty", nil, "wasmcore: header at offset 0x0: unexpected end of header", true},
		{"short header", []byte{0, 'a', 's'}, "unexpected end of header", true},
		{"bad magic", []byte("\x00wat\x01\x00\x00\x00"), "magic number", false},
		{"version 2", []byte("\x00asm\x02\x00\x00\x00"), "unsupported version 2", false},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), "unsupported version", false},
		{"truncated section header", cat(header(), []byte{1}), "type section at offset 0x9: unexpected end of section header", true},
		{"section past the end", module([]byte{1, 10, 1, 0x60}), "type section at offset 0x8: unexpected end of section: size 10 exceeds the 2 bytes left", true},
		{"truncated code section", valid[:len(valid)-1], "code section at offset 0x", true},
		{"size leb too long", cat(header(), []byte{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}), "integer representation too long", false},
		{"size leb too large", cat(header(), []byte{1, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}), "too large", false},
		{"unknown section", module(sec(14, 0)), "wasmcore: unknown section at offset 0x8: malformed: unknown section id 14", false},
		{"out of order", module(sec(SectionMemory, 0), typeSec), "type section at offset 0xb: malformed: section out of order", false},
		{"function type out of range", module(typeSec, sec(SectionFunction, 2, 0, 96), codeSec), "function section: function 1 at offset 0x12: malformed: type index 96 out of range (1 types)", false},
		{"import type out of range", module(typeSec, sec(SectionImport, 1, 1, 'm', 1, 'f', 0, 2)), "import section: import 0 at offset 0x16: malformed: type index 2 out of range (1 types)", false},
		{"duplicate", module(typeSec, typeSec), "duplicate section", false},
		{"data count after code", module(typeSec, funcSec, codeSec, sec(SectionDataCount, 0)), "out of order", false},
		{"type form", module(sec(SectionType, 1, 0x50, 0, 0)), "type section: type 0 at offset 0xb: malformed: unsupported type form 0x50", false},
		{"bad value type", module(sec(SectionType, 2, 0x60, 0, 0, 0x60, 1, 0x55, 0)), "type section: type 1 at offset 0x10: malformed: invalid value type 0x55", false},
		{"count too large", module(sec(SectionType, 0xE8, 0x07, 0x60, 0, 0)), "count 1000 too large for the 3 bytes left", false},
		{"import kind", module(typeSec, sec(SectionImport, 1, 1, 'a', 1, 'b', 5, 0)), "import section: import 0 at offset 0x15: malformed: unsupported import kind 0x05", false},
		{"import name utf8", module(typeSec, sec(SectionImport, 1, 1, 0xFF, 1, 'b', 0, 0)), "not valid UTF-8", false},
		{"limits flags", module(sec(SectionMemory, 1, 0x08, 1)), "memory section: memory 0 at offset 0xb: malformed: invalid limits flags 0x08", false},
		{"memory truncated", module(sec(SectionMemory, 1, 0x01, 1)), "memory section: memory 0 at offset 0xd: unexpected end of section", true},
		{"global mutability", module(sec(SectionGlobal, 1, 0x7F, 2, 0x41, 0, 0x0B)), "invalid mutability 0x02", false},
		{"global init unterminated", module(sec(SectionGlobal, 1, 0x7F, 0, 0x41, 0)), "global section: global 0 at offset 0xf: unexpected end of expression", true},
		{"global init bad opcode", module(sec(SectionGlobal, 1, 0x7F, 0, 0xFF, 0x0B)), "global section: global 0 at offset 0xd: malformed: unknown opcode", false},
		{"export kind", module(sec(SectionExport, 1, 1, 'e', 4, 0)), "unsupported export kind 0x04", false},
		{"start truncated", module(sec(SectionStart, 0x80)), "start section at offset 0xb: unexpected end of section", true},
		{"element flags", module(sec(SectionElement, 1, 8, 0)), "element section: segment 0 at offset 0xb: malformed: invalid element segment flags 8", false},
		{"element kind", module(sec(SectionElement, 1, 1, 0x01, 0)), "invalid element kind 0x01", false},
		{"element reftype", module(sec(SectionElement, 1, 5, 0x7F, 0)), "invalid reference type 0x7f", false},
		{"data flags", module(sec(SectionData, 1, 3, 0)), "data section: segment 0 at offset 0xb: malformed: invalid data segment flags 3", false},
		{"data truncated", module(sec(SectionData, 1, 1, 5, 'a')), "data section: segment 0 at offset 0xd: unexpected end of section", true},
		{"code count mismatch", module(typeSec, sec(SectionFunction, 2, 0, 0), codeSec), "2 declared functions", false},
		{"code without function section", module(typeSec, codeSec), "1 function bodies for 0 declared functions", false},
		{"function without code", module(typeSec, funcSec), "there is no code section", false},
		{"body size past section", module(typeSec, funcSec, sec(SectionCode, 1, 9, 0, 0x0B)), "code section: function 0 at offset 0x15: unexpected end of section: body size 9 exceeds the 2 bytes left", true},
		{"locals count too large", module(typeSec, funcSec, sec(SectionCode, 1, 2, 1, 5)), "code section: function 0 at offset 0x16: malformed: count 1 too large for the 1 bytes left", false},
		{"body locals truncated", module(typeSec, funcSec, sec(SectionCode, 1, 3, 1, 0x85, 0x80)), "code section: function 0 at offset 0x19: unexpected end of body", true},
		{"body without end", module(typeSec, funcSec, sec(SectionCode, 1, 2, 0, 0x01)), "code section: function 0 at offset 0x18: unexpected end of body", true},
		{"local type", module(typeSec, funcSec, sec(SectionCode, 1, 4, 1, 1, 0x40, 0x0B)), "invalid value type 0x40", false},
		{"too many locals", module(typeSec, funcSec, sec(SectionCode, 1, 13, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F, 0x0B)), "too many locals", false},
		{"section size mismatch", module(sec(SectionType, 1, 0x60, 0, 0, 0)), "type section at offset 0xe: malformed: section size mismatch: 1 bytes left over", false},
		{"custom name truncated", module(sec(SectionCustom, 5, 'a')), "custom section at offset 0xb: unexpected end of section", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Decode(c.in)
			require.Error(t, err)
			require.Nil(t, m)
			assert.Contains(t, err.Error(), c.want)
			var de *DecodeError
			require.True(t, errors.As(err, &de), "error is a *DecodeError")
			assert.Equal(t, c.eof, errors.Is(err, io.ErrUnexpectedEOF), "errors.Is(io.ErrUnexpectedEOF)")
			if !c.eof {
				assert.ErrorIs(t, err, ErrMalformed)
			}
			assert.Regexp(t, regexp.MustCompile(`^wasmcore: [a-z ]+( section)?(: [a-z]+ \d+)? at offset 0x[0-9a-f]+: `), err.Error())
		})
	}
}

// A malformed name section is not fatal: the names are dropped and the
// bytes kept.
func TestMalformedNameSection(t *testing.T) {
	in := module(typeSec, funcSec, codeSec, sec(SectionCustom, cat(appendName(nil, "name"), []byte{1, 9, 1})...))
	m, err := Decode(in)
	require.NoError(t, err)
	assert.Nil(t, m.Names)
	require.Len(t, m.Customs, 1)
	out, err := m.Encode()
	require.NoError(t, err)
	assert.Equal(t, in, out)
}

func TestInstrErrors(t *testing.T) {
	cases := []struct {
		name string
		body []byte
		want string
	}{
		{"unknown opcode", []byte{0xFF}, "at offset 0x0: malformed: unknown opcode opcode(0xff)"},
		{"unknown prefixed", []byte{0x01, 0xFD, 0xFF, 0x0F}, "at offset 0x1: malformed: unknown opcode opcode(0xfd 0x7ff)"},
		{"truncated i32.const", []byte{0x41, 0x80}, "unexpected end of body"},
		{"truncated memarg", []byte{0x28, 0x02}, "unexpected end of body"},
		{"truncated v128.const", []byte{0xFD, 0x0C, 1, 2, 3}, "unexpected end of body"},
		{"br_table count", []byte{0x0E, 0xFF, 0xFF, 0x03, 0}, "count 65535 too large"},
		{"i32.const too large", []byte{0x41, 0xFF, 0xFF, 0xFF, 0xFF, 0x4F}, "integer too large"},
		{"ref.null type", []byte{0xD0, 0x7F}, "invalid reference type 0x7f"},
		{"select type", []byte{0x1C, 1, 0x40}, "invalid value type 0x40"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeInstructions(c.body)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
