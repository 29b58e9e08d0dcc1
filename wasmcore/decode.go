package wasmcore

import (
	"bytes"
	"fmt"
)

// Module is a decoded WebAssembly module. Its fields are plain data: edit
// them by assignment and Encode writes the result. Function indices count
// imported functions first (the numbering wasm-objdump prints), so defined
// function i has index NumImportedFuncs()+i; the same holds for globals.
type Module struct {
	Types     []FuncType
	Imports   []Import
	Functions []Function // defined functions only; function index = NumImportedFuncs() + i
	Tables    []TableType
	Memories  []MemoryType
	Globals   []Global // defined globals only
	Exports   []Export
	Start     *uint32
	Elements  []Element
	DataCount *uint32
	Data      []DataSegment
	Customs   []CustomSection
	// Names is parsed from the "name" custom section; nil when absent or
	// malformed. The custom section stays in Customs too. When Names is
	// changed (or set on a module without one), Encode writes a name
	// section generated from it in place of the first "name" custom
	// section, keeping the subsections Names does not model. Setting Names
	// to nil leaves Customs in charge: remove the custom section to drop
	// the names.
	Names *NameSection

	src        *source // what was decoded, for byte-identical re-encoding
	rewriteErr error   // a rewrite that could not be completed; Encode reports it
}

// source is a private snapshot of the decoded binary. Encode compares the
// public fields with it and writes the original bytes of everything that is
// still equal, which keeps non-canonical LEB128s (padded sizes and indices
// left by wasm-ld) intact without asking callers to mark what they changed.
// raw is a private copy of the input: the public fields alias a second copy,
// so in-place edits of, say, a Body are seen as changes (DecodeOwned's
// modules have one copy, the caller's).
type source struct {
	raw  []byte
	secs [13]span // known sections by id: header+payload in raw

	codePayload int // file offset of the code section payload

	types     []FuncType
	imports   []Import
	funcTypes []uint32
	funcs     []srcFunc
	tables    []TableType
	memories  []MemoryType
	globals   []Global
	exports   []Export
	hasStart  bool
	start     uint32
	elements  []Element
	elemRaw   [][]byte
	hasDCount bool
	dataCount uint32
	data      []DataSegment
	dataRaw   [][]byte
	customs   []srcCustom
	names     *NameSection // deep copy of the parsed names
	nameExtra []nameSub    // name subsections not parsed into NameSection
}

type span struct {
	start, end int
	present    bool
}

type srcFunc struct {
	locals []Local
	body   []byte // in raw
	entry  []byte // size, locals and body, in raw
	offset int    // file offset of entry
}

type srcCustom struct {
	name  string
	data  []byte // in raw
	entry []byte // the whole section, header included, in raw
}

type nameSub struct {
	id      byte
	payload []byte
}

var wasmMagic = []byte{0x00, 0x61, 0x73, 0x6D}

// HasMagic says whether b starts as a binary Wasm module does (\0asm):
// enough to tell a module given where something else was wanted.
func HasMagic(b []byte) bool { return bytes.HasPrefix(b, wasmMagic) }

// Decode decodes a binary module. It never panics: malformed input yields a
// *DecodeError naming the section, the item index and the file offset. It
// decodes structure, not semantics: function bodies are kept as bytes
// (DecodeInstructions decodes them) and nothing is validated beyond what
// decoding needs. b is not retained: the module holds two private copies
// (one its fields alias, one to compare against when encoding).
func Decode(b []byte) (*Module, error) {
	return decode(b, true)
}

// DecodeOwned is Decode for a caller that gives b to the module: b must
// not change afterwards. The module's fields alias b, and so does what
// Encode compares them with, so that decoding copies nothing: an edit made
// by writing into the module's bytes (a Body, say), rather than by
// assignment as this package's rewrites edit, is not told apart from the
// bytes decoded, though Encode still writes it. A module file read only to
// be decoded needs no other copy: that of a megabyte engine costs a run
// several milliseconds.
func DecodeOwned(b []byte) (*Module, error) {
	return decode(b, false)
}

