package natives

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/wasmcore"
)

// Kind says which function of an entry a Native is.
type Kind uint8

const (
	Function Kind = iota // JS_DEF_CFUNC: a method or function
	Getter               // the getter of JS_DEF_CGETSET(_MAGIC)
	Setter               // its setter
)

func (k Kind) String() string {
	switch k {
	case Function:
		return "function"
	case Getter:
		return "getter"
	case Setter:
		return "setter"
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Attribution says how the owner of a Native was established.
type Attribution uint8

const (
	// Catalogued: the entry's array equals a catalogued version of one
	// QuickJS array (names, kinds, lengths, cprotos, literal magics and
	// string values), and every way of splitting its run into catalogued
	// arrays gives the same owner.
	Catalogued Attribution = iota
	// Extended: the entry sits right after (or before) a catalogued array
	// whose other versions have an entry of this name and kind, and no
	// other array claims it (a patched engine's extra member, e.g.
	// Function.prototype.columnNumber in Javy's 2024 QuickJS).
	Extended
	// Ambiguous: catalogued arrays of different owners match equally
	// (BigFloat.prototype and BigDecimal.prototype have the same shape);
	// Candidates lists them and Owner is empty.
	Ambiguous
	// Unattributed: no catalogued array accounts for the entry.
	Unattributed
)

func (a Attribution) String() string {
	switch a {
	case Catalogued:
		return "catalogued"
	case Extended:
		return "extended"
	case Ambiguous:
		return "ambiguous"
	case Unattributed:
		return "unattributed"
	}
	return fmt.Sprintf("Attribution(%d)", a)
}

// Native is one native builtin: a C function an engine's
// JSCFunctionListEntry arrays declare, as JavaScript names it.
type Native struct {
	// Name is the JavaScript name: "JSON.stringify",
	// "Array.prototype.sort", "parseFloat" (a global),
	// "get Map.prototype.size", "Array.prototype.[Symbol.iterator]";
	// "?.stringify" when the owner is not certain.
	Name string
	// Property is the entry's own name ("stringify", "size").
	Property string
	// Owner is the object it is a property of ("JSON", "Map.prototype",
	// "" for the global object or when not certain; see Attribution).
	Owner       string
	Kind        Kind
	Attribution Attribution
	// Candidates are the names the entry would have under each matching
	// array, when Attribution is Ambiguous.
	Candidates []string
	// TableIndex is the C function pointer: an index into table 0.
	TableIndex uint32
	// Func is the Wasm function TableIndex resolves to through the
	// element segments (imports first, as wasm-objdump numbers them).
	Func uint32
	// Length is the declared length (functions), CProto the
	// JSCFunctionEnum calling convention and Magic the entry's magic: a
	// C function serving several builtins tells them apart by it.
	Length uint8
	CProto uint8
	Magic  int16
	// Entry is the address of the JSCFunctionListEntry in linear memory.
	Entry uint32
	// Array is the catalogued C array (js_json_funcs), "" when none;
	// CFuncs the C functions the engines' sources give for this entry
	// in the versions that matched (several when releases renamed it).
	Array  string
	CFuncs []string
}

// Array is one JSCFunctionListEntry array found in the module.
type Array struct {
	Address uint32
	Entries int
	// Name is the C array ("js_json_funcs"), Owner its object; Name is
	// "" and Owner "" when the candidates disagree (see Candidates).
	Name       string
	Owner      string
	Candidates []string // "family/array@first..last" of every matching version
	// Tag is the value of the array's [Symbol.toStringTag] string
	// property, when it has one: the engine's own name for the object
	// ("JSON", "Map", "Set Iterator"), checked against Owner by the tests.
	Tag string
}

// Catalogue is what Scan found in one module.
type Catalogue struct {
	// Natives lists every native found, by entry address (getter before
	// setter).
	Natives []Native
	// Arrays lists the catalogued arrays matched, by address. Where a
	// run of entries can be split in more than one optimal way, every
	// optimal split is listed, so arrays may overlap.
	Arrays []Array
	// Family and Dates say which engine history the arrays agree with
	// best: the family and the commit dates at which the most arrays have
	// the versions found. Family is "" (and Dates empty) when no array
	// was found or the arrays fit both families equally.
	Family string
	Dates  []string
	// Dropped counts well-formed entries left out because no catalogued
	// array accounts for them and they sit at the edge of a run or in a
	// run with no catalogued array (most are other data that happens to
	// look like an entry).
	Dropped int

	byTable map[uint32][]int
}

// Scan finds the JSCFunctionListEntry arrays in m's data segments and
// names the natives they declare. report, when not nil, says which engine
// family the dispatch analysis identified; it only breaks ties between
// catalogued versions. A module without such arrays yields an empty
// Catalogue.
func Scan(m *wasmcore.Module, report *dispatch.Report) (*Catalogue, error) {
	if m == nil {
		return nil, errors.New("natives: Scan: nil module")
	}
	cat, err := loadCatalog()
	if err != nil {
		return nil, err
	}
	family := ""
	if report != nil {
		family = report.Engine.Family
	}
	s := &scanner{img: newImage(m), table: newFuncTable(m)}
	return s.attribute(cat, s.findRuns(), family), nil
}

// ByCall returns the natives a call of C function table[i] with that magic
// is: the C function pointer and magic a function object holds
// (JSObject.u.cfunc) single out one builtin even where several share a C
// function.
func (c *Catalogue) ByCall(i uint32, magic int16) []Native {
	var out []Native
	for _, k := range c.byTable[i] {
		if c.Natives[k].Magic == magic {
			out = append(out, c.Natives[k])
		}
	}
	return out
}

// Find returns the natives of that name.
func (c *Catalogue) Find(name string) []Native {
	var out []Native
	for _, n := range c.Natives {
		if n.Name == name {
			out = append(out, n)
		}
	}
	return out
}

// TableName names table[i] for a profile: the native's name, the
// candidates joined by " | " when several natives share the function
// (at most three, then "… (N candidates)"), or "native@table[i]".
func (c *Catalogue) TableName(i uint32) string {
	ns := c.byTable[i]
	var names []string
	seen := map[string]bool{}
	for _, k := range ns {
		if n := c.Natives[k].Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("native@table[%d]", i)
	}
	return JoinCandidates(names)
}

// JoinCandidates names a function several natives share: their names
// joined by " | ", at most three, then "… (N candidates)".
func JoinCandidates(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], " | ") + fmt.Sprintf(" … (%d candidates)", len(names))
	}
	return strings.Join(names, " | ")
}

