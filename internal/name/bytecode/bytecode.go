package bytecode

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/jsprof/jsprof/dispatch"
)

// Program is the parsed serialized bytecode (JS_WriteObject output) of one
// compiled JS module or script.
type Program struct {
	// Functions are every function of the program, nested ones included,
	// in file order: by first line and column, the enclosing function
	// before the functions it defines when they start at the same place.
	Functions []*Function
	// Format is the coarse variant of the debug encoding the bytes were
	// read as (how lines and columns are kept).
	Format Format
	// Layout is the serialization layout the bytes were read as.
	Layout *Layout
	// Version is the version byte the serialization starts with.
	Version byte
	// Module is the module record when the program is a module (Javy
	// compiles every program as the module function.mjs), nil for a script.
	Module *ModuleInfo
	// Atoms are the program's own atoms (the atom table of the
	// serialization), in table order.
	Atoms []string
	// FirstAtom is the engine's first non-builtin atom (JS_ATOM_END): atom
	// references below it name the engine's builtin atoms.
	FirstAtom uint32

	builtin    []string          // the engine's builtin atoms, when known
	constAtoms map[uint32]uint32 // NG atom table entries that are builtin atoms: index → atom
}

// ModuleInfo is what the serialized module record says besides its code.
type ModuleInfo struct {
	Name     string   // module name, e.g. "function.mjs"
	Requires []string // module specifiers imported from
	Exports  []string // exported names
	HasTLA   bool     // uses top-level await
}

// Function is one serialized function (a JSFunctionBytecode).
type Function struct {
	// Name is the function's name as the engine stores it (func_name):
	// "" for anonymous functions, and for class constructors, methods,
	// accessors and arrow functions, which the engine names at run time
	// (Definition has that name; DisplayName combines both). The module's
	// top level is "<eval>".
	Name string
	// NameUnresolved: the name is one of the engine's builtin atoms and
	// their strings were not available (EngineSpec.Atoms empty); Name is
	// then "" and NameAtom says which atom it is.
	NameUnresolved bool
	NameAtom       uint32 // the serialized atom reference of the name (0: none)
	File           string // source file name, e.g. "function.mjs"; "" without debug info
	// Line and Column are the function's first line and column, both
	// 1-based; 0 when the function carries no debug information.
	Line, Column int
	// Code is the serialized bytecode: equal to the runtime buffer except
	// for atom operands, which the engine renumbers when it loads it.
	Code []byte
	// Lines maps pcs to lines and columns, sorted by PC; entry i holds
	// for the pcs from Lines[i].PC up to the next entry's. Empty without
	// debug information.
	Lines []PCLine
	// Source is the function's source text when the serialization
	// carries it (QuickJS-NG does), "" otherwise.
	Source string

	Kind                    FunctionKind
	Strict                  bool
	HasPrototype            bool // a constructor (function declarations and expressions)
	DerivedClassConstructor bool
	NeedHomeObject          bool // a method (uses super or is a class/object method)
	ArgCount, VarCount      int
	DefinedArgCount         int
	StackSize               int
	Vars                    []Var        // arguments then locals
	ClosureVars             []ClosureVar // variables captured from enclosing functions
	Constants               []Constant   // the constant pool
	Parent                  *Function    // the function whose constant pool holds this one
	Children                []*Function  // functions of the constant pool, in pool order
	Index                   int          // position in Program.Functions
	Offset                  int          // offset of the function's tag in the serialized bytes
	HasDebug                bool
	// Definition is how the enclosing function defines this one: the
	// name, class and kind the engine gives it at run time.
	Definition Definition
	// The debug fields as serialized: the engine keeps them so in memory,
	// where package naming matches them to name runtime functions.
	RawLine, RawColumn int
	RawPC2Line         []byte // the pc → line table
	RawPC2Column       []byte // FormatColumns: the pc → column table
	// VarRefCount is var_ref_count, in the layouts that write it.
	VarRefCount int
	// AtomOps are Code's atom operands, which the engine renumbers on
	// loading: matching a runtime buffer to Code skips them.
	AtomOps  []AtomOperand
	fileAtom uint32 // the serialized atom reference of File
}

// FunctionKind is the kind of a function (QuickJS func_kind).
type FunctionKind int

// Function kinds.
const (
	KindNormal FunctionKind = iota
	KindGenerator
	KindAsync
	KindAsyncGenerator
)

func (k FunctionKind) String() string {
	switch k {
	case KindNormal:
		return "function"
	case KindGenerator:
		return "generator"
	case KindAsync:
		return "async function"
	case KindAsyncGenerator:
		return "async generator"
	}
	return "kind " + strconv.Itoa(int(k))
}

// Var is an argument or local variable of a function.
type Var struct {
	Name      string
	Const     bool
	Lexical   bool
	Captured  bool
	Kind      int // QuickJS JSVarKindEnum
	Scope     int // scope_level
	ScopeNext int
}

// ClosureVar is a variable a function captures.
type ClosureVar struct {
	Name    string
	Index   int  // var_idx: in the parent's variables, or its closure variables
	IsLocal bool // the parent's own variable (else the parent's closure variable)
	IsArg   bool
	Const   bool
	Lexical bool
	Kind    int
}

// Constant is one entry of a function's constant pool.
type Constant struct {
	Kind     string    // "function", "string", "int32", "float64", "bigint", "template", "array", "object", "null", "undefined", "bool"
	Function *Function // Kind "function"
	Value    string    // a short rendering of other kinds
}

// PCLine is the source position of the bytecode from PC on.
type PCLine struct {
	PC           uint32
	Line, Column int // 1-based
}