func decode(b []byte, private bool) (*Module, error) {
	if len(b) < 8 {
		return nil, &DecodeError{Section: "header", Offset: len(b), Err: &eofError{"header"}}
	}
	if !bytes.Equal(b[:4], wasmMagic) {
		return nil, &DecodeError{Section: "header", Err: malformed("magic number is not \\0asm")}
	}
	if v := uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24; v != 1 {
		return nil, &DecodeError{Section: "header", Offset: 4, Err: malformed("unsupported version %d", v)}
	}
	raw, pub := b, b
	if private {
		raw, pub = bytes.Clone(b), bytes.Clone(b)
	}
	s := &source{raw: raw}
	d := &decoder{m: &Module{src: s}, s: s, pub: pub}
	if err := d.sections(); err != nil {
		return nil, err
	}
	return d.m, nil
}

type decoder struct {
	m   *Module
	s   *source
	pub []byte // the copy the public fields alias

	nImpFuncs   int
	nImpGlobals int
	funcTypes   []uint32 // from the function section
	haveFuncSec bool
}

func (d *decoder) sections() error {
	pos := 8
	last := SectionID(0)
	lastRank := 0
	for pos < len(d.pub) {
		start := pos
		r := &reader{b: d.pub, pos: pos, end: len(d.pub), what: "section header"}
		idb, _ := r.byte()
		id := SectionID(idb)
		size, err := r.u32()
		if err != nil {
			return wrap(sectionLabel(id), "", 0, start, err)
		}
		if int64(size) > int64(r.remaining()) {
			return &DecodeError{Section: sectionLabel(id), Offset: start,
				Err: &eofError{fmt.Sprintf("section: size %d exceeds the %d bytes left", size, r.remaining())}}
		}
		payload := r.pos
		end := r.pos + int(size)
		if id > SectionDataCount {
			return &DecodeError{Section: sectionLabel(id), Offset: start, Err: malformed("unknown section id %d", id)}
		}
		if id != SectionCustom {
			rank := sectionRank(id)
			if rank <= lastRank {
				if d.s.secs[id].present {
					return &DecodeError{Section: sectionLabel(id), Offset: start, Err: malformed("duplicate section")}
				}
				return &DecodeError{Section: sectionLabel(id), Offset: start, Err: malformed("section out of order")}
			}
			lastRank = rank
			d.s.secs[id] = span{start: start, end: end, present: true}
		}
		sr := &reader{b: d.pub, pos: payload, end: end, what: "section"}
		if err := d.section(id, sr, start, last); err != nil {
			return err
		}
		if sr.pos != end {
			return &DecodeError{Section: sectionLabel(id), Offset: sr.pos,
				Err: malformed("section size mismatch: %d bytes left over", end-sr.pos)}
		}
		if id != SectionCustom {
			last = id
		}
		pos = end
	}
	if d.haveFuncSec && !d.s.secs[SectionCode].present && len(d.funcTypes) > 0 {
		return &DecodeError{Section: "function", Offset: d.s.secs[SectionFunction].start,
			Err: malformed("%d functions declared but there is no code section", len(d.funcTypes))}
	}
	return nil
}

func sectionLabel(id SectionID) string {
	if id > SectionDataCount {
		return "unknown"
	}
	return id.String()
}

func (d *decoder) section(id SectionID, r *reader, start int, after SectionID) error {
	switch id {
	case SectionCustom:
		return d.custom(r, start, after)
	case SectionType:
		return d.typeSec(r)
	case SectionImport:
		return d.importSec(r)
	case SectionFunction:
		return d.funcSec(r)
	case SectionTable:
		return d.tableSec(r)
	case SectionMemory:
		return d.memorySec(r)
	case SectionGlobal:
		return d.globalSec(r)
	case SectionExport:
		return d.exportSec(r)
	case SectionStart:
		v, err := r.u32()
		if err != nil {
			return wrap("start", "", 0, r.pos, err)
		}
		d.m.Start = &v
		d.s.hasStart, d.s.start = true, v
		return nil
	case SectionElement:
		return d.elementSec(r)
	case SectionDataCount:
		v, err := r.u32()
		if err != nil {
			return wrap("data count", "", 0, r.pos, err)
		}
		d.m.DataCount = &v
		d.s.hasDCount, d.s.dataCount = true, v
		return nil
	case SectionCode:
		return d.codeSec(r)
	case SectionData:
		return d.dataSec(r)
	}
	return nil
}

