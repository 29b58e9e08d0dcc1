package bytecode

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/dispatch"
)

// Layout is one serialization layout of JS_WriteObject: the independent
// switches in which the releases of both QuickJS families differ. One
// parser reads every layout; a Layout only says which fields are there
// and how they are encoded. Layouts are values of the immutable registry,
// each its release's (Release, releases.go; Layouts, LayoutByName); the
// parser never changes them.
type Layout struct {
	// Name is the layout's name, as in docs/naming.md's table (B2020,
	// NG13, ...).
	Name   string
	Family string // dispatch.FamilyQuickJS or dispatch.FamilyQuickJSNG
	// Releases says which releases (or commits) write the layout.
	Releases string
	// Verified: real output of a release was read byte-exactly with it.
	Verified bool

	Tags tagSet
	// Checksum: a u32 checksum of the rest follows the version byte
	// (QuickJS-NG v0.13+).
	Checksum bool
	// TypedAtoms: every atom table entry starts with a type byte
	// (QuickJS-NG v0.6.1+).
	TypedAtoms bool
	// HasDebugBit is the function flag bit saying debug information
	// follows the code; -1 when it always does (QuickJS-NG v0.3-v0.4).
	HasDebugBit int
	// FlagBits is the number of function flag bits the layout defines:
	// the others must be zero.
	FlagBits int
	// SignExtendedFlags: the bits above the last flag may all be set
	// (QuickJS-NG v0.5-v0.8 wrote a signed bitfield there).
	SignExtendedFlags bool
	BigNum            bigNum
	// VarRefCount: a var_ref_count follows stack_size (B5d, NG12+).
	VarRefCount bool
	VarDef      varDefLayout
	Closure     closureFlags
	// CpoolFirst: the constant pool precedes the code (QuickJS-NG
	// v0.5+); otherwise it follows the debug information.
	CpoolFirst bool
	Debug      debugLayout
	IC         icPlacement
	Module     moduleLayout
	// RQuickJS: the layout of rquickjs's patched Bellard QuickJS
	// (error_column_number.patch, rquickjs 0.4-0.6).
	RQuickJS bool
}

// String returns the layout's name.
func (l *Layout) String() string { return l.Name }

// tagSet is a numbering of the serialization tags (BCTagEnum).
type tagSet int

const (
	tags2019 tagSet = iota // Bellard 2019: bigfloat 11, template 12, function 13, module 14
	tags2020               // Bellard 2020-2024-02: bigdecimal 12, template 13, function 14, module 15
	tagsB3                 // Bellard 2024-02-18+: template 11, function 12, module 13; bigfloat 20, bigdecimal 21
	tagsB4                 // Bellard 2025+: as tagsB3 without bigfloat and bigdecimal
	tagsNG                 // QuickJS-NG: template 11, function 12, module 13
)

// value kinds a tag can announce in compiled code.
type tagKind int

const (
	kNone tagKind = iota
	kNull
	kUndefined
	kFalse
	kTrue
	kInt32
	kFloat64
	kString
	kObject
	kArray
	kBigInt
	kBigFloat
	kBigDecimal
	kTemplate
	kFunction
	kModule
)

// kind returns what a tag announces in the set, kNone for tags compiled
// code never holds (typed arrays, dates, maps...), which the parser
// refuses.
func (s tagSet) kind(tag byte) tagKind {
	if tag >= 1 && tag <= 10 {
		return tagKind(tag) // null ... bigint are numbered alike everywhere
	}
	switch s {
	case tags2019:
		switch tag {
		case 11:
			return kBigFloat
		case 12:
			return kTemplate
		case 13:
			return kFunction
		case 14:
			return kModule
		}
		return kNone
	case tags2020:
		switch tag {
		case 11:
			return kBigFloat
		case 12:
			return kBigDecimal
		case 13:
			return kTemplate
		case 14:
			return kFunction
		case 15:
			return kModule
		}
		return kNone
	case tagsB3:
		switch tag {
		case 20:
			return kBigFloat
		case 21:
			return kBigDecimal
		}
	}
	switch tag {
	case 11:
		return kTemplate
	case 12:
		return kFunction
	case 13:
		return kModule
	}
	return kNone
}

// tag returns the tag of a kind in the set (kFunction, kModule).
func (s tagSet) tag(k tagKind) byte {
	for t := 1; t < 32; t++ {
		if s.kind(byte(t)) == k {
			return byte(t)
		}
	}
	return 0
}