// AtomOperand is an atom operand of the bytecode: the 4 bytes at Offset.
// AtomOperand is an atom operand of a function's code.
type AtomOperand struct {
	Offset uint32 // of the operand in Code
	Ref    uint32 // the serialized atom reference
}

// Format is the coarse variant of a serialization's debug encoding: how
// a function's line and column and its pc → line table are kept, which is
// what decoding a table (DecodeLines) and reading the engine's objects in
// memory depend on. Layout has the whole serialization layout.
type Format int

// Debug encodings.
const (
	FormatUnknown Format = iota
	// FormatNG: a line and a 1-based column, then a pc → line table whose
	// entries carry column deltas (QuickJS-NG v0.3+).
	FormatNG
	// FormatColumns: a line, a pc → line table, then a 0-based column and
	// a separate pc → column table (rquickjs's patched Bellard QuickJS).
	FormatColumns
	// FormatLines: a line and a pc → line table without columns (Bellard
	// up to 2025-03, QuickJS-NG v0.1-v0.2).
	FormatLines
	// FormatHeader: a pc → line table that starts with the function's
	// 0-based line and column, entries with column deltas (Bellard
	// 2025-04+).
	FormatHeader
)

func (f Format) String() string {
	switch f {
	case FormatNG:
		return "quickjs-ng"
	case FormatColumns:
		return "quickjs-2024-columns"
	case FormatLines:
		return "quickjs-lines"
	case FormatHeader:
		return "quickjs-2025-header"
	}
	return "unknown"
}

// EngineSpec is what the bytecode parser and the namer need to know of the
// engine: its family, its opcodes (sizes and operand formats) and, when
// available, the strings of its builtin atoms.
type EngineSpec struct {
	Family  string // dispatch.FamilyQuickJS or dispatch.FamilyQuickJSNG
	TableID string // the catalog table the opcodes come from
	// Tables are every catalog table the analysis matched (identical
	// opcode_info[] bytes), Releases the releases that shipped them:
	// together with the version byte they choose the Layout.
	Tables   []string
	Releases []string
	// RQuickJS is the rquickjs crate version the engine's module names
	// ("0.6.1"), "" when it names none: rquickjs 0.4-0.6 patch Bellard's
	// serialization (FormatColumns).
	RQuickJS string
	// Opcodes are indexed by opcode value.
	Opcodes []OpcodeSpec
	// Atoms are the engine's builtin atoms, index = atom value (index 0,
	// JS_ATOM_NULL, is ""); len(Atoms) is JS_ATOM_END. Empty when unknown:
	// function names that are builtin atoms (next, constructor, <eval>)
	// are then left unresolved.
	Atoms []string
}

// OpcodeSpec is one opcode: its size in bytes (opcode included), the
// kind of its operand and its stack effect.
type OpcodeSpec struct {
	Name string
	Size int
	Fmt  string // the OP_FMT_ name: "atom", "atom_u8", "label", "u16"...
	// NPop and NPush are the values the opcode pops and pushes, as the
	// engine's opcode_info[] says: the call opcodes (formats npop,
	// npopx, npop_u16) pop their arguments besides NPop.
	NPop, NPush int
}

// isAtomFmt says whether an operand format starts with an atom.
func isAtomFmt(f string) bool {
	switch f {
	case "atom", "atom_u8", "atom_u16", "atom_label_u8", "atom_label_u16":
		return true
	}
	return false
}

// EngineSpecFor derives the engine's description from the dispatch
// analysis: the family, and the opcodes of the first matched catalog table.
// The builtin atoms are not in the report: see EngineSpecForModule.
func EngineSpecFor(r *dispatch.Report) (EngineSpec, error) {
	if r == nil {
		return EngineSpec{}, errors.New("bytecode: no analysis")
	}
	e := r.Engine
	if e.Family != dispatch.FamilyQuickJS && e.Family != dispatch.FamilyQuickJSNG {
		return EngineSpec{}, fmt.Errorf("bytecode: engine family %q: not a QuickJS engine", e.Family)
	}
	if len(e.Tables) == 0 {
		return EngineSpec{}, errors.New("bytecode: the analysis matched no opcode table, so opcode sizes are unknown")
	}
	t, ok := dispatch.OpcodeTable(e.Tables[0].ID)
	if !ok {
		return EngineSpec{}, fmt.Errorf("bytecode: opcode table %s is not in the catalog", e.Tables[0].ID)
	}
	spec := EngineSpec{Family: e.Family, TableID: t.ID, Releases: slices.Clone(e.Releases)}
	for _, tr := range e.Tables {
		spec.Tables = append(spec.Tables, tr.ID)
	}
	for _, d := range t.Opcodes {
		spec.Opcodes = append(spec.Opcodes, OpcodeSpec{Name: d.Name, Size: d.Size, Fmt: t.FormatName(d), NPop: d.NPop, NPush: d.NPush})
	}
	if e.OpcodeCount > 0 && e.OpcodeCount != len(spec.Opcodes) {
		return EngineSpec{}, fmt.Errorf("bytecode: the engine has %d opcodes, table %s %d", e.OpcodeCount, t.ID, len(spec.Opcodes))
	}
	return spec, nil
}

// Limits of what Parse accepts, so that hostile input cannot make
// it allocate without bound or recurse without bound.
const (
	MaxInput         = 1 << 28 // bytes of serialized input
	maxNesting       = 200     // objects within objects (QuickJS functions nest through constant pools)
	maxFunctions     = 1 << 20
	maxConstantRunes = 64 // of a string constant kept in Constant.Value
)

