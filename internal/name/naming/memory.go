package naming

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf16"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// The engine's function-bytecode object (JSFunctionBytecode) holds the
// function's name atom, its file name atom, its first line and column and
// its pc → line table. Its layout differs between releases and builds and
// the modules carry no DWARF for it, so the namer calibrates it: on the
// functions matched without doubt, it looks for the word offsets where
// every object holds what the serialized function says (the same line,
// the same column, the runtime atom of the same name, a pointer to the
// same pc → line bytes). An offset is used only when exactly one offset
// agrees on every sample and the samples show several distinct values.
//
// Runtime atoms are resolved through the runtime's atom array
// (rt->atom_array: pointers to JSString), found the same way: the array
// whose entries point at the strings of atoms whose numbers are known
// (builtin atoms, and program atoms whose runtime numbers the matches
// showed).

// memLayout is what calibration found; -1 marks an unknown offset.
type memLayout struct {
	buf, length      int // byte_code_buf, byte_code_len
	name, file       int // func_name, filename atoms
	line, column     int
	pc2line, pc2col  int // pointers to the tables
	pc2lineLen       int
	pc2colLen        int
	atomArray        uint32 // address of rt->atom_array[0], 0 when not found
	strChars         uint32 // offset of a JSString's characters
	atomArrayChecked bool
}

// Calibration limits.
const (
	maxObjectBytes  = 256 // of a function-bytecode object searched for fields
	minSamples      = 3   // functions a field offset must agree on
	jsStringLen     = 4   // offset of a JSString's len:31, is_wide_char:1 word (after ref_count)
	maxAtomString   = 1 << 10
	maxAtomSearches = 8 // strings tried when searching the atom array
	// matched functions calibration reads (evenly spread over them)
	maxCalibrationSamples = 256
	maxAtomArrays         = 16 // copies of the atom array considered
)

// sample is a matched function with the words of its object.
type sample struct {
	f     costs.FunctionCost
	fn    *bytecode.Function
	words []uint32
}

func (n *Namer) word(addr uint32) (uint32, bool) {
	b, ok := n.mem.Read(addr, 4)
	if !ok || len(b) < 4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), true
}