// bigNum is the encoding of BigInt (BigFloat, BigDecimal) constants.
type bigNum int

const (
	bigNum2019  bigNum = iota // leb(len*2+sign), mantissa, sleb exponent
	bigNumLibbf               // sleb sign/exponent, then leb len and mantissa
	bigNumTwos                // leb len, two's complement bytes
)

// varRefIdx says when a variable definition carries var_ref_idx.
type varRefIdx int

const (
	varRefIdxNone varRefIdx = iota
	varRefIdxAlways
	varRefIdxIfCaptured
)

// varDefLayout is the layout of a variable definition.
type varDefLayout struct {
	ScopeLevel bool // a leb scope_level (all but B5d)
	RefIdx     varRefIdx
	// The flag byte's bits: var_kind width (0: none), is_const,
	// is_lexical and is_captured positions.
	KindBits, ConstBit, LexicalBit, CapturedBit int
}

// Flag bits of the variable definitions of each era.
var (
	varDefs2019a = varDefLayout{ScopeLevel: true, ConstBit: 3, LexicalBit: 4, CapturedBit: 5}
	varDefs2019b = varDefLayout{ScopeLevel: true, KindBits: 3, ConstBit: 5, LexicalBit: 6, CapturedBit: 7}
	varDefs2019  = varDefLayout{ScopeLevel: true, KindBits: 4, ConstBit: 5, LexicalBit: 6, CapturedBit: 7}
	varDefs      = varDefLayout{ScopeLevel: true, KindBits: 4, ConstBit: 4, LexicalBit: 5, CapturedBit: 6}
)

// closureFlags is the encoding of a closure variable's flags.
type closureFlags int

const (
	closureU8  closureFlags = iota // is_local, is_arg, is_const, is_lexical, var_kind
	closureU16                     // closure_type:3, is_const, is_lexical, var_kind:4
	closureLEB                     // as closureU16, LEB128-encoded
)

// debugLayout is the layout of a function's debug information.
type debugLayout struct {
	Line bool // a leb line after the file name
	// ColumnAfterLine: a leb column (1-based) follows the line.
	ColumnAfterLine bool
	// PC2LineHeader: the pc → line table starts with the function's line
	// and column, 0-based (Bellard 2025+).
	PC2LineHeader bool
	// ColumnDeltas: every pc → line entry is followed by a column delta.
	ColumnDeltas bool
	// SeparateColumns: a 0-based column and a pc → column table follow
	// the pc → line table (rquickjs's patch).
	SeparateColumns bool
	Source          bool // the function's source text follows
}

// format is the coarse variant of the debug encoding (Format).
func (d debugLayout) format() Format {
	switch {
	case d.SeparateColumns:
		return FormatColumns
	case d.PC2LineHeader:
		return FormatHeader
	case d.ColumnDeltas:
		return FormatNG
	}
	return FormatLines
}

// icPlacement is where QuickJS-NG v0.2-v0.4 wrote inline-cache atoms.
type icPlacement int

const (
	icNone icPlacement = iota
	icInDebug
	icAfterDebug
)

// moduleLayout is the layout of the module record.
type moduleLayout struct {
	HasTLA        bool // a has_tla byte before the module function
	ReqAttributes bool // a value (import attributes) after each required module
	ImportIsStar  bool // an is_star byte in each import
}

// Function flag bit layouts: has_prototype ... super_allowed take bits
// 0-8 everywhere; what follows differs.
const (
	flagsThroughSuper = 9 // bits 0-8
)

// layouts are the releases' layouts (releases.go), in their order.
var layouts = func() []*Layout {
	out := make([]*Layout, len(releases))
	for i, r := range releases {
		out[i] = r.Layout
	}
	return out
}()

// Layouts returns the registry's layouts, oldest first.
func Layouts() []*Layout { return slices.Clone(layouts) }

// LayoutByName returns the registry's layout of that name.
func LayoutByName(name string) (*Layout, bool) {
	for _, l := range layouts {
		if l.Name == name {
			return l, true
		}
	}
	return nil, false
}

// transitional are version bytes that only unreleased commits wrote
// between two layouts: no release writes them, so no layout is kept.
var transitional = map[string][]byte{
	dispatch.FamilyQuickJSNG: {4, 5, 6, 7, 9, 10, 11, 13, 15, 17, 18, 22},
}

// LayoutError says why no layout could be chosen for a version byte.
type LayoutError struct {
	Version    byte
	Candidates []string // the layouts that fit equally: several when ambiguous
	Msg        string
}