// ParseError is an error in the serialized bytecode, at a byte offset.
type ParseError struct {
	Offset int
	Msg    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("bytecode: offset %#x: %s", e.Offset, e.Msg)
}

// Parse parses the serialized bytecode of a program (what Javy's
// compile step produces and a static Javy module carries in a data
// segment). The engine supplies opcode sizes; its Atoms, if any, name
// builtin atoms. It never panics; an error names the offset where the
// bytes stopped making sense. Allocation stays within a small multiple of
// len(b).
func Parse(b []byte, engine EngineSpec) (*Program, error) {
	if len(b) > MaxInput {
		return nil, fmt.Errorf("bytecode: %d bytes, more than the %d accepted", len(b), MaxInput)
	}
	if len(engine.Opcodes) == 0 {
		return nil, errors.New("bytecode: the engine's opcodes are unknown")
	}
	p := &parser{r: reader{b: b}, engine: engine}
	prog, err := p.parse()
	if err != nil {
		return nil, err
	}
	return prog, nil
}

// ParseLayout is Parse in a given layout, whatever the engine's release
// says: for tests and for callers that know better than the analysis.
func ParseLayout(b []byte, engine EngineSpec, layout *Layout) (*Program, error) {
	if layout == nil {
		return nil, errors.New("bytecode: no layout")
	}
	if len(b) > MaxInput {
		return nil, fmt.Errorf("bytecode: %d bytes, more than the %d accepted", len(b), MaxInput)
	}
	if len(engine.Opcodes) == 0 {
		return nil, errors.New("bytecode: the engine's opcodes are unknown")
	}
	p := &parser{r: reader{b: b}, engine: engine, layout: layout}
	return p.parse()
}

// reader reads QuickJS's serialization primitives with bounds checks.
type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(format string, args ...any) error {
	return &ParseError{Offset: r.off, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) u8() (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.fail("unexpected end of input")
	}
	v := r.b[r.off]
	r.off++
	return v, nil
}

func (r *reader) u16() (uint16, error) {
	if r.remaining() < 2 {
		return 0, r.fail("unexpected end of input")
	}
	v := uint16(r.b[r.off]) | uint16(r.b[r.off+1])<<8
	r.off += 2
	return v, nil
}

