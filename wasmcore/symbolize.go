package wasmcore

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
)

// Symbolizer names functions and maps code offsets to source lines. It
// reads the "name" section and, when present, DWARF from the .debug_*
// custom sections. Code offsets are what DWARF for Wasm uses as addresses:
// byte offsets relative to the start of the code section payload of the
// decoded binary. A Symbolizer is immutable after NewSymbolizer and safe
// for concurrent use.
type Symbolizer struct {
	names map[uint32]string // name section
	nImp  uint32

	funcs []funcRange // defined functions of the decoded binary, by start

	dwarfNames map[uint32]string // function index -> DWARF subprogram name
	exports    map[uint32]string // function index -> export name, and module.name for imports
	subs       []subprogram      // DWARF subprograms, by low
	rows       []lineRow         // line table, by addr
	files      []string
	dwarfErr   error
	hasDWARF   bool
}

type funcRange struct {
	start, end uint32 // code offsets: the body entry, size field included
	index      uint32
}

type subprogram struct {
	low, high uint64
	name      string
}

// lineRow starts an address range that lasts until the next row; line < 0
// marks the end of a sequence (no line information from there).
type lineRow struct {
	addr uint64
	file int32
	line int32
}

// Limits on what malformed DWARF can make the symbolizer do.
const (
	maxDWARFEntries = 1 << 24
	maxLineRows     = 1 << 26
)

// NewSymbolizer prepares symbolization for m. A module without DWARF is not
// an error, nor is malformed DWARF: the Symbolizer then uses the name
// section only, and DWARFError says what was wrong.
//
// Code offsets refer to the binary m was decoded from (a module built by
// hand has none, only names); function indices are m's current ones.
// Symbolize a rewritten module by decoding its encoding.
func NewSymbolizer(m *Module) (*Symbolizer, error) {
	if m == nil {
		return nil, errors.New("wasmcore: NewSymbolizer: nil module")
	}
	s := &Symbolizer{nImp: m.NumImportedFuncs(), dwarfNames: map[uint32]string{}, exports: map[uint32]string{}}
	// Stripped modules still name their imports and exports.
	var imp uint32
	for _, im := range m.Imports {
		if im.Kind == ExternFunc {
			s.exports[imp] = im.Module + "." + im.Name
			imp++
		}
	}
	for _, e := range m.Exports {
		if _, dup := s.exports[e.Index]; e.Kind == ExternFunc && !dup {
			s.exports[e.Index] = e.Name
		}
	}
	if m.Names != nil {
		s.names = make(map[uint32]string, len(m.Names.Funcs))
		for k, v := range m.Names.Funcs {
			s.names[k] = v
		}
	}
	if src := m.src; src != nil {
		for i := range src.funcs {
			if i >= len(m.Functions) {
				break
			}
			f := &src.funcs[i]
			start := uint32(f.offset - src.codePayload)
			s.funcs = append(s.funcs, funcRange{start: start, end: start + uint32(len(f.entry)), index: s.nImp + uint32(i)})
		}
	}
	if err := s.loadDWARF(m); err != nil {
		s.dwarfErr = err
		s.subs, s.rows, s.files, s.hasDWARF = nil, nil, nil, false
		s.dwarfNames = map[uint32]string{}
	}
	return s, nil
}

// HasDWARF reports whether DWARF debugging information was loaded.
func (s *Symbolizer) HasDWARF() bool { return s.hasDWARF }

// DWARFError returns why DWARF present in the module could not be used, or
// nil.
func (s *Symbolizer) DWARFError() error { return s.dwarfErr }

// FuncName returns the name of a function (imports first): from the name
// section, else from the DWARF subprogram at the function's code, else its
// export name (module.name for an import), else "wasm-function[N]".
func (s *Symbolizer) FuncName(funcIndex uint32) string {
	if n := s.names[funcIndex]; n != "" {
		return n
	}
	if n := s.dwarfNames[funcIndex]; n != "" {
		return n
	}
	if n := s.exports[funcIndex]; n != "" {
		return n
	}
	return "wasm-function[" + strconv.FormatUint(uint64(funcIndex), 10) + "]"
}