// objectWords reads the words of f's function-bytecode object, up to its
// bytecode buffer (QuickJS allocates the buffer right after the object and
// its tables) or maxObjectBytes.
func (n *Namer) objectWords(f costs.FunctionCost) []uint32 {
	if f.Bytecode == 0 || f.Address <= f.Bytecode {
		return nil
	}
	size := min(f.Address-f.Bytecode, maxObjectBytes) &^ 3
	b, ok := n.mem.Read(f.Bytecode, size)
	if !ok {
		return nil
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// findOffset returns the one byte offset whose word passes the check in
// the samples it applies to — all of them but a tenth at most (a function
// compiled at run time can look like a program function) — with at least
// minSamples agreeing and, when distinct is given, minDistinct distinct
// values among them; -1 when no offset or several do.
func findOffset(ss []sample, check func(s sample, w uint32) (applies, ok bool), distinct func(s sample) uint32, minDistinct int) int {
	found := -1
	maxWords := 0
	for _, s := range ss {
		maxWords = max(maxWords, len(s.words))
	}
	for k := 0; k < maxWords; k++ {
		if agree, disagree, seen := tally(ss, k, check, distinct); !trusted(agree, disagree, minSamples) || seen < minDistinct {
			continue
		}
		if found >= 0 {
			return -1 // two offsets agree: neither can be trusted
		}
		found = 4 * k
	}
	return found
}

// tally counts the samples whose word k passes and fails the check, and
// the distinct values among those that pass.
func tally(ss []sample, k int, check func(s sample, w uint32) (applies, ok bool), distinct func(s sample) uint32) (agree, disagree, seen int) {
	vals := map[uint32]bool{}
	for _, s := range ss {
		if k >= len(s.words) {
			continue
		}
		applies, ok := check(s, s.words[k])
		switch {
		case !applies:
		case ok:
			agree++
			if distinct != nil {
				vals[distinct(s)] = true
			}
		default:
			disagree++
		}
	}
	return agree, disagree, len(vals)
}

// trusted: enough samples agree and at most a tenth disagree.
func trusted(agree, disagree, min int) bool {
	return agree >= min && disagree*10 <= agree+disagree
}

// calibrate finds the layout from the unambiguous matches. Offsets the
// samples cannot establish on their own (too few matched functions, as in
// a program that compiles most of its code at run time) are taken from
// the layout known for the engine's release, if most samples agree with
// it.
func (n *Namer) calibrate(ms []matchedFunc) *memLayout {
	if len(ms) > maxCalibrationSamples {
		// Every matched function's object has the one layout: a few hundred,
		// spread over the program, establish it as well as 50,000 do, in a
		// hundredth of the time.
		spread := make([]matchedFunc, maxCalibrationSamples)
		for i := range spread {
			spread[i] = ms[i*len(ms)/maxCalibrationSamples]
		}
		ms = spread
	}
	var ss []sample
	for _, m := range ms {
		if w := n.objectWords(m.f); len(w) > 0 {
			ss = append(ss, sample{f: m.f, fn: m.fn, words: w})
		}
	}
	l := &memLayout{buf: -1, length: -1, name: -1, file: -1, line: -1, column: -1, pc2line: -1, pc2col: -1, pc2lineLen: -1, pc2colLen: -1}
	n.layout = l
	if len(ss) == 0 {
		return l
	}
	var format bytecode.Format
	if n.prog != nil {
		format = n.prog.Format
	}
	known, hasKnown := knownLayout(n.engine.TableID, format)
	type check func(s sample, w uint32) (applies, ok bool)
	// set calibrates one field: the one offset every sample agrees on, or
	// the known one if the samples do not contradict it.
	set := func(dst *int, c check, distinct func(s sample) uint32, minDistinct int, knownOff int) {
		if off := findOffset(ss, c, distinct, minDistinct); off >= 0 {
			*dst = off
			return
		}
		if !hasKnown || knownOff < 0 {
			return
		}
		// The known offset needs only a majority of the samples: one
		// function compiled at run time among three matched ones must
		// not hide it.
		if agree, disagree, _ := tally(ss, knownOff/4, c, nil); agree > disagree {
			*dst = knownOff
		}
	}
	eq := func(get func(s sample) (uint32, bool)) check {
		return func(s sample, w uint32) (bool, bool) {
			v, ok := get(s)
			return ok, w == v
		}
	}
	val := func(get func(s sample) (uint32, bool)) func(s sample) uint32 {
		return func(s sample) uint32 { v, _ := get(s); return v }
	}
	field := func(dst *int, get func(s sample) (uint32, bool), minDistinct, knownOff int) {
		set(dst, eq(get), val(get), minDistinct, knownOff)
	}
	debug := func(get func(fn *bytecode.Function) uint32) func(s sample) (uint32, bool) {
		return func(s sample) (uint32, bool) { return get(s.fn), s.fn.HasDebug }
	}
	field(&l.buf, func(s sample) (uint32, bool) { return s.f.Address, true }, 2, known.buf)
	field(&l.length, func(s sample) (uint32, bool) { return s.f.Length, true }, 2, known.length)
	field(&l.line, debug(func(fn *bytecode.Function) uint32 { return uint32(fn.RawLine) }), 2, known.line)
	field(&l.column, debug(func(fn *bytecode.Function) uint32 { return uint32(fn.RawColumn) }), 2, known.column)
	field(&l.name, func(s sample) (uint32, bool) { return n.runtimeAtomOf(s.fn.NameAtom) }, 2, known.name)
	tab := func(ptr, length *int, raw func(fn *bytecode.Function) []byte, knownPtr, knownLen int) {
		set(ptr, func(s sample, w uint32) (bool, bool) {
			b := raw(s.fn)
			if len(b) == 0 {
				return false, false
			}
			got, ok := n.mem.Read(w, uint32(len(b)))
			return true, ok && bytes.Equal(got, b)
		}, nil, 0, knownPtr)
		field(length, func(s sample) (uint32, bool) {
			b := raw(s.fn)
			return uint32(len(b)), len(b) > 0
		}, 2, knownLen)
	}
	tab(&l.pc2line, &l.pc2lineLen, func(fn *bytecode.Function) []byte { return fn.RawPC2Line }, known.pc2line, known.pc2lineLen)
	if n.prog != nil && n.prog.Format == bytecode.FormatColumns {
		tab(&l.pc2col, &l.pc2colLen, func(fn *bytecode.Function) []byte { return fn.RawPC2Column }, known.pc2col, known.pc2colLen)
	}
	// The file name is one atom for the whole program, whose runtime
	// number no bytecode operand shows: its string is compared instead.
	set(&l.file, func(s sample, w uint32) (bool, bool) {
		if !s.fn.HasDebug || s.fn.File == "" {
			return false, false
		}
		got, ok := n.atomString(w)
		return true, ok && got == s.fn.File
	}, nil, 0, known.file)
	return l
}

// knownLayout returns the function-bytecode object layout of an engine
// checked on a real one (wasm32), by opcode table and debug encoding, from
// the release registry (bytecode.MemoryOf): what calibration finds on it,
// used where a run matches too few functions to calibrate, and only where
// the run's samples agree with it.
func knownLayout(tableID string, format bytecode.Format) (memLayout, bool) {
	m, ok := bytecode.MemoryOf(tableID, format)
	if !ok {
		return memLayout{}, false
	}
	return memLayout{buf: m.Buf, length: m.Length, name: m.Name, file: m.File, line: m.Line, column: m.Column,
		pc2lineLen: m.PC2LineLen, pc2line: m.PC2Line, pc2colLen: m.PC2ColLen, pc2col: m.PC2Col}, true
}

// knownFromMeter is the engine's known layout (knownLayout), and the
// serialization variant of its pc → line tables, for a run with no
// function matched to calibrate on, in whichever variant the engine's
// table has one for, if the measured functions'
// objects agree with it: their buffer pointer and length words are what
// the meter found (more agree than not, at least two).
func (n *Namer) knownFromMeter(fs []costs.FunctionCost) (memLayout, bytecode.Format, bool) {
	if n.prog != nil && n.prog.Format != bytecode.FormatUnknown {
		return memLayout{}, 0, false // calibration had its chance
	}
	for _, format := range []bytecode.Format{bytecode.FormatNG, bytecode.FormatColumns, bytecode.FormatLines} {
		l, ok := knownLayout(n.engine.TableID, format)
		if !ok {
			continue
		}
		agree, disagree := 0, 0
		for _, f := range fs {
			if f.Bytecode == 0 || f.Length == 0 {
				continue
			}
			b, ok1 := n.word(f.Bytecode + uint32(l.buf))
			k, ok2 := n.word(f.Bytecode + uint32(l.length))
			if ok1 && ok2 && b == f.Address && k == f.Length {
				agree++
			} else {
				disagree++
			}
		}
		if agree >= 2 && agree > disagree {
			return l, format, true
		}
	}
	return memLayout{}, 0, false
}

// runtimeAtomOf returns the runtime atom of a serialized atom reference,
// when the engine keeps it (builtin atoms) or the matches showed it.
func (n *Namer) runtimeAtomOf(ref uint32) (uint32, bool) {
	if n.prog == nil {
		return 0, false
	}
	if ref == 0 {
		return 0, true
	}
	if v, ok := n.prog.RuntimeAtom(ref); ok {
		return v, true
	}
	v, ok := n.atoms[ref]
	return v, ok
}

// live says whether f's function-bytecode object still describes f: its
// buffer pointer and length (when calibrated) are f's.
func (n *Namer) live(f costs.FunctionCost) bool {
	l := n.layout
	if l == nil || f.Bytecode == 0 || l.buf < 0 {
		return false
	}
	if v, ok := n.word(f.Bytecode + uint32(l.buf)); !ok || v != f.Address {
		return false
	}
	if l.length >= 0 {
		if v, ok := n.word(f.Bytecode + uint32(l.length)); !ok || v != f.Length {
			return false
		}
	}
	// The engine may have freed f and put another function of the same
	// length in its place, object and buffer (costs.FunctionCost.Generation).
	return f.Code == nil || n.holds(f)
}

// holds says whether f's buffer still holds the code the meter saw.
func (n *Namer) holds(f costs.FunctionCost) bool {
	b, ok := n.mem.Read(f.Address, uint32(len(f.Code)))
	return ok && bytes.Equal(b, f.Code)
}

// contradicts says whether the engine's object of f, still live, holds a
// line, column or file other than fn's.
func (n *Namer) contradicts(f costs.FunctionCost, fn *bytecode.Function) bool {
	l := n.layout
	if l == nil || !n.live(f) || !fn.HasDebug {
		return false
	}
	if l.line >= 0 {
		if v, ok := n.word(f.Bytecode + uint32(l.line)); ok && v != uint32(fn.RawLine) {
			return true
		}
	}
	if l.column >= 0 {
		if v, ok := n.word(f.Bytecode + uint32(l.column)); ok && v != uint32(fn.RawColumn) {
			return true
		}
	}
	if l.file >= 0 {
		if a, ok := n.word(f.Bytecode + uint32(l.file)); ok {
			if s, ok := n.atomString(a); ok && s != fn.File {
				return true
			}
		}
	}
	return false
}

// settleByMemory picks, among identical candidates, the one whose line,
// column and name the engine's object of f holds; nil when that does not
// leave exactly one.
func (n *Namer) settleByMemory(f costs.FunctionCost, fns []*bytecode.Function) *bytecode.Function {
	l := n.layout
	if n.mem == nil || l == nil || (l.line < 0 && l.name < 0) || !n.live(f) {
		return nil
	}
	get := func(off int) (uint32, bool) {
		if off < 0 {
			return 0, false
		}
		return n.word(f.Bytecode + uint32(off))
	}
	line, hasLine := get(l.line)
	col, hasCol := get(l.column)
	name, hasName := get(l.name)
	var kept []*bytecode.Function
	for _, fn := range fns {
		if hasLine && (!fn.HasDebug || uint32(fn.RawLine) != line) {
			continue
		}
		if hasCol && (!fn.HasDebug || uint32(fn.RawColumn) != col) {
			continue
		}
		if hasName {
			if want, ok := n.runtimeAtomOf(fn.NameAtom); ok && want != name {
				continue
			}
		}
		kept = append(kept, fn)
	}
	if len(kept) == 1 {
		return kept[0]
	}
	return nil
}

// fromMemory describes a function that matches nothing of the program (a
// function compiled at run time) from the engine's object: its name, file,
// line and column, and its pc → line table.
func (n *Namer) fromMemory(f costs.FunctionCost) (FunctionInfo, bool) {
	l := n.layout
	if n.mem == nil || l == nil || !n.live(f) || (l.line < 0 && l.name < 0) {
		return FunctionInfo{}, false
	}
	get := func(off int) (uint32, bool) {
		if off < 0 {
			return 0, false
		}
		return n.word(f.Bytecode + uint32(off))
	}
	info := FunctionInfo{Source: SourceMemory}
	named := false
	if a, ok := get(l.name); ok {
		if a == 0 {
			info.Name, named = bytecode.AnonymousName, true
		} else if s, ok := n.atomString(a); ok {
			info.Name, named = s, true
		}
	}
	if !named {
		info.Name = fmt.Sprintf("anonymous@%#x", f.Address)
	}
	if a, ok := get(l.file); ok && a != 0 {
		info.File, _ = n.atomString(a)
	}
	line, hasLine := get(l.line)
	col, hasCol := get(l.column)
	if hasLine {
		info.Line = int(line)
		if hasCol {
			info.Column = int(col)
			if n.prog != nil && n.prog.Format == bytecode.FormatColumns {
				info.Column++
			}
		}
		if lines := n.memLines(f, int(line), int(col)); lines != nil {
			info.Candidates = nil
			info.Function = nil
			if n.lines == nil {
				n.lines = map[funcKey][]bytecode.PCLine{}
			}
			n.lines[keyOf(f)] = lines
		}
	}
	return info, true
}

// memLines decodes the pc → line table of f's object, nil when the table
// could not be located or read.
func (n *Namer) memLines(f costs.FunctionCost, line, col int) []bytecode.PCLine {
	l := n.layout
	format := n.memFormat
	if n.prog != nil {
		format = n.prog.Format
	}
	if format == bytecode.FormatUnknown || l.pc2line < 0 || l.pc2lineLen < 0 {
		return nil
	}
	read := func(ptrOff, lenOff int) ([]byte, bool) {
		ptr, ok1 := n.word(f.Bytecode + uint32(ptrOff))
		size, ok2 := n.word(f.Bytecode + uint32(lenOff))
		if !ok1 || !ok2 || size > bytecode.MaxInput {
			return nil, false
		}
		if size == 0 {
			return nil, true
		}
		b, ok := n.mem.Read(ptr, size)
		return b, ok
	}
	tab, ok := read(l.pc2line, l.pc2lineLen)
	if !ok {
		return nil
	}
	var colTab []byte
	if format == bytecode.FormatColumns {
		if l.pc2col < 0 || l.pc2colLen < 0 {
			return nil
		}
		if colTab, ok = read(l.pc2col, l.pc2colLen); !ok {
			return nil
		}
	}
	lines, _, err := bytecode.DecodeLines(format, line, col, tab, colTab)
	if err != nil {
		return nil
	}
	return lines
}

// atomString returns the string of a runtime atom.
func (n *Namer) atomString(a uint32) (string, bool) {
	if a&0x80000000 != 0 {
		return strconv.FormatUint(uint64(a&0x7fffffff), 10), true
	}
	if int(a) < len(n.engine.Atoms) {
		return n.engine.Atoms[a], true
	}
	if n.prog != nil {
		if ref, ok := n.atomsBack[a]; ok {
			return n.prog.Atoms[ref-n.prog.FirstAtom], true
		}
	}
	arr := n.atomArray()
	if arr == 0 {
		return "", false
	}
	p, ok := n.word(arr + 4*a)
	if !ok || p == 0 || p&3 != 0 { // a free slot holds an odd index
		return "", false
	}
	return n.jsString(p, n.layout.strChars)
}

// jsString reads a JSString whose characters start at chars.
func (n *Namer) jsString(p, chars uint32) (string, bool) {
	jsStringChars := chars
	hdr, ok := n.word(p + jsStringLen)
	if !ok {
		return "", false
	}
	length, wide := hdr&0x7fffffff, hdr>>31 != 0
	if length > maxAtomString {
		return "", false
	}
	if !wide {
		b, ok := n.mem.Read(p+jsStringChars, length)
		if !ok {
			return "", false
		}
		return bytecode.Latin1(b), true
	}
	b, ok := n.mem.Read(p+jsStringChars, 2*length)
	if !ok {
		return "", false
	}
	u := make([]uint16, length)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// knownAtom is a runtime atom whose string is known.
type knownAtom struct {
	atom uint32
	s    string
}

// knownAtoms lists the atoms to find the atom array with: the engine's
// builtin atoms of 8 characters or more (they are never freed and occur
// rarely in memory) or, without them, program atoms the matches placed.
func (n *Namer) knownAtoms() []knownAtom {
	var out []knownAtom
	for a, s := range n.engine.Atoms {
		if len(s) >= 8 && isASCII(s) {
			out = append(out, knownAtom{uint32(a), s})
		}
	}
	if len(out) >= minSamples || n.prog == nil {
		return out
	}
	for r, ref := range n.atomsBack {
		if s := n.prog.Atoms[ref-n.prog.FirstAtom]; len(s) >= 4 && isASCII(s) {
			out = append(out, knownAtom{r, s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].atom < out[j].atom })
	return out
}

// atomArray finds rt->atom_array once: an array whose entries, for every
// atom of known string, point at a JSString holding that string.
func (n *Namer) atomArray() uint32 {
	l := n.layout
	if l == nil || n.mem == nil {
		return 0
	}
	if l.atomArrayChecked {
		return l.atomArray
	}
	l.atomArrayChecked = true
	sizer, ok := n.mem.(interface{ Size() uint32 })
	if !ok {
		return 0
	}
	all, ok := n.mem.Read(0, sizer.Size())
	if !ok {
		return 0
	}
	known := n.knownAtoms()
	if len(known) < minSamples {
		return 0
	}
	check := func(arr, chars uint32) bool {
		good := 0
		for _, k := range known {
			a, s := k.atom, k.s
			p, ok := n.word(arr + 4*a)
			if !ok {
				return false
			}
			got, ok := n.jsString(p, chars)
			if !ok || got != s {
				return false
			}
			good++
		}
		return good >= minSamples
	}
	// Every copy of the array (the engine reallocates it as it grows,
	// and freed copies stay in memory) points at the same strings.
	cands := map[uint32]uint32{}       // array → character offset
	type target struct{ chars uint32 } // a string's header, for one layout
	regions := touchedRegions(all)
	for i, k := range known {
		if i >= maxAtomSearches || len(cands) > 0 {
			break
		}
		a, s := k.atom, k.s
		needle := append([]byte(s), 0)
		// Every place the string could start, for each layout, first; then
		// one pass over memory for the words pointing at any of them: the
		// memory may be gigabytes (a module's minimum), read once per
		// known atom rather than once per copy of the string and layout.
		targets := map[uint32][]target{}
		for _, r := range regions {
			for off := r[0]; ; {
				j := bytes.Index(all[off:r[1]], needle)
				if j < 0 {
					break
				}
				at := off + j
				off = at + 1
				n.stringTargets(all, at, uint32(len(s)), func(p, chars uint32) { targets[p] = append(targets[p], target{chars}) })
			}
		}
		if len(targets) == 0 {
			continue
		}
		// Most words point nowhere near a target: a range test spares
		// them the map lookup.
		lo, hi := uint32(math.MaxUint32), uint32(0)
		for p := range targets {
			lo, hi = min(lo, p), max(hi, p)
		}
		for _, r := range regions {
			for w := r[0] &^ 3; w+4 <= r[1] && len(cands) < maxAtomArrays; w += 4 {
				v := binary.LittleEndian.Uint32(all[w:])
				if v < lo || v > hi {
					continue
				}
				ts, ok := targets[v]
				if !ok || uint32(w) < 4*a {
					continue
				}
				for _, t := range ts {
					if arr := uint32(w) - 4*a; check(arr, t.chars) {
						cands[arr] = t.chars
					}
				}
			}
		}
	}
	// The runtime points at its current array; freed copies are not
	// pointed at (or only by stale memory: then the program atoms the
	// matches placed decide).
	referenced := map[uint32]bool{}
	lo, hi := uint32(math.MaxUint32), uint32(0)
	for arr := range cands {
		lo, hi = min(lo, arr), max(hi, arr)
	}
	for _, r := range regions {
		if len(cands) == 0 {
			break
		}
		for w := r[0] &^ 3; w+4 <= r[1]; w += 4 {
			v := binary.LittleEndian.Uint32(all[w:])
			if v < lo || v > hi {
				continue
			}
			if _, ok := cands[v]; ok {
				referenced[v] = true
			}
		}
	}
	best, bestScore, tie := uint32(0), -1, false
	for arr, chars := range cands {
		if !referenced[arr] {
			continue
		}
		score := 0
		if n.prog != nil {
			for r, ref := range n.atomsBack {
				if p, ok := n.word(arr + 4*r); ok && p&3 == 0 {
					if got, ok := n.jsString(p, chars); ok && got == n.prog.Atoms[ref-n.prog.FirstAtom] {
						score++
					}
				}
			}
		}
		switch {
		case score > bestScore:
			best, bestScore, tie = arr, score, false
		case score == bestScore:
			tie = true
		}
	}
	if bestScore < 0 || tie {
		return 0
	}
	l.atomArray, l.strChars = best, cands[best]
	return best
}

// stringTargets calls found with each place a JSString of length n whose
// characters start at at could begin, one per engine layout: its
// characters follow ref_count, len|wide, hash|atom_type and hash_next
// (Bellard), or a further pointer or two (QuickJS-NG's first_weak_ref).
func (n *Namer) stringTargets(all []byte, at int, length uint32, found func(p, chars uint32)) {
	for _, chars := range [...]uint32{16, 20, 24} {
		if at < int(chars) {
			continue
		}
		p := uint32(at) - chars
		if binary.LittleEndian.Uint32(all[p+jsStringLen:]) != length {
			continue
		}
		found(p, chars)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