// MemberName names n's member with its owner unknown, as an uncertain
// owner is named ("?.toFixed", "get ?.size").
func MemberName(n Native) string { return displayName("?", n.Property, n.Kind) }

// displayName joins owner and property as the rest of jsprof names
// members ("Stack.[Symbol.iterator]", "get Shape.name").
func displayName(owner, prop string, k Kind) string {
	n := prop
	if owner != "" {
		n = owner + "." + prop
	}
	switch k {
	case Getter:
		return "get " + n
	case Setter:
		return "set " + n
	}
	return n
}

// claim is what the catalogue says about one entry of a run.
type claim struct {
	versions []*catVersion
	at       []int // catalogue entry index per version
	extended bool  // by extend, not by an exact match
	// overflow: more than maxClaims versions claim the entry (only
	// contrived data does that); it is then not named.
	overflow bool
}

// maxClaims bounds the versions recorded per entry, so that data built to
// match many overlapping arrays cannot make Scan allocate without bound.
// Real engines have at most a few per entry.
const maxClaims = 64

func (c *claim) add(v *catVersion, at int) {
	for i := range c.versions {
		if c.versions[i] == v && c.at[i] == at {
			return
		}
	}
	if len(c.versions) == maxClaims {
		c.overflow = true
		return
	}
	c.versions = append(c.versions, v)
	c.at = append(c.at, at)
}

func (s *scanner) attribute(cat *catalog, runs []run, family string) *Catalogue {
	out := &Catalogue{byTable: map[uint32][]int{}}
	spans := make([][]span, len(runs))
	var all []span
	for i, r := range runs {
		spans[i] = cat.optimalSpans(r.entries)
		all = append(all, spans[i]...)
	}
	ep := inferEpoch(all, family)
	labels := map[*catVersion]string{} // Array.Candidates, one string per version
	if out.Family = ep.family(); out.Family != "" {
		out.Dates = ep.dates[out.Family]
	}
	for ri, r := range runs {
		es := r.entries
		if len(spans[ri]) == 0 {
			out.Dropped += len(es)
			continue
		}
		claims := make([]claim, len(es))
		for _, sp := range spans[ri] {
			sp = ep.narrow(sp)
			out.Arrays = append(out.Arrays, arrayOf(es, sp, labels))
			for k := 0; k < sp.n; k++ {
				c := &claims[sp.start+k]
				for v := range sp.versions {
					c.add(sp.versions[v], sp.at[v][k])
				}
			}
		}
		extend(es, claims)
		inside := interior(claims)
		for k := range es {
			e := &es[k]
			c := &claims[k]
			if len(c.versions) == 0 && !inside[k] {
				out.Dropped++
				continue
			}
			if !e.isFunc() {
				continue
			}
			for _, kind := range []Kind{Function, Getter, Setter} {
				fn := e.fn
				switch {
				case kind == Function && e.defType != defCFunc,
					kind != Function && e.defType == defCFunc:
					continue
				case kind == Setter:
					fn = e.fn2
				}
				if fn == 0 {
					continue
				}
				out.add(s.native(e, kind, fn, c))
			}
		}
	}
	sort.SliceStable(out.Arrays, func(a, b int) bool { return out.Arrays[a].Address < out.Arrays[b].Address })
	return out
}