// FuncAt returns the index of the function whose code holds codeOffset.
func (s *Symbolizer) FuncAt(codeOffset uint64) (uint32, bool) {
	i := sort.Search(len(s.funcs), func(i int) bool { return uint64(s.funcs[i].end) > codeOffset })
	if i < len(s.funcs) && uint64(s.funcs[i].start) <= codeOffset {
		return s.funcs[i].index, true
	}
	return 0, false
}

// Lookup symbolizes a code offset (relative to the code section payload, as
// DWARF addresses it). fn is the name of the function holding the offset
// (see FuncName), or the DWARF subprogram's when the offset is in no known
// function; file and line come from the DWARF line table and are empty
// without one. ok reports whether anything was found.
func (s *Symbolizer) Lookup(codeOffset uint64) (file string, line int, fn string, ok bool) {
	if idx, found := s.FuncAt(codeOffset); found {
		fn = s.FuncName(idx)
	} else if sp := s.subprogramAt(codeOffset); sp != nil {
		fn = sp.name
	}
	if i := sort.Search(len(s.rows), func(i int) bool { return s.rows[i].addr > codeOffset }) - 1; i >= 0 {
		if r := s.rows[i]; r.line >= 0 {
			file, line = s.files[r.file], int(r.line)
		}
	}
	return file, line, fn, fn != "" || file != ""
}

func (s *Symbolizer) subprogramAt(off uint64) *subprogram {
	// Subprograms do not overlap in practice; look back a little in case
	// a malformed or unusual one does.
	i := sort.Search(len(s.subs), func(i int) bool { return s.subs[i].low > off }) - 1
	for j := i; j >= 0 && j > i-16; j-- {
		if off < s.subs[j].high {
			return &s.subs[j]
		}
	}
	return nil
}

// DWARF returns the module's DWARF, read from its .debug_* custom sections,
// or nil when it has no .debug_info. debug/dwarf reports malformed input as
// errors, but it is third-party-grade parsing of untrusted bytes, so a panic
// is turned into an error too.
func (m *Module) DWARF() (d *dwarf.Data, err error) {
	sec := map[string][]byte{}
	for _, c := range m.Customs {
		switch c.Name {
		case ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".debug_line_str",
			".debug_ranges", ".debug_rnglists", ".debug_str_offsets", ".debug_addr":
			if _, dup := sec[c.Name]; !dup {
				sec[c.Name] = c.Data
			}
		}
	}
	if len(sec[".debug_info"]) == 0 {
		return nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("wasmcore: DWARF: %v", p)
		}
	}()
	d, err = dwarf.New(sec[".debug_abbrev"], nil, nil, sec[".debug_info"], sec[".debug_line"], nil, sec[".debug_ranges"], sec[".debug_str"])
	if err != nil {
		return nil, fmt.Errorf("wasmcore: DWARF: %w", err)
	}
	for _, name := range []string{".debug_line_str", ".debug_rnglists", ".debug_str_offsets", ".debug_addr"} {
		if b := sec[name]; len(b) > 0 {
			if err := d.AddSection(name, b); err != nil {
				return nil, fmt.Errorf("wasmcore: DWARF: %s: %w", name, err)
			}
		}
	}
	return d, nil
}

