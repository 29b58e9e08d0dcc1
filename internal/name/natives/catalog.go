package natives

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
)

// Regenerate with QUICKJS_GIT and QUICKJS_NG_GIT naming git directories
// (clones or mirrors) of github.com/bellard/quickjs and
// github.com/quickjs-ng/quickjs:
//
//go:generate go run ./internal/gen -bellard ${QUICKJS_GIT} -ng ${QUICKJS_NG_GIT} -owners internal/gen/owners.tsv -out catalog.json

// catalogJSON is the project's own table of every JSCFunctionListEntry
// array of QuickJS and QuickJS-NG, each distinct version of it across both
// histories, and the object its entries belong to (internal/gen).
//
//go:embed catalog.json
var catalogJSON []byte

// catEntry is one entry of a catalogued array. Fields the source gives as
// an expression rather than a literal are unknown (-1, or "" for value) and
// match anything.
type catEntry struct {
	name     string // "" for entries made by a local macro: matches any name
	defType  int    // -1: unknown macro, matches any kind
	length   int    // CFUNC
	cproto   int    // CFUNC
	fn, fn2  string // C function(s)
	value    string // PROP_STRING value, ALIAS target
	magic    int
	hasMagic bool // magic is a literal
	optional bool // under a preprocessor condition
}

type catVersion struct {
	array     *catArray
	first     string
	last      string
	releases  []string
	entries   []catEntry
	mandatory int // entries not under a condition
}

type catArray struct {
	family   string
	name     string // the C array, e.g. js_json_funcs
	owner    string // the object, e.g. JSON; "" for the global object
	versions []*catVersion
}

type catalog struct {
	arrays []*catArray
	// byName lists the versions in which an entry of that name can come
	// first (the first entry, or one after optional entries only).
	byName map[string][]*catVersion
	// wild lists the versions whose first entries may have any name.
	wild []*catVersion
}

var cproto = map[string]int{
	"generic": 0, "generic_magic": 1, "constructor": 2, "constructor_magic": 3,
	"constructor_or_func": 4, "constructor_or_func_magic": 5, "f_f": 6, "f_f_f": 7,
	"getter": 8, "setter": 9, "getter_magic": 10, "setter_magic": 11, "iterator_next": 12,
}

var defTypes = map[string]int{
	"cfunc": defCFunc, "getset": defCGetSet, "getset_magic": defCGetSetMagic,
	"string": defPropString, "int32": defPropInt32, "int64": defPropInt64,
	"double": defPropDouble, "undefined": defPropUndef, "object": defObject,
	"alias": defAlias, "atom": defPropAtom, "bool": defPropBool, "?": -1,
}

// The catalogue is parsed once per process and never modified.
var loadCatalog = sync.OnceValues(func() (*catalog, error) { return parseCatalog(catalogJSON) })

func parseCatalog(data []byte) (*catalog, error) {
	type version struct {
		First    string      `json:"first"`
		Last     string      `json:"last"`
		Releases []string    `json:"releases"`
		Entries  [][9]string `json:"entries"`
	}
	type array struct {
		Family   string    `json:"family"`
		Array    string    `json:"array"`
		Owner    string    `json:"owner"`
		Versions []version `json:"versions"`
	}
	c := &catalog{byName: map[string][]*catVersion{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var a array
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("natives: catalog.json line %d: %w", line, err)
		}
		ca := &catArray{family: a.Family, name: a.Array, owner: a.Owner}
		for _, v := range a.Versions {
			cv := &catVersion{array: ca, first: v.First, last: v.Last, releases: v.Releases}
			for _, e := range v.Entries {
				ce, err := parseCatEntry(e)
				if err != nil {
					return nil, fmt.Errorf("natives: catalog.json line %d (%s): %w", line, a.Array, err)
				}
				cv.entries = append(cv.entries, ce)
				if !ce.optional {
					cv.mandatory++
				}
			}
			if cv.mandatory == 0 || 2*wild(cv.entries) > len(cv.entries) {
				// Nothing to recognise it by: entries made by local
				// macros (js_std_error_props) would match any run.
				continue
			}
			ca.versions = append(ca.versions, cv)
			c.index(cv)
		}
		c.arrays = append(c.arrays, ca)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("natives: catalog.json: %w", err)
	}
	return c, nil
}

func (c *catalog) index(v *catVersion) {
	seen := map[string]bool{}
	for _, e := range v.entries {
		if e.name == "" {
			c.wild = append(c.wild, v)
			return
		}
		if !seen[e.name] {
			seen[e.name] = true
			c.byName[e.name] = append(c.byName[e.name], v)
		}
		if !e.optional {
			return
		}
	}
}

func parseCatEntry(f [9]string) (catEntry, error) {
	e := catEntry{name: f[0], length: -1, cproto: -1, fn: f[4], fn2: f[5], value: f[6]}
	dt, ok := defTypes[f[1]]
	if !ok {
		return e, fmt.Errorf("unknown kind %q", f[1])
	}
	e.defType = dt
	if n, err := strconv.Atoi(f[2]); err == nil {
		e.length = n
	}
	if n, ok := cproto[f[3]]; ok {
		e.cproto = n
	}
	if f[7] == "" {
		e.hasMagic = true
	} else if n, err := strconv.Atoi(f[7]); err == nil {
		e.magic, e.hasMagic = n, true
	}
	e.optional = f[8] != ""
	return e, nil
}

// matches reports whether a decoded entry is what the catalogue entry
// declares: same name and kind, and the same length, cproto, magic,
// getter/setter presence and string value where the source gives them
// literally.
func (c *catEntry) matches(e *rawEntry) bool {
	if c.name != "" && c.name != e.name {
		return false
	}
	if c.defType < 0 {
		return true
	}
	if int(e.defType) != c.defType {
		return false
	}
	switch e.defType {
	case defCFunc:
		if c.length >= 0 && int(e.length) != c.length || c.cproto >= 0 && int(e.cproto) != c.cproto {
			return false
		}
	case defCGetSet, defCGetSetMagic:
		if (e.fn != 0) != (c.fn != "") || (e.fn2 != 0) != (c.fn2 != "") {
			return false
		}
	case defPropString:
		return e.str == c.value
	case defAlias:
		return e.str == c.value
	}
	if e.isFunc() && c.hasMagic && int(e.magic) != c.magic {
		return false
	}
	return true
}

func wild(es []catEntry) int {
	n := 0
	for _, e := range es {
		if e.name == "" {
			n++
		}
	}
	return n
}