func (r *reader) u32() (uint32, error) {
	if r.remaining() < 4 {
		return 0, r.fail("unexpected end of input")
	}
	v := le32(r.b[r.off:])
	r.off += 4
	return v, nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// leb reads an unsigned LEB128 of at most 5 bytes, as QuickJS's
// get_leb128 does.
func (r *reader) leb() (uint32, error) {
	v, n, ok := getLEB(r.b[r.off:])
	if !ok {
		return 0, r.fail("bad LEB128")
	}
	r.off += n
	return v, nil
}

// sleb reads QuickJS's signed LEB128: zigzag-encoded (get_sleb128).
func (r *reader) sleb() (int32, error) {
	v, err := r.leb()
	return unzigzag(v), err
}

func getLEB(b []byte) (v uint32, n int, ok bool) {
	for i := 0; i < 5 && i < len(b); i++ {
		c := b[i]
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

func unzigzag(v uint32) int32 { return int32(v>>1) ^ -int32(v&1) }

// count reads a LEB128 element count, each element taking at least
// minBytes bytes, so that counts never exceed what the input can hold.
func (r *reader) count(what string, minBytes int) (int, error) {
	at := r.off
	v, err := r.leb()
	if err != nil {
		return 0, err
	}
	if uint64(v)*uint64(max(minBytes, 1)) > uint64(r.remaining()) {
		return 0, &ParseError{Offset: at, Msg: fmt.Sprintf("%s count %d exceeds the %d bytes left", what, v, r.remaining())}
	}
	return int(v), nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, r.fail("%d bytes wanted, %d left", n, r.remaining())
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v, nil
}

// str reads a JSString: LEB128 length<<1 | wide, then Latin-1 bytes or
// UTF-16LE units.
func (r *reader) str() (string, error) {
	at := r.off
	v, err := r.leb()
	if err != nil {
		return "", err
	}
	wide := v&1 != 0
	n := int(v >> 1)
	size := n
	if wide {
		size = 2 * n
	}
	if size > r.remaining() {
		return "", &ParseError{Offset: at, Msg: fmt.Sprintf("string of %d bytes exceeds the %d bytes left", size, r.remaining())}
	}
	raw := r.b[r.off : r.off+size]
	r.off += size
	if wide {
		u := make([]uint16, n)
		for i := range u {
			u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
		}
		return string(utf16.Decode(u)), nil
	}
	return Latin1(raw), nil
}

// Latin1 converts an 8-bit JSString (Latin-1) to UTF-8.
func Latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/2)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// Function flags (the u16 of a function record) every layout shares:
// has_prototype, has_simple_parameter_list, is_derived_class_constructor,
// need_home_object, func_kind (2 bits), new_target_allowed,
// super_call_allowed, super_allowed; the bits above differ
// (Layout.HasDebugBit, Layout.FlagBits).
const (
	flagHasPrototype     = 1 << 0
	flagDerivedCtor      = 1 << 2
	flagNeedHomeObject   = 1 << 3
	flagFuncKindShift    = 4
	closureVarIsLocal    = 1 << 0
	closureVarIsArg      = 1 << 1
	closureVarIsConst    = 1 << 2
	closureVarIsLexical  = 1 << 3
	atomTypeFirstString  = 1 // JS_ATOM_TYPE_STRING
	atomTypeLastAccepted = 3 // up to JS_ATOM_TYPE_SYMBOL (JS_ATOM_TYPE_PRIVATE is refused)
)

type parser struct {
	r      reader
	engine EngineSpec
	layout *Layout
	prog   *Program
	depth  int
	funcs  []*Function // stream (pre-)order

	atoms  []string // the serialized atom table
	refs   []*atomRef
	maxRef uint32 // largest even atom index referenced (leb refs and operands)
	anyRef bool
	// constAtoms are NG atom table entries given as builtin atom values:
	// (table index, atom).
	constAtoms [][2]uint32
}

// atomRef is an atom reference whose string is resolved once the first
// non-builtin atom is known.
type atomRef struct {
	ref uint32 // index (tagged integers never get here)
	dst *string
	fn  *Function // for func_name: where to note an unresolved builtin
	at  int
}

func (p *parser) parse() (*Program, error) {
	r := &p.r
	v, err := r.u8()
	if err != nil {
		return nil, err
	}
	if p.layout == nil {
		if p.layout, err = SelectLayout(p.engine, v); err != nil {
			return nil, err
		}
	}
	p.prog = &Program{Format: p.layout.Debug.format(), Layout: p.layout, Version: v, builtin: p.engine.Atoms}
	if p.layout.Checksum {
		if err := p.checksum(); err != nil {
			return nil, err
		}
	}
	if err := p.atomTable(); err != nil {
		return nil, err
	}
	tagAt := r.off
	tag, err := r.u8()
	if err != nil {
		return nil, err
	}
	switch p.layout.Tags.kind(tag) {
	case kModule:
		if err := p.module(); err != nil {
			return nil, err
		}
	case kFunction:
		if _, err := p.function(tagAt, nil); err != nil {
			return nil, err
		}
	default:
		return nil, &ParseError{Offset: tagAt, Msg: fmt.Sprintf("tag %d: want a module (%d) or a function (%d)", tag, p.layout.Tags.tag(kModule), p.layout.Tags.tag(kFunction))}
	}
	if r.remaining() != 0 {
		return nil, r.fail("%d trailing bytes after the program", r.remaining())
	}
	if err := p.resolve(); err != nil {
		return nil, err
	}
	p.defineNames()
	return p.finish(), nil
}

func (p *parser) atomTable() error {
	r := &p.r
	n, err := r.count("atom", 1)
	if err != nil {
		return err
	}
	p.atoms = make([]string, 0, n)
	for i := 0; i < n; i++ {
		if p.layout.TypedAtoms {
			at := r.off
			typ, err := r.u8()
			if err != nil {
				return err
			}
			if typ == 0 {
				// A constant atom of the writer's engine, by value.
				a, err := r.u32()
				if err != nil {
					return err
				}
				p.constAtoms = append(p.constAtoms, [2]uint32{uint32(len(p.atoms)), a})
				p.atoms = append(p.atoms, "")
				continue
			}
			if typ < atomTypeFirstString || typ > atomTypeLastAccepted {
				return &ParseError{Offset: at, Msg: fmt.Sprintf("atom type %d", typ)}
			}
		}
		s, err := r.str()
		if err != nil {
			return err
		}
		p.atoms = append(p.atoms, s)
	}
	p.prog.Atoms = p.atoms
	return nil
}

// atom reads a LEB128 atom reference into *dst (resolved later).
func (p *parser) atom(dst *string, fn *Function) (uint32, error) {
	at := p.r.off
	v, err := p.r.leb()
	if err != nil {
		return 0, err
	}
	if v&1 != 0 { // a tagged integer
		*dst = strconv.FormatUint(uint64(v>>1), 10)
		return v>>1 | 0x80000000, nil
	}
	idx := v >> 1
	if fn != nil && dst == &fn.Name {
		fn.NameAtom = idx
	}
	if idx == 0 {
		*dst = ""
		return 0, nil
	}
	p.noteRef(idx)
	p.refs = append(p.refs, &atomRef{ref: idx, dst: dst, fn: fn, at: at})
	return idx, nil
}

func (p *parser) noteRef(idx uint32) {
	if !p.anyRef || idx > p.maxRef {
		p.maxRef = idx
	}
	p.anyRef = true
}

func (p *parser) module() error {
	r := &p.r
	m := &ModuleInfo{}
	p.prog.Module = m
	if _, err := p.atom(&m.Name, nil); err != nil {
		return err
	}
	n, err := r.count("required module", 1)
	if err != nil {
		return err
	}
	m.Requires = make([]string, n)
	for i := range m.Requires {
		if _, err := p.atom(&m.Requires[i], nil); err != nil {
			return err
		}
		if p.layout.Module.ReqAttributes { // the import attributes: undefined or an object
			if _, err := p.value(nil); err != nil {
				return err
			}
		}
	}
	n, err = r.count("export", 2)
	if err != nil {
		return err
	}
	m.Exports = make([]string, n)
	for i := range m.Exports {
		typ, err := r.u8()
		if err != nil {
			return err
		}
		if _, err := r.leb(); err != nil { // var_idx or req_module_idx
			return err
		}
		if typ != 0 { // not JS_EXPORT_TYPE_LOCAL: the local name follows
			var local string
			if _, err := p.atom(&local, nil); err != nil {
				return err
			}
		}
		if _, err := p.atom(&m.Exports[i], nil); err != nil {
			return err
		}
	}
	n, err = r.count("star export", 1)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := r.leb(); err != nil {
			return err
		}
	}
	n, err = r.count("import", 3)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		var name string
		if _, err := r.leb(); err != nil {
			return err
		}
		if p.layout.Module.ImportIsStar {
			if _, err := r.u8(); err != nil {
				return err
			}
		}
		if _, err := p.atom(&name, nil); err != nil {
			return err
		}
		if _, err := r.leb(); err != nil {
			return err
		}
	}
	if p.layout.Module.HasTLA {
		tla, err := r.u8()
		if err != nil {
			return err
		}
		m.HasTLA = tla != 0
	}
	at := r.off
	tag, err := r.u8()
	if err != nil {
		return err
	}
	if p.layout.Tags.kind(tag) != kFunction {
		return &ParseError{Offset: at, Msg: fmt.Sprintf("module function: tag %d, want %d", tag, p.layout.Tags.tag(kFunction))}
	}
	_, err = p.function(at, nil)
	return err
}