// loadDWARF reads subprograms and line tables. debug/dwarf reports
// malformed input as errors, but it is third-party-grade parsing of
// untrusted bytes, so a panic is turned into an error too.
func (s *Symbolizer) loadDWARF(m *Module) (err error) {
	d, err := m.DWARF()
	if d == nil || err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("wasmcore: DWARF: %v", p)
		}
	}()
	codeSize := uint64(0)
	if m.src != nil && m.src.secs[SectionCode].present {
		codeSize = uint64(m.src.secs[SectionCode].end - m.src.codePayload)
	}
	// Dead code keeps DWARF with tombstone addresses: 0 (older LLVM) or
	// -1/-2 (newer). No function starts at code offset 0 (the function
	// count comes first), so an address must be in (0, codeSize).
	live := func(a uint64) bool { return a > 0 && (codeSize == 0 || a < codeSize) }

	fileIdx := map[string]int32{}
	seenLines := map[int64]bool{}
	r := d.Reader()
	for n := 0; ; n++ {
		if n > maxDWARFEntries {
			return errors.New("wasmcore: DWARF: too many entries")
		}
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("wasmcore: DWARF: .debug_info: %w", err)
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit:
			if off, ok := e.Val(dwarf.AttrStmtList).(int64); ok && !seenLines[off] {
				seenLines[off] = true
				if err := s.readLines(d, e, live, fileIdx); err != nil {
					return err
				}
			}
		case dwarf.TagSubprogram:
			ranges, err := d.Ranges(e)
			if err != nil || len(ranges) == 0 {
				continue
			}
			name := subprogramName(d, e)
			if name == "" {
				continue
			}
			for _, rg := range ranges {
				if live(rg[0]) && rg[1] > rg[0] {
					s.subs = append(s.subs, subprogram{low: rg[0], high: rg[1], name: name})
				}
			}
		}
	}
	slices.SortStableFunc(s.subs, func(a, b subprogram) int {
		if a.low != b.low {
			if a.low < b.low {
				return -1
			}
			return 1
		}
		return 0
	})
	// End markers sort before starts at the same address, so that a
	// sequence starting where another ends is found.
	slices.SortStableFunc(s.rows, func(a, b lineRow) int {
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		case a.line < 0 && b.line >= 0:
			return -1
		case a.line >= 0 && b.line < 0:
			return 1
		}
		return 0
	})
	for _, sp := range s.subs {
		if idx, ok := s.FuncAt(sp.low); ok {
			if _, dup := s.dwarfNames[idx]; !dup {
				s.dwarfNames[idx] = sp.name
			}
		}
	}
	s.hasDWARF = len(s.subs) > 0 || len(s.rows) > 0
	return nil
}

// readLines appends the line table of one compile unit to s.rows, dropping
// sequences of dead code.
func (s *Symbolizer) readLines(d *dwarf.Data, cu *dwarf.Entry, live func(uint64) bool, fileIdx map[string]int32) error {
	lr, err := d.LineReader(cu)
	if err != nil {
		return fmt.Errorf("wasmcore: DWARF: .debug_line: %w", err)
	}
	if lr == nil {
		return nil
	}
	var seq []lineRow
	var entry dwarf.LineEntry
	for {
		if err := lr.Next(&entry); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("wasmcore: DWARF: .debug_line: %w", err)
		}
		if len(s.rows)+len(seq) > maxLineRows {
			return errors.New("wasmcore: DWARF: .debug_line: too many rows")
		}
		if entry.EndSequence {
			if len(seq) > 0 && live(seq[0].addr) {
				s.rows = append(s.rows, seq...)
				s.rows = append(s.rows, lineRow{addr: entry.Address, line: -1})
			}
			seq = seq[:0]
			continue
		}
		name := ""
		if entry.File != nil {
			name = entry.File.Name
		}
		fi, ok := fileIdx[name]
		if !ok {
			fi = int32(len(s.files))
			s.files = append(s.files, name)
			fileIdx[name] = fi
		}
		seq = append(seq, lineRow{addr: entry.Address, file: fi, line: int32(min(entry.Line, 1<<31-1))})
	}
}

// subprogramName returns a subprogram's name, following
// DW_AT_specification and DW_AT_abstract_origin (a few levels at most:
// malformed DWARF can make them loop).
func subprogramName(d *dwarf.Data, e *dwarf.Entry) string {
	r := d.Reader()
	for depth := 0; depth < 4 && e != nil; depth++ {
		if n, ok := e.Val(dwarf.AttrName).(string); ok && n != "" {
			return n
		}
		if n, ok := e.Val(dwarf.AttrLinkageName).(string); ok && n != "" {
			return n
		}
		off, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		if !ok {
			if off, ok = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); !ok {
				return ""
			}
		}
		r.Seek(off)
		var err error
		if e, err = r.Next(); err != nil {
			return ""
		}
	}
	return ""
}
