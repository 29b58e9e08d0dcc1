package natives

import (
	"encoding/binary"
)

// The def_type values of JSCFunctionListEntry (quickjs.h). They are the
// same in every release of both families; 10 is JS_DEF_PROP_ATOM in
// Bellard's QuickJS (2025-10 on) and JS_DEF_PROP_SYMBOL in QuickJS-NG,
// 11 JS_DEF_PROP_BOOL in both.
const (
	defCFunc        = 0
	defCGetSet      = 1
	defCGetSetMagic = 2
	defPropString   = 3
	defPropInt32    = 4
	defPropInt64    = 5
	defPropDouble   = 6
	defPropUndef    = 7
	defObject       = 8
	defAlias        = 9
	defPropAtom     = 10
	defPropBool     = 11
)

// entrySize is sizeof(JSCFunctionListEntry) in wasm32: name (4),
// prop_flags (1), def_type (1), magic (2), then a union of 8 bytes whose
// int64/double members make the struct 8-aligned.
const entrySize = 16

// maxCProto is the last JSCFunctionEnum value (JS_CFUNC_iterator_next),
// unchanged in both families.
const maxCProto = 12

// maxNameLen bounds the property names accepted: the longest builtin
// name is well under it ("getOwnPropertyDescriptors", 25).
const maxNameLen = 64

// rawEntry is one decoded JSCFunctionListEntry.
type rawEntry struct {
	addr    uint32
	name    string
	flags   uint8
	defType uint8
	magic   int16
	length  uint8  // CFUNC
	cproto  uint8  // CFUNC
	fn      uint32 // CFUNC: cfunc; getset: getter (table indices)
	fn2     uint32 // getset: setter
	str     string // PROP_STRING value; ALIAS name
	i32     int32  // PROP_INT32/ATOM/BOOL; OBJECT: len; ALIAS: base
	ptr     uint32 // OBJECT: tab
	u64     uint64 // the union's 8 bytes
}

// isFunc reports whether the entry declares a native: a function, or a
// getter or setter.
func (e *rawEntry) isFunc() bool {
	return e.defType == defCFunc || e.defType == defCGetSet || e.defType == defCGetSetMagic
}

// decodeEntry reads a JSCFunctionListEntry at addr and checks that it is
// well formed: a property name, flags and def_type in range, function
// pointers that are table indices the element segments fill, strings
// where strings belong and zero bytes where the initializer leaves them.
func (s *scanner) decodeEntry(addr uint32) (rawEntry, bool) {
	var buf [entrySize]byte
	b := s.img.bytes(addr, entrySize, buf[:])
	if b == nil {
		return rawEntry{}, false
	}
	e := rawEntry{
		addr:    addr,
		flags:   b[4],
		defType: b[5],
		magic:   int16(binary.LittleEndian.Uint16(b[6:])),
		u64:     binary.LittleEndian.Uint64(b[8:]),
	}
	// JS_PROP_CONFIGURABLE | JS_PROP_WRITABLE | JS_PROP_ENUMERABLE at most.
	if e.flags > 7 || e.defType > defPropBool {
		return rawEntry{}, false
	}
	lo := binary.LittleEndian.Uint32(b[8:])
	hi := binary.LittleEndian.Uint32(b[12:])
	switch e.defType {
	case defCFunc:
		e.length, e.cproto = b[8], b[9]
		e.fn = hi
		if e.cproto > maxCProto || b[10] != 0 || b[11] != 0 {
			return rawEntry{}, false
		}
		if _, ok := s.table.resolve(e.fn); !ok {
			return rawEntry{}, false
		}
	case defCGetSet, defCGetSetMagic:
		e.fn, e.fn2 = lo, hi
		if e.fn == 0 && e.fn2 == 0 {
			return rawEntry{}, false
		}
		for _, f := range []uint32{e.fn, e.fn2} {
			if _, ok := s.table.resolve(f); f != 0 && !ok {
				return rawEntry{}, false
			}
		}
	default:
		// The macros of every other kind set magic to 0.
		if e.magic != 0 {
			return rawEntry{}, false
		}
	}
	switch e.defType {
	case defPropString:
		str, ok := s.img.cstring(lo, 256)
		if !ok || hi != 0 {
			return rawEntry{}, false
		}
		e.str = str
	case defPropInt32, defPropAtom:
		e.i32 = int32(lo)
		if hi != 0 && hi != ^uint32(0) {
			return rawEntry{}, false
		}
	case defPropBool:
		e.i32 = int32(lo)
		if lo > 1 || hi != 0 {
			return rawEntry{}, false
		}
	case defPropUndef:
		if e.u64 != 0 {
			return rawEntry{}, false
		}
	case defObject:
		e.ptr, e.i32 = lo, int32(hi)
		if e.i32 <= 0 || e.i32 > 1024 || !s.img.mapped(e.ptr, entrySize) {
			return rawEntry{}, false
		}
	case defAlias:
		str, ok := s.img.cstring(lo, maxNameLen)
		if !ok || !propertyName(str) {
			return rawEntry{}, false
		}
		e.str, e.i32 = str, int32(hi)
	}
	name, ok := s.img.cstring(binary.LittleEndian.Uint32(b), maxNameLen)
	if !ok || !propertyName(name) {
		return rawEntry{}, false
	}
	e.name = name
	return e, true
}

// propertyName reports whether s looks like the name of a builtin
// property: an identifier, or a well-known symbol written "[Symbol.x]".
func propertyName(s string) bool {
	if len(s) > 9 && s[:8] == "[Symbol." && s[len(s)-1] == ']' {
		s = s[8 : len(s)-1]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