// value reads one serialized value (a constant pool entry).
func (p *parser) value(parent *Function) (Constant, error) {
	r := &p.r
	at := r.off
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return Constant{}, r.fail("values nested more than %d deep", maxNesting)
	}
	tag, err := r.u8()
	if err != nil {
		return Constant{}, err
	}
	switch k := p.layout.Tags.kind(tag); k {
	case kNull:
		return Constant{Kind: "null"}, nil
	case kUndefined:
		return Constant{Kind: "undefined"}, nil
	case kFalse, kTrue:
		return Constant{Kind: "bool", Value: strconv.FormatBool(k == kTrue)}, nil
	case kInt32:
		v, err := r.sleb()
		return Constant{Kind: "int32", Value: strconv.Itoa(int(v))}, err
	case kFloat64:
		if r.remaining() < 8 {
			return Constant{}, r.fail("unexpected end of input")
		}
		lo, _ := r.u32()
		hi, _ := r.u32()
		f := math.Float64frombits(uint64(hi)<<32 | uint64(lo))
		return Constant{Kind: "float64", Value: strconv.FormatFloat(f, 'g', -1, 64)}, nil
	case kString:
		s, err := r.str()
		if rs := []rune(s); len(rs) > maxConstantRunes {
			s = string(rs[:maxConstantRunes]) + "…"
		}
		return Constant{Kind: "string", Value: s}, err
	case kBigInt, kBigFloat, kBigDecimal:
		return p.bigint(k)
	case kObject:
		n, err := r.count("property", 2)
		if err != nil {
			return Constant{}, err
		}
		for i := 0; i < n; i++ {
			var name string
			if _, err := p.atom(&name, nil); err != nil {
				return Constant{}, err
			}
			if _, err := p.value(parent); err != nil {
				return Constant{}, err
			}
		}
		return Constant{Kind: "object", Value: strconv.Itoa(n) + " properties"}, nil
	case kArray, kTemplate:
		n, err := r.count("element", 1)
		if err != nil {
			return Constant{}, err
		}
		if k == kTemplate {
			n++ // the raw strings follow the cooked ones
		}
		for i := 0; i < n; i++ {
			if _, err := p.value(parent); err != nil {
				return Constant{}, err
			}
		}
		kind := "array"
		if k == kTemplate {
			kind = "template"
			n--
		}
		return Constant{Kind: kind, Value: strconv.Itoa(n) + " elements"}, nil
	case kFunction:
		f, err := p.function(at, parent)
		return Constant{Kind: "function", Function: f}, err
	}
	return Constant{}, &ParseError{Offset: at, Msg: fmt.Sprintf("unsupported tag %d in a constant pool", tag)}
}

// bigint reads a BigInt (BigFloat, BigDecimal) constant in the
// layout's encoding: two's complement bytes after a LEB128 count (Bellard
// 2025+, QuickJS-NG v0.10+); libbf's zigzag sign and exponent, then for
// finite non-zero values a LEB128 length and the mantissa (BigDecimal:
// length in digits, two per byte); or 2019's LEB128 length and sign,
// mantissa and exponent (BigFloat zero, infinity and NaN: a special
// byte). Mantissa bytes are not kept: they depend on the engine's limb
// size.
func (p *parser) bigint(k tagKind) (Constant, error) {
	r := &p.r
	kind := map[tagKind]string{kBigInt: "bigint", kBigFloat: "bigfloat", kBigDecimal: "bigdecimal"}[k]
	switch p.layout.BigNum {
	case bigNumTwos:
		n, err := r.count("bigint byte", 1)
		if err != nil {
			return Constant{}, err
		}
		_, err = r.bytes(n)
		return Constant{Kind: kind}, err
	case bigNum2019:
		v, err := r.leb() // length*2 + sign: bounded by r.bytes below
		if err != nil {
			return Constant{}, err
		}
		n := int(v >> 1)
		if n == 0 {
			if k == kBigFloat {
				_, err = r.u8()
			}
			return Constant{Kind: kind}, err
		}
		if _, err := r.bytes(n); err != nil {
			return Constant{}, err
		}
		_, err = r.sleb()
		return Constant{Kind: kind}, err
	}
	e, err := r.sleb()
	if err != nil {
		return Constant{}, err
	}
	if e>>1 < 0 || e>>1 >= 3 {
		n, err := r.count("bigint byte", 1)
		if err != nil {
			return Constant{}, err
		}
		if k == kBigDecimal {
			n = (n + 1) / 2
		}
		if _, err := r.bytes(n); err != nil {
			return Constant{}, err
		}
	}
	return Constant{Kind: kind}, nil
}