func (d *decoder) custom(r *reader, start int, after SectionID) error {
	name, err := r.name()
	if err != nil {
		return wrap("custom", "", 0, r.pos, err)
	}
	data := d.pub[r.pos:r.end:r.end]
	d.m.Customs = append(d.m.Customs, CustomSection{Name: name, Data: data, After: after})
	d.s.customs = append(d.s.customs, srcCustom{name: name, data: d.s.raw[r.pos:r.end:r.end], entry: d.s.raw[start:r.end:r.end]})
	if name == "name" && d.m.Names == nil {
		// A malformed name section is not fatal: it only provides names,
		// and the bytes are kept and written back as they were.
		if ns, extra, err := parseNames(data, r.pos); err == nil {
			d.m.Names = ns
			d.s.names = ns.clone()
			d.s.nameExtra = extra
		}
	}
	r.pos = r.end
	return nil
}

func (d *decoder) typeSec(r *reader) error {
	n, err := r.count(3)
	if err != nil {
		return wrap("type", "", 0, r.pos, err)
	}
	d.m.Types = make([]FuncType, 0, n)
	for i := 0; i < n; i++ {
		ft, err := readFuncType(r)
		if err != nil {
			return wrap("type", "type", i, r.pos, err)
		}
		d.m.Types = append(d.m.Types, ft)
	}
	d.s.types = cloneTypes(d.m.Types)
	return nil
}

func readFuncType(r *reader) (FuncType, error) {
	var ft FuncType
	start := r.pos
	form, err := r.byte()
	if err != nil {
		return ft, err
	}
	if form != 0x60 {
		return ft, r.errAt(start, malformed("unsupported type form 0x%02x (want func 0x60)", form))
	}
	if ft.Params, err = readValTypes(r); err != nil {
		return ft, err
	}
	ft.Results, err = readValTypes(r)
	return ft, err
}