// NewCatalogue returns a catalogue of the natives given, indexed as
// Scan's (ByCall, TableName): natives Scan found, kept and read
// back (the profiler's prepared-engine cache keeps them).
func NewCatalogue(list []Native) *Catalogue {
	c := &Catalogue{byTable: map[uint32][]int{}}
	for _, n := range list {
		c.add(n)
	}
	return c
}

func (c *Catalogue) add(n Native) {
	k := len(c.Natives)
	c.Natives = append(c.Natives, n)
	c.byTable[n.TableIndex] = append(c.byTable[n.TableIndex], k)
}

// interior reports, for each entry of a run, whether claimed entries lie
// both before and after it: an unclaimed entry there belongs to an array
// the catalogue does not know and is kept, unattributed. Unclaimed
// entries at a run's edges are not trusted (other data can look like an
// entry next to a real array).
func interior(claims []claim) []bool {
	in := make([]bool, len(claims))
	seen := false
	for k := range claims {
		in[k] = seen
		seen = seen || len(claims[k].versions) > 0
	}
	seen = false
	for k := len(claims) - 1; k >= 0; k-- {
		in[k] = in[k] && seen
		seen = seen || len(claims[k].versions) > 0
	}
	return in
}

func (s *scanner) native(e *rawEntry, kind Kind, fn uint32, c *claim) Native {
	f, _ := s.table.resolve(fn)
	n := Native{
		Property:   e.name,
		Kind:       kind,
		TableIndex: fn,
		Func:       f,
		Magic:      e.magic,
		Entry:      e.addr,
	}
	if kind == Function {
		n.Length, n.CProto = e.length, e.cproto
	}
	owners := map[string]bool{}
	arrays := map[string]bool{}
	cfuncs := map[string]bool{}
	for i, v := range c.versions {
		owners[v.array.owner] = true
		arrays[v.array.name] = true
		ce := &v.entries[c.at[i]]
		if kind == Setter {
			cfuncs[ce.fn2] = true
		} else {
			cfuncs[ce.fn] = true
		}
	}
	delete(cfuncs, "")
	if !c.extended {
		// An extended entry matched no version: the sources do not give
		// its C function.
		n.CFuncs = sortedKeys(cfuncs)
	}
	switch {
	case len(c.versions) == 0 || c.overflow:
		n.Attribution = Unattributed
		n.CFuncs = nil
		n.Name = displayName("?", e.name, kind)
	case len(owners) == 1:
		n.Attribution = Catalogued
		if c.extended {
			n.Attribution = Extended
		}
		for o := range owners {
			n.Owner = o
		}
		if len(arrays) == 1 {
			n.Array = sortedKeys(arrays)[0]
		}
		n.Name = displayName(n.Owner, e.name, kind)
	default:
		n.Attribution = Ambiguous
		n.Name = displayName("?", e.name, kind)
		for _, o := range sortedKeys(owners) {
			n.Candidates = append(n.Candidates, displayName(o, e.name, kind))
		}
	}
	return n
}

func arrayOf(es []rawEntry, sp span, labels map[*catVersion]string) Array {
	a := Array{Address: es[sp.start].addr, Entries: sp.n}
	for _, e := range es[sp.start : sp.start+sp.n] {
		if e.defType == defPropString && e.name == "[Symbol.toStringTag]" {
			a.Tag = e.str
		}
	}
	names := map[string]bool{}
	owners := map[string]bool{}
	for _, v := range sp.versions {
		names[v.array.name] = true
		owners[v.array.owner] = true
		l, ok := labels[v]
		if !ok {
			l = fmt.Sprintf("%s/%s@%s..%s", v.array.family, v.array.name, v.first, v.last)
			labels[v] = l
		}
		a.Candidates = append(a.Candidates, l)
	}
	if len(owners) == 1 {
		a.Owner = sortedKeys(owners)[0]
		if len(names) == 1 {
			a.Name = sortedKeys(names)[0]
		}
	}
	return a
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