func (e *LayoutError) Error() string { return "bytecode: offset 0x0: " + e.Msg }

// SelectLayout chooses the layout of bytes that start with version, as
// written by the engine spec describes: the layouts the identified
// opcode tables (the release) allow for that version byte, narrowed by
// whether the engine is rquickjs's patched QuickJS. It never guesses:
// several remaining layouts are an error naming them.
func SelectLayout(spec EngineSpec, version byte) (*Layout, error) {
	if version&0x40 != 0 && version != 0x43 {
		return nil, &LayoutError{Version: version, Msg: fmt.Sprintf("unsupported serialization version %#x: written byte-swapped (JS_WRITE_OBJ_BSWAP), which no reader accepts", version)}
	}
	tables := spec.Tables
	if len(tables) == 0 && spec.TableID != "" {
		tables = []string{spec.TableID}
	}
	var fit []*Layout
	known := false
	var allowed []string
	for _, id := range tables {
		id, _, _ = strings.Cut(id, "/") // "/no-bignum" variants share the table's layouts
		byVersion, ok := tableLayouts[id]
		if !ok {
			continue
		}
		known = true
		for v, ls := range byVersion {
			allowed = append(allowed, fmt.Sprintf("%#x", v))
			if v == version {
				fit = append(fit, ls...)
			}
		}
	}
	if !known && len(tables) > 0 {
		return nil, &LayoutError{Version: version, Msg: fmt.Sprintf("serialization version %#x: no layout is known for %s (an unreleased commit before QuickJS-NG v0.1.0?)", version, engineDesc(spec))}
	}
	if !known {
		// No identified table (a caller that did not analyse the
		// engine): the version byte alone, within the family when known;
		// several layouts are refused below.
		for _, byVersion := range tableLayouts {
			for _, l := range byVersion[version] {
				if spec.Family == "" || l.Family == spec.Family {
					fit = append(fit, l)
				}
			}
		}
	}
	slices.SortFunc(fit, func(a, b *Layout) int { return strings.Compare(a.Name, b.Name) })
	fit = slices.Compact(fit)
	if len(fit) > 1 {
		fit = narrowRQuickJS(fit, spec.RQuickJS)
	}
	engine := engineDesc(spec)
	switch len(fit) {
	case 1:
		return fit[0], nil
	case 0:
		if slices.Contains(transitional[spec.Family], version) {
			return nil, &LayoutError{Version: version, Msg: fmt.Sprintf("serialization version %#x of %s: only unreleased commits between two releases wrote it, and no layout is kept for it", version, engine)}
		}
		sort.Strings(allowed)
		allowed = slices.Compact(allowed)
		if known {
			return nil, &LayoutError{Version: version, Msg: fmt.Sprintf("unsupported serialization version %#x: %s writes %s", version, engine, strings.Join(allowed, ", "))}
		}
		return nil, &LayoutError{Version: version, Msg: fmt.Sprintf("unsupported serialization version %#x for %s", version, engine)}
	}
	names := make([]string, len(fit))
	for i, l := range fit {
		names[i] = l.Name
	}
	return nil, &LayoutError{Version: version, Candidates: names,
		Msg: fmt.Sprintf("serialization version %#x of %s is ambiguous: layouts %s fit the identified engine equally, and the bytes cannot tell them apart reliably", version, engine, strings.Join(names, ", "))}
}

// narrowRQuickJS keeps the rquickjs-patched layouts when the engine is
// built with rquickjs 0.4-0.6 (the releases that applied
// error_column_number.patch to Bellard's QuickJS), the others otherwise.
func narrowRQuickJS(layouts []*Layout, rq string) []*Layout {
	patched := strings.HasPrefix(rq, "0.4.") || strings.HasPrefix(rq, "0.5.") || strings.HasPrefix(rq, "0.6.")
	var out []*Layout
	for _, l := range layouts {
		if l.RQuickJS == patched {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return layouts
	}
	return out
}

func engineDesc(spec EngineSpec) string {
	d := spec.Family
	if d == "" {
		d = "an unidentified engine"
	}
	if len(spec.Releases) > 0 {
		d += " " + strings.Join(spec.Releases, ", ")
	}
	if spec.TableID != "" {
		d += " (opcode table " + spec.TableID + ")"
	}
	if spec.RQuickJS != "" {
		d += " built with rquickjs " + spec.RQuickJS
	}
	return d
}