func readValTypes(r *reader) ([]ValType, error) {
	n, err := r.count(1)
	if err != nil || n == 0 {
		return nil, err
	}
	vs := make([]ValType, n)
	for i := range vs {
		if vs[i], err = r.valType(); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

func readLimits(r *reader) (Limits, error) {
	var l Limits
	start := r.pos
	flags, err := r.byte()
	if err != nil {
		return l, err
	}
	if flags&^0x07 != 0 {
		return l, r.errAt(start, malformed("invalid limits flags 0x%02x", flags))
	}
	l.HasMax, l.Shared, l.Is64 = flags&1 != 0, flags&2 != 0, flags&4 != 0
	read := func() (uint64, error) {
		if l.Is64 {
			return r.u64()
		}
		v, err := r.u32()
		return uint64(v), err
	}
	if l.Min, err = read(); err != nil {
		return l, err
	}
	if l.HasMax {
		l.Max, err = read()
	}
	return l, err
}

func readTableType(r *reader) (TableType, error) {
	var t TableType
	var err error
	if t.Elem, err = r.refType(); err != nil {
		return t, err
	}
	t.Limits, err = readLimits(r)
	return t, err
}

func readGlobalType(r *reader) (GlobalType, error) {
	var g GlobalType
	var err error
	if g.Type, err = r.valType(); err != nil {
		return g, err
	}
	start := r.pos
	mut, err := r.byte()
	if err != nil {
		return g, err
	}
	if mut > 1 {
		return g, r.errAt(start, malformed("invalid mutability 0x%02x", mut))
	}
	g.Mutable = mut == 1
	return g, nil
}

func (d *decoder) importSec(r *reader) error {
	n, err := r.count(4)
	if err != nil {
		return wrap("import", "", 0, r.pos, err)
	}
	d.m.Imports = make([]Import, 0, n)
	for i := 0; i < n; i++ {
		var im Import
		err := func() error {
			var err error
			if im.Module, err = r.name(); err != nil {
				return err
			}
			if im.Name, err = r.name(); err != nil {
				return err
			}
			kstart := r.pos
			k, err := r.byte()
			if err != nil {
				return err
			}
			im.Kind = ExternKind(k)
			switch im.Kind {
			case ExternFunc:
				tstart := r.pos
				if im.Func, err = r.u32(); err == nil && uint64(im.Func) >= uint64(len(d.m.Types)) {
					err = r.errAt(tstart, malformed("type index %d out of range (%d types)", im.Func, len(d.m.Types)))
				}
				d.nImpFuncs++
			case ExternTable:
				im.Table, err = readTableType(r)
			case ExternMemory:
				im.Memory.Limits, err = readLimits(r)
			case ExternGlobal:
				im.Global, err = readGlobalType(r)
				d.nImpGlobals++
			default:
				return r.errAt(kstart, malformed("unsupported import kind 0x%02x", k))
			}
			return err
		}()
		if err != nil {
			return wrap("import", "import", i, r.pos, err)
		}
		d.m.Imports = append(d.m.Imports, im)
	}
	d.s.imports = append([]Import(nil), d.m.Imports...)
	return nil
}

func (d *decoder) funcSec(r *reader) error {
	n, err := r.count(1)
	if err != nil {
		return wrap("function", "", 0, r.pos, err)
	}
	d.haveFuncSec = true
	d.funcTypes = make([]uint32, n)
	for i := range d.funcTypes {
		tstart := r.pos
		if d.funcTypes[i], err = r.u32(); err != nil {
			return wrap("function", "function", d.nImpFuncs+i, r.pos, err)
		}
		// The type section precedes this one, so its length is final. A
		// type index beyond it leaves the function without a signature,
		// which every later pass (and wazero's validator, which can panic on
		// it) would otherwise have to guard against.
		if uint64(d.funcTypes[i]) >= uint64(len(d.m.Types)) {
			return wrap("function", "function", d.nImpFuncs+i, tstart,
				malformed("type index %d out of range (%d types)", d.funcTypes[i], len(d.m.Types)))
		}
	}
	d.s.funcTypes = append([]uint32(nil), d.funcTypes...)
	// Functions without a code section stay typed but bodiless until the
	// code section arrives; codeSec checks the counts agree.
	return nil
}

func (d *decoder) tableSec(r *reader) error {
	n, err := r.count(3)
	if err != nil {
		return wrap("table", "", 0, r.pos, err)
	}
	d.m.Tables = make([]TableType, 0, n)
	nImp := 0
	for _, im := range d.m.Imports {
		if im.Kind == ExternTable {
			nImp++
		}
	}
	for i := 0; i < n; i++ {
		t, err := readTableType(r)
		if err != nil {
			return wrap("table", "table", nImp+i, r.pos, err)
		}
		d.m.Tables = append(d.m.Tables, t)
	}
	d.s.tables = append([]TableType(nil), d.m.Tables...)
	return nil
}

func (d *decoder) memorySec(r *reader) error {
	n, err := r.count(2)
	if err != nil {
		return wrap("memory", "", 0, r.pos, err)
	}
	d.m.Memories = make([]MemoryType, 0, n)
	nImp := 0
	for _, im := range d.m.Imports {
		if im.Kind == ExternMemory {
			nImp++
		}
	}
	for i := 0; i < n; i++ {
		l, err := readLimits(r)
		if err != nil {
			return wrap("memory", "memory", nImp+i, r.pos, err)
		}
		d.m.Memories = append(d.m.Memories, MemoryType{Limits: l})
	}
	d.s.memories = append([]MemoryType(nil), d.m.Memories...)
	return nil
}

// constExpr reads a constant expression up to and including its end. The
// public copy aliases pub, the snapshot aliases raw.
func (d *decoder) constExpr(r *reader) (pub, raw ConstExpr, err error) {
	start := r.pos
	ir := newInstrReaderAt(r.b[start:r.end:r.end], start, "expression")
	for {
		in, ok, err := ir.Next()
		if err != nil {
			return pub, raw, err
		}
		if !ok {
			return pub, raw, &posError{off: start + int(ir.Offset()), err: &eofError{"expression"}}
		}
		if in.Op == OpEnd {
			end := start + int(in.Offset+in.Len)
			r.pos = end
			return ConstExpr{Code: d.pub[start:end:end]}, ConstExpr{Code: d.s.raw[start:end:end]}, nil
		}
	}
}

func (d *decoder) globalSec(r *reader) error {
	n, err := r.count(3)
	if err != nil {
		return wrap("global", "", 0, r.pos, err)
	}
	d.m.Globals = make([]Global, 0, n)
	d.s.globals = make([]Global, 0, n)
	for i := 0; i < n; i++ {
		var g, sg Global
		err := func() error {
			var err error
			if g.Type, err = readGlobalType(r); err != nil {
				return err
			}
			sg.Type = g.Type
			g.Init, sg.Init, err = d.constExpr(r)
			return err
		}()
		if err != nil {
			return wrap("global", "global", d.nImpGlobals+i, r.pos, err)
		}
		d.m.Globals = append(d.m.Globals, g)
		d.s.globals = append(d.s.globals, sg)
	}
	return nil
}

func (d *decoder) exportSec(r *reader) error {
	n, err := r.count(3)
	if err != nil {
		return wrap("export", "", 0, r.pos, err)
	}
	d.m.Exports = make([]Export, 0, n)
	for i := 0; i < n; i++ {
		var e Export
		err := func() error {
			var err error
			if e.Name, err = r.name(); err != nil {
				return err
			}
			kstart := r.pos
			k, err := r.byte()
			if err != nil {
				return err
			}
			if k > byte(ExternGlobal) {
				return r.errAt(kstart, malformed("unsupported export kind 0x%02x", k))
			}
			e.Kind = ExternKind(k)
			e.Index, err = r.u32()
			return err
		}()
		if err != nil {
			return wrap("export", "export", i, r.pos, err)
		}
		d.m.Exports = append(d.m.Exports, e)
	}
	d.s.exports = append([]Export(nil), d.m.Exports...)
	return nil
}

func (d *decoder) elementSec(r *reader) error {
	n, err := r.count(2)
	if err != nil {
		return wrap("element", "", 0, r.pos, err)
	}
	d.m.Elements = make([]Element, 0, n)
	d.s.elements = make([]Element, 0, n)
	d.s.elemRaw = make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		start := r.pos
		e, se, err := d.element(r)
		if err != nil {
			return wrap("element", "segment", i, r.pos, err)
		}
		d.m.Elements = append(d.m.Elements, e)
		d.s.elements = append(d.s.elements, se)
		d.s.elemRaw = append(d.s.elemRaw, d.s.raw[start:r.pos:r.pos])
	}
	return nil
}

// element decodes one element segment in any of the eight encodings:
// bit 0 of the flags marks passive or declarative segments, bit 1 an
// explicit table index (active) or declarative (with bit 0), bit 2
// expressions instead of function indices.
func (d *decoder) element(r *reader) (e, se Element, err error) {
	fstart := r.pos
	flags, err := r.u32()
	if err != nil {
		return
	}
	if flags > 7 {
		err = r.errAt(fstart, malformed("invalid element segment flags %d", flags))
		return
	}
	e.Type = ValFuncRef
	switch {
	case flags&1 == 0:
		e.Mode = ElemActive
		if flags&2 != 0 {
			if e.Table, err = r.u32(); err != nil {
				return
			}
		}
		if e.Offset, se.Offset, err = d.constExpr(r); err != nil {
			return
		}
	case flags&2 == 0:
		e.Mode = ElemPassive
	default:
		e.Mode = ElemDeclarative
	}
	// Flags 0 and 4 imply funcref; the others spell out the type.
	if flags&3 != 0 {
		kstart := r.pos
		if flags&4 != 0 {
			if e.Type, err = r.refType(); err != nil {
				return
			}
		} else {
			var k byte
			if k, err = r.byte(); err != nil {
				return
			}
			if k != 0 {
				err = r.errAt(kstart, malformed("invalid element kind 0x%02x", k))
				return
			}
		}
	}
	if flags&4 == 0 {
		var n int
		if n, err = r.count(1); err != nil {
			return
		}
		e.Funcs = make([]uint32, n)
		for i := range e.Funcs {
			if e.Funcs[i], err = r.u32(); err != nil {
				return
			}
		}
		se.Funcs = append([]uint32{}, e.Funcs...)
	} else {
		var n int
		if n, err = r.count(2); err != nil {
			return
		}
		e.Exprs = make([]ConstExpr, n)
		se.Exprs = make([]ConstExpr, n)
		for i := range e.Exprs {
			if e.Exprs[i], se.Exprs[i], err = d.constExpr(r); err != nil {
				return
			}
		}
	}
	se.Mode, se.Table, se.Type = e.Mode, e.Table, e.Type
	return
}

func (d *decoder) codeSec(r *reader) error {
	d.s.codePayload = r.pos
	n, err := r.count(2)
	if err != nil {
		return wrap("code", "", 0, r.pos, err)
	}
	if n != len(d.funcTypes) {
		return &DecodeError{Section: "code", Offset: d.s.secs[SectionCode].start,
			Err: malformed("%d function bodies for %d declared functions", n, len(d.funcTypes))}
	}
	d.m.Functions = make([]Function, n)
	d.s.funcs = make([]srcFunc, n)
	// All functions' locals share two backing arrays (public and snapshot)
	// instead of two small allocations per function.
	pubLocals := make([]Local, 0, n*2)
	rawLocals := make([]Local, 0, n*2)
	for i := 0; i < n; i++ {
		fi := d.nImpFuncs + i
		start := r.pos
		size, err := r.u32()
		if err != nil {
			return wrap("code", "function", fi, r.pos, err)
		}
		if int64(size) > int64(r.remaining()) {
			return &DecodeError{Section: "code", Item: "function", Index: fi, Offset: start,
				Err: &eofError{fmt.Sprintf("section: body size %d exceeds the %d bytes left", size, r.remaining())}}
		}
		end := r.pos + int(size)
		br := &reader{b: r.b, pos: r.pos, end: end, what: "body"}
		nl, err := br.count(2)
		if err != nil {
			return wrap("code", "function", fi, br.pos, err)
		}
		first := len(pubLocals)
		var total uint64
		for j := 0; j < nl; j++ {
			var l Local
			if l.Count, err = br.u32(); err == nil {
				l.Type, err = br.valType()
			}
			if err != nil {
				return wrap("code", "function", fi, br.pos, err)
			}
			total += uint64(l.Count)
			pubLocals = append(pubLocals, l)
		}
		if total > 0xFFFFFFFF {
			return &DecodeError{Section: "code", Item: "function", Index: fi, Offset: start, Err: malformed("too many locals")}
		}
		if br.pos >= end || r.b[end-1] != byte(OpEnd) {
			return &DecodeError{Section: "code", Item: "function", Index: fi, Offset: end, Err: &eofError{"body"}}
		}
		rawFirst := len(rawLocals)
		rawLocals = append(rawLocals, pubLocals[first:]...)
		var locals, slocals []Local
		if nl > 0 {
			locals = pubLocals[first:len(pubLocals):len(pubLocals)]
			slocals = rawLocals[rawFirst:len(rawLocals):len(rawLocals)]
		}
		d.m.Functions[i] = Function{Type: d.funcTypes[i], Locals: locals, Body: d.pub[br.pos:end:end], BodyOffset: uint32(br.pos)}
		d.s.funcs[i] = srcFunc{locals: slocals, body: d.s.raw[br.pos:end:end], entry: d.s.raw[start:end:end], offset: start}
		r.pos = end
	}
	return nil
}

func (d *decoder) dataSec(r *reader) error {
	n, err := r.count(2)
	if err != nil {
		return wrap("data", "", 0, r.pos, err)
	}
	d.m.Data = make([]DataSegment, 0, n)
	d.s.data = make([]DataSegment, 0, n)
	d.s.dataRaw = make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		start := r.pos
		var ds, sds DataSegment
		err := func() error {
			flags, err := r.u32()
			if err != nil {
				return err
			}
			switch flags {
			case 0, 2:
				if flags == 2 {
					if ds.Memory, err = r.u32(); err != nil {
						return err
					}
				}
				if ds.Offset, sds.Offset, err = d.constExpr(r); err != nil {
					return err
				}
			case 1:
				ds.Mode = DataPassive
			default:
				return r.errAt(start, malformed("invalid data segment flags %d", flags))
			}
			size, err := r.u32()
			if err != nil {
				return err
			}
			lo := r.pos
			if _, err = r.bytes(int(min(size, 1<<31-1))); err != nil {
				return err
			}
			ds.Init = d.pub[lo:r.pos:r.pos]
			sds.Init = d.s.raw[lo:r.pos:r.pos]
			sds.Mode, sds.Memory = ds.Mode, ds.Memory
			return nil
		}()
		if err != nil {
			return wrap("data", "segment", i, r.pos, err)
		}
		d.m.Data = append(d.m.Data, ds)
		d.s.data = append(d.s.data, sds)
		d.s.dataRaw = append(d.s.dataRaw, d.s.raw[start:r.pos:r.pos])
	}
	return nil
}