func (p *parser) function(at int, parent *Function) (*Function, error) {
	r := &p.r
	if len(p.funcs) >= maxFunctions {
		return nil, r.fail("more than %d functions", maxFunctions)
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, r.fail("functions nested more than %d deep", maxNesting)
	}
	f := &Function{Offset: at, Parent: parent}
	p.funcs = append(p.funcs, f)
	if parent != nil {
		parent.Children = append(parent.Children, f)
	}
	flags, err := r.u16()
	if err != nil {
		return nil, err
	}
	f.HasPrototype = flags&flagHasPrototype != 0
	f.DerivedClassConstructor = flags&flagDerivedCtor != 0
	f.NeedHomeObject = flags&flagNeedHomeObject != 0
	f.Kind = FunctionKind(flags >> flagFuncKindShift & 3)
	L := p.layout
	if extra := uint32(flags) >> L.FlagBits; extra != 0 && !(L.SignExtendedFlags && extra == 0xffff>>L.FlagBits) {
		return nil, &ParseError{Offset: at + 1, Msg: fmt.Sprintf("function flags %#04x set bits %s does not define", flags, L.Name)}
	}
	if L.HasDebugBit < 0 {
		f.HasDebug = true
	} else {
		f.HasDebug = flags>>L.HasDebugBit&1 != 0
	}
	mode, err := r.u8()
	if err != nil {
		return nil, err
	}
	f.Strict = mode&1 != 0
	if _, err := p.atom(&f.Name, f); err != nil {
		return nil, err
	}
	nums := make([]uint32, 8, 9)
	if L.VarRefCount {
		nums = nums[:9]
	}
	for i := range nums {
		if nums[i], err = r.leb(); err != nil {
			return nil, err
		}
	}
	f.ArgCount, f.VarCount, f.DefinedArgCount, f.StackSize = int(nums[0]), int(nums[1]), int(nums[2]), int(nums[3])
	if L.VarRefCount {
		f.VarRefCount = int(nums[4])
		nums = append(nums[:4], nums[5:]...)
	}
	closureCount, cpoolCount, codeLen, localCount := nums[4], nums[5], nums[6], nums[7]
	// A variable takes 3 bytes at least (B5d drops scope_level), a closure
	// variable 3, a constant 1.
	if uint64(localCount)*3+uint64(closureCount)*3+uint64(cpoolCount)+uint64(codeLen) > uint64(r.remaining()) {
		return nil, r.fail("function of %d variables, %d closure variables, %d constants and %d bytes of code exceeds the %d bytes left",
			localCount, closureCount, cpoolCount, codeLen, r.remaining())
	}
	if localCount > 0 {
		f.Vars = make([]Var, localCount)
	}
	for i := range f.Vars {
		v := &f.Vars[i]
		if err := p.varDef(v); err != nil {
			return nil, err
		}
	}
	if closureCount > 0 {
		f.ClosureVars = make([]ClosureVar, closureCount)
	}
	for i := range f.ClosureVars {
		if err := p.closureVar(&f.ClosureVars[i]); err != nil {
			return nil, err
		}
	}
	if L.CpoolFirst {
		if err := p.cpool(f, int(cpoolCount)); err != nil {
			return nil, err
		}
	}
	if err := p.code(f, int(codeLen)); err != nil {
		return nil, err
	}
	if f.HasDebug {
		if err := p.debug(f); err != nil {
			return nil, err
		}
	}
	if L.IC == icAfterDebug {
		if err := p.icSection(); err != nil {
			return nil, err
		}
	}
	if !L.CpoolFirst {
		if err := p.cpool(f, int(cpoolCount)); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (p *parser) cpool(f *Function, n int) error {
	if n > p.r.remaining() {
		return p.r.fail("%d constants exceed the %d bytes left", n, p.r.remaining())
	}
	if n > 0 {
		f.Constants = make([]Constant, 0, n)
	}
	for i := 0; i < n; i++ {
		c, err := p.value(f)
		if err != nil {
			return err
		}
		f.Constants = append(f.Constants, c)
	}
	return nil
}

// code reads the bytecode and walks it with the engine's opcode sizes,
// noting the atom operands.
func (p *parser) code(f *Function, n int) error {
	start := p.r.off
	raw, err := p.r.bytes(n)
	if err != nil {
		return err
	}
	f.Code = append([]byte(nil), raw...)
	ops := p.engine.Opcodes
	for pc := 0; pc < n; {
		op := int(f.Code[pc])
		if op >= len(ops) || ops[op].Size <= 0 {
			return &ParseError{Offset: start + pc, Msg: fmt.Sprintf("opcode %d at pc %d is not an opcode of the engine", op, pc)}
		}
		size := ops[op].Size
		if pc+size > n {
			return &ParseError{Offset: start + pc, Msg: fmt.Sprintf("opcode %s at pc %d runs past the end of the bytecode (%d bytes)", ops[op].Name, pc, n)}
		}
		if isAtomFmt(ops[op].Fmt) {
			if size < 5 {
				return &ParseError{Offset: start + pc, Msg: fmt.Sprintf("opcode %s has an atom operand but %d bytes", ops[op].Name, size)}
			}
			ref := le32(f.Code[pc+1:])
			f.AtomOps = append(f.AtomOps, AtomOperand{Offset: uint32(pc + 1), Ref: ref})
			if ref&0x80000000 == 0 && ref != 0 {
				p.noteRef(ref)
			}
		}
		pc += size
	}
	return nil
}

func (p *parser) debug(f *Function) error {
	r := &p.r
	d := p.layout.Debug
	var err error
	if f.fileAtom, err = p.atom(&f.File, nil); err != nil {
		return err
	}
	if d.Line {
		line, err := r.leb()
		if err != nil {
			return err
		}
		f.RawLine = int(line)
	}
	if d.ColumnAfterLine {
		col, err := r.leb()
		if err != nil {
			return err
		}
		f.RawColumn = int(col)
	}
	if f.RawPC2Line, err = p.lenBytes("pc2line"); err != nil {
		return err
	}
	tabAt := r.off - len(f.RawPC2Line)
	f.RawPC2Line = append([]byte(nil), f.RawPC2Line...)
	var colTab []byte
	if d.SeparateColumns {
		col, err := r.leb()
		if err != nil {
			return err
		}
		f.RawColumn = int(col)
		if colTab, err = p.lenBytes("pc2column"); err != nil {
			return err
		}
		f.RawPC2Column = append([]byte(nil), colTab...)
	}
	if d.Source {
		src, err := p.lenBytes("source")
		if err != nil {
			return err
		}
		f.Source = string(src) // UTF-8, as the engine keeps it
	}
	if p.layout.IC == icInDebug {
		if err := p.icSection(); err != nil {
			return err
		}
	}
	lines, first, err := DecodeLines(p.prog.Format, f.RawLine, f.RawColumn, f.RawPC2Line, colTab)
	if err != nil {
		return &ParseError{Offset: tabAt, Msg: err.Error()}
	}
	if d.PC2LineHeader {
		// The line and column are the table's header: keep them where
		// the other layouts keep theirs.
		f.RawLine, f.RawColumn = first.Line, first.Column
	}
	f.Lines, f.Line, f.Column = lines, first.Line, first.Column
	return nil
}

// icSection skips QuickJS-NG v0.2-v0.4's inline-cache atoms when present:
// the marker "\xffIC", a count and that many atom references. No value tag
// is 0xff, so the marker cannot be the constant pool that may follow.
func (p *parser) icSection() error {
	r := &p.r
	if r.remaining() < 3 || string(r.b[r.off:r.off+3]) != "\xffIC" {
		return nil
	}
	r.off += 3
	n, err := r.count("inline cache atom", 1)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		var name string
		if _, err := p.atom(&name, nil); err != nil {
			return err
		}
	}
	return nil
}

// varDef reads a variable definition: name, scope level (not in B5d),
// scope_next+1, var_ref_idx (B5d), flags, var_ref_idx of captured
// variables (QuickJS-NG v0.12+).
func (p *parser) varDef(v *Var) error {
	r := &p.r
	vd := p.layout.VarDef
	if _, err := p.atom(&v.Name, nil); err != nil {
		return err
	}
	if vd.ScopeLevel {
		lvl, err := r.leb()
		if err != nil {
			return err
		}
		v.Scope = int(lvl)
	}
	next, err := r.leb()
	if err != nil {
		return err
	}
	v.ScopeNext = int(next) - 1
	if vd.RefIdx == varRefIdxAlways {
		if _, err := r.leb(); err != nil {
			return err
		}
	}
	fl, err := r.u8()
	if err != nil {
		return err
	}
	v.Kind = int(fl) & (1<<vd.KindBits - 1)
	v.Const, v.Lexical, v.Captured = fl>>vd.ConstBit&1 != 0, fl>>vd.LexicalBit&1 != 0, fl>>vd.CapturedBit&1 != 0
	if vd.RefIdx == varRefIdxIfCaptured && v.Captured {
		if _, err := r.leb(); err != nil {
			return err
		}
	}
	return nil
}

// closureVar reads a closure variable: name, var_idx, then flags as a byte
// (is_local, is_arg, is_const, is_lexical, var_kind) or, in the layouts
// with closure_type, as a u16 or LEB128 (closure_type:3, is_const,
// is_lexical, var_kind:4).
func (p *parser) closureVar(cv *ClosureVar) error {
	r := &p.r
	if _, err := p.atom(&cv.Name, nil); err != nil {
		return err
	}
	idx, err := r.leb()
	if err != nil {
		return err
	}
	cv.Index = int(idx)
	var fl uint32
	switch p.layout.Closure {
	case closureU8:
		b, err := r.u8()
		if err != nil {
			return err
		}
		cv.IsLocal, cv.IsArg = b&closureVarIsLocal != 0, b&closureVarIsArg != 0
		cv.Const, cv.Lexical = b&closureVarIsConst != 0, b&closureVarIsLexical != 0
		cv.Kind = int(b >> 4)
		return nil
	case closureU16:
		v, err := r.u16()
		if err != nil {
			return err
		}
		fl = uint32(v)
	default:
		if fl, err = r.leb(); err != nil {
			return err
		}
	}
	// closure_type: 0 the parent's local, 1 its argument, 2 its closure
	// variable, 3-7 global and module references.
	typ := fl & 7
	cv.IsLocal, cv.IsArg = typ <= 1, typ == 1
	cv.Const, cv.Lexical = fl>>3&1 != 0, fl>>4&1 != 0
	cv.Kind = int(fl >> 5 & 15)
	return nil
}

// checksum checks QuickJS-NG's u32 checksum of the bytes after it
// (0xffffffff: the writer did not compute one, as readers accept).
func (p *parser) checksum() error {
	at := p.r.off
	want, err := p.r.u32()
	if err != nil {
		return err
	}
	rest := p.r.b[p.r.off:]
	if want == 0xffffffff {
		return nil
	}
	if got, alt := bcChecksum(rest, false), bcChecksum(rest, true); got != want && alt != want {
		return &ParseError{Offset: at, Msg: fmt.Sprintf("checksum %#08x, the bytes that follow sum to %#08x", want, got)}
	}
	return nil
}

// bcChecksum is QuickJS-NG's bc_csum: full little-endian words while more
// than four bytes remain, then the 1-3 tail bytes as one word. When
// exactly four bytes remain, the engine's switch has no case for them:
// v0.17 (quickjs-wasi 3.6.2) still multiplies once (tail4Mul), as our
// notes say v0.16.2 does not; both are accepted, the checksum being a
// guard against damage, not a release test.
func bcChecksum(b []byte, tail4Mul bool) uint32 {
	const k = 0x9e370001
	var h uint32
	i := 0
	for ; i+4 < len(b); i += 4 {
		h = (h + le32(b[i:])) * k
	}
	var t uint32
	switch len(b) - i {
	case 3:
		t = uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16
	case 2:
		t = uint32(b[i]) | uint32(b[i+1])<<8
	case 1:
		t = uint32(b[i])
	case 4:
		if tail4Mul {
			return h * k
		}
		return h
	default:
		return h
	}
	return (h + t) * k
}

func (p *parser) lenBytes(what string) ([]byte, error) {
	n, err := p.r.count(what+" byte", 1)
	if err != nil {
		return nil, err
	}
	return p.r.bytes(n)
}

// resolve fixes the first non-builtin atom and gives every atom
// reference its string.
func (p *parser) resolve() error {
	first, err := p.firstAtom()
	if err != nil {
		return err
	}
	p.prog.FirstAtom = first
	builtin := func(idx uint32) (string, bool) {
		if int(idx) < len(p.engine.Atoms) {
			return p.engine.Atoms[idx], true
		}
		return "", false
	}
	for _, c := range p.constAtoms { // NG: builtin atoms in the atom table
		if c[1] >= first {
			return &ParseError{Offset: 0, Msg: fmt.Sprintf("atom table entry %d is constant atom %d, not a builtin (< %d)", c[0], c[1], first)}
		}
		p.atoms[c[0]], _ = builtin(c[1])
		if p.prog.constAtoms == nil {
			p.prog.constAtoms = map[uint32]uint32{}
		}
		p.prog.constAtoms[c[0]] = c[1]
	}
	for _, a := range p.refs {
		if a.ref >= first {
			i := a.ref - first
			if int(i) >= len(p.atoms) {
				return &ParseError{Offset: a.at, Msg: fmt.Sprintf("atom %d is past the %d atoms of the table (first %d)", a.ref, len(p.atoms), first)}
			}
			*a.dst = p.atoms[i]
			continue
		}
		s, ok := builtin(a.ref)
		*a.dst = s
		if !ok && a.fn != nil && a.dst == &a.fn.Name {
			a.fn.NameUnresolved = true
		}
	}
	for _, f := range p.funcs {
		for _, op := range f.AtomOps {
			if op.Ref&0x80000000 == 0 && op.Ref >= first && op.Ref-first >= uint32(len(p.atoms)) {
				return &ParseError{Offset: f.Offset, Msg: fmt.Sprintf("bytecode atom operand %d at pc %d is past the atom table", op.Ref, op.Offset-1)}
			}
		}
	}
	return nil
}

// firstAtom finds JS_ATOM_END: from the engine's builtin atoms when known,
// else from the references (the writer numbers the table's atoms from
// JS_ATOM_END in order of first use, and every one is used, so the
// largest reference is the table's last). Both are checked when both are
// available.
func (p *parser) firstAtom() (uint32, error) {
	n := uint32(len(p.atoms))
	inferred, ok := uint32(0), false
	if n > 0 && p.anyRef && p.maxRef+1 >= n {
		inferred, ok = p.maxRef+1-n, true
	}
	if k := uint32(len(p.engine.Atoms)); k > 0 {
		if ok && inferred != k {
			return 0, &ParseError{Offset: 0, Msg: fmt.Sprintf("the atom references put the first program atom at %d, the engine's builtin atoms end at %d", inferred, k)}
		}
		return k, nil
	}
	if n == 0 {
		// No program atoms: every reference is a builtin; anything above
		// the largest reference will do.
		return p.maxRef + 1, nil
	}
	if !ok {
		return 0, &ParseError{Offset: 0, Msg: "cannot place the atom table: no atom references"}
	}
	if m := p.prog.Module; m != nil && len(p.refs) > 0 && p.refs[0].ref != inferred {
		return 0, &ParseError{Offset: p.refs[0].at, Msg: fmt.Sprintf("the module name is atom %d, the atom table should start at %d", p.refs[0].ref, inferred)}
	}
	return inferred, nil
}

// finish orders the functions by source position.
func (p *parser) finish() *Program {
	fs := append([]*Function(nil), p.funcs...)
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Line != fs[j].Line {
			return fs[i].Line < fs[j].Line
		}
		return fs[i].Column < fs[j].Column
	})
	for i, f := range fs {
		f.Index = i
	}
	p.prog.Functions = fs
	return p.prog
}

// atomName renders a serialized atom reference (a bytecode operand).
func (p *Program) atomName(ref uint32) string {
	switch {
	case ref&0x80000000 != 0:
		return strconv.FormatUint(uint64(ref&0x7fffffff), 10)
	case ref >= p.FirstAtom && int(ref-p.FirstAtom) < len(p.Atoms):
		return strconv.Quote(p.Atoms[ref-p.FirstAtom])
	case int(ref) < len(p.builtin):
		return strconv.Quote(p.builtin[ref])
	}
	return "atom#" + strconv.FormatUint(uint64(ref), 10)
}
