package natives

import (
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/testrules"
	"github.com/jsprof/jsprof/wasmcore"
)

// image layout of the synthetic modules: strings, then entries.
const (
	strBase   = 0x1000
	entryBase = 0x4000
	tableSize = 4096
)

// builder lays out JSCFunctionListEntry arrays in a data segment, as a
// wasm32 C compiler would, with a table whose element segment maps table
// index i to function 1000+i.
type builder struct {
	strs    []byte
	at      map[string]uint32
	entries []byte
	next    uint32 // next table index
}

func newBuilder() *builder { return &builder{at: map[string]uint32{}, next: 1} }

func (b *builder) str(s string) uint32 {
	if a, ok := b.at[s]; ok {
		return a
	}
	a := strBase + uint32(len(b.strs))
	b.strs = append(append(b.strs, s...), 0)
	b.at[s] = a
	return a
}

// entry appends one raw entry.
func (b *builder) entry(name string, flags, defType uint8, magic int16, union [8]byte) {
	var e [entrySize]byte
	binary.LittleEndian.PutUint32(e[0:], b.str(name))
	e[4], e[5] = flags, defType
	binary.LittleEndian.PutUint16(e[6:], uint16(magic))
	copy(e[8:], union[:])
	b.entries = append(b.entries, e[:]...)
}

func (b *builder) fn() uint32 {
	b.next++
	return b.next - 1
}

func (b *builder) cfunc(name string, length, cproto uint8, magic int16) uint32 {
	idx := b.fn()
	var u [8]byte
	u[0], u[1] = length, cproto
	binary.LittleEndian.PutUint32(u[4:], idx)
	b.entry(name, 3, defCFunc, magic, u)
	return idx
}

func (b *builder) propString(name, value string) {
	var u [8]byte
	binary.LittleEndian.PutUint32(u[:], b.str(value))
	b.entry(name, 1, defPropString, 0, u)
}

// version appends the entries of a catalogued version, as the engine
// would declare them, and returns the table index given to each entry
// (0 for entries that are not functions).
func (b *builder) version(t testing.TB, family, array string, pick func(*catVersion) bool) []uint32 {
	t.Helper()
	v := findVersion(t, family, array, pick)
	var idx []uint32
	for _, e := range v.entries {
		if e.optional {
			continue
		}
		magic := int16(0)
		if e.hasMagic {
			magic = int16(e.magic)
		}
		switch e.defType {
		case defCFunc:
			idx = append(idx, b.cfunc(e.name, uint8(max(e.length, 0)), uint8(max(e.cproto, 0)), magic))
		case defCGetSet, defCGetSetMagic:
			var u [8]byte
			var g uint32
			if e.fn != "" {
				g = b.fn()
				binary.LittleEndian.PutUint32(u[0:], g)
			}
			if e.fn2 != "" {
				binary.LittleEndian.PutUint32(u[4:], b.fn())
			}
			b.entry(e.name, 1, uint8(e.defType), magic, u)
			idx = append(idx, g)
		case defPropString:
			b.propString(e.name, e.value)
			idx = append(idx, 0)
		case defAlias:
			var u [8]byte
			binary.LittleEndian.PutUint32(u[:], b.str(e.value))
			binary.LittleEndian.PutUint32(u[4:], ^uint32(0))
			b.entry(e.name, 3, defAlias, 0, u)
			idx = append(idx, 0)
		default:
			var u [8]byte
			dt := e.defType
			if dt < 0 {
				dt = defPropUndef // a local macro's entry: any value will do
			}
			b.entry(e.name, 0, uint8(dt), 0, u)
			idx = append(idx, 0)
		}
	}
	return idx
}

func findVersion(t testing.TB, family, array string, pick func(*catVersion) bool) *catVersion {
	t.Helper()
	cat, err := loadCatalog()
	require.NoError(t, err)
	for _, a := range cat.arrays {
		if a.family != family || a.name != array {
			continue
		}
		for i := len(a.versions) - 1; i >= 0; i-- {
			if pick == nil || pick(a.versions[i]) {
				return a.versions[i]
			}
		}
	}
	t.Fatalf("no version of %s/%s", family, array)
	return nil
}

// module returns a module whose memory holds the strings and entries.
func (b *builder) module() *wasmcore.Module {
	data := make([]byte, entryBase-strBase+len(b.entries))
	copy(data, b.strs)
	copy(data[entryBase-strBase:], b.entries)
	return b.moduleWith(data)
}

func (b *builder) moduleWith(data []byte) *wasmcore.Module {
	funcs := make([]uint32, tableSize-1)
	for i := range funcs {
		funcs[i] = 1001 + uint32(i)
	}
	return &wasmcore.Module{
		Tables:   []wasmcore.TableType{{Elem: wasmcore.ValFuncRef, Limits: wasmcore.Limits{Min: tableSize, Max: tableSize, HasMax: true}}},
		Elements: []wasmcore.Element{{Mode: wasmcore.ElemActive, Offset: wasmcore.ConstI32(1), Type: wasmcore.ValFuncRef, Funcs: funcs}},
		Data:     []wasmcore.DataSegment{{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(strBase), Init: data}},
	}
}

func latest(v *catVersion) bool { return true }

func TestScanSyntheticJSON(t *testing.T) {
	b := newBuilder()
	idx := b.version(t, "quickjs-ng", "js_json_funcs", latest)
	c, err := Scan(b.module(), nil)
	require.NoError(t, err)
	stringify := c.Find("JSON.stringify")
	require.Len(t, stringify, 1)
	n := stringify[0]
	assert.Equal(t, Catalogued, n.Attribution)
	assert.Equal(t, "JSON", n.Owner)
	assert.Equal(t, "stringify", n.Property)
	assert.Equal(t, "js_json_funcs", n.Array)
	assert.Equal(t, []string{"js_json_stringify"}, n.CFuncs)
	assert.Contains(t, idx, n.TableIndex)
	assert.Equal(t, 1000+n.TableIndex, n.Func)
	assert.Equal(t, "JSON.stringify", c.TableName(n.TableIndex))
	assert.Equal(t, "native@table[4000]", c.TableName(4000))
	require.Len(t, c.Arrays, 1)
	assert.Equal(t, "JSON", c.Arrays[0].Tag)
	// This version of the array is in both families' releases.
	assert.Equal(t, "", c.Family)
}

// Arrays laid out back to back are split by their members.
func TestScanSyntheticAdjacentArrays(t *testing.T) {
	b := newBuilder()
	b.version(t, "quickjs", "js_json_funcs", latest)
	b.version(t, "quickjs", "js_math_funcs", latest)
	b.version(t, "quickjs", "js_map_proto_funcs", latest)
	b.version(t, "quickjs", "js_set_proto_funcs", latest)
	c, err := Scan(b.module(), nil)
	require.NoError(t, err)
	for _, name := range []string{"JSON.parse", "Math.max", "Math.min", "get Map.prototype.size", "Map.prototype.has", "Set.prototype.has", "get Set.prototype.size"} {
		found := c.Find(name)
		if assert.Len(t, found, 1, name) {
			assert.Equal(t, Catalogued, found[0].Attribution, name)
		}
	}
	// Math.min and Math.max share js_math_min_max: one table index per
	// entry here, but the magic tells them apart as it does at run time.
	assert.NotEqual(t, c.Find("Math.min")[0].Magic, c.Find("Math.max")[0].Magic)
	for _, n := range c.Natives {
		assert.NotContains(t, n.Name, "?", n.Name)
	}
}

// BigFloat.prototype and BigDecimal.prototype have one shape: the owner
// is not guessed.
func TestScanSyntheticAmbiguous(t *testing.T) {
	b := newBuilder()
	b.version(t, "quickjs", "js_bigfloat_proto_funcs", latest)
	c, err := Scan(b.module(), nil)
	require.NoError(t, err)
	found := c.Find("?.toFixed")
	require.Len(t, found, 1)
	assert.Equal(t, Ambiguous, found[0].Attribution)
	assert.Equal(t, "", found[0].Owner)
	assert.Equal(t, []string{"BigDecimal.prototype.toFixed", "BigFloat.prototype.toFixed"}, found[0].Candidates)
	assert.Empty(t, c.Find("BigFloat.prototype.toFixed"))
}

// An array the catalogue does not know is named "?.x" between known
// arrays, and dropped at the edge of a run, where it may be other data.
func TestScanSyntheticUnknown(t *testing.T) {
	b := newBuilder()
	b.version(t, "quickjs", "js_json_funcs", latest)
	b.cfunc("frobnicate", 1, 0, 0)
	b.version(t, "quickjs", "js_reflect_funcs", latest)
	b.cfunc("twiddle", 1, 0, 0)
	c, err := Scan(b.module(), nil)
	require.NoError(t, err)
	found := c.Find("?.frobnicate")
	require.Len(t, found, 1)
	assert.Equal(t, Unattributed, found[0].Attribution)
	assert.Empty(t, c.Find("?.twiddle"))
	assert.Equal(t, 1, c.Dropped)
	assert.Len(t, c.Find("Reflect.apply"), 1)
}

// A member a patched engine added next to a known array is claimed by
// that array when its other versions have it.
func TestScanSyntheticExtended(t *testing.T) {
	b := newBuilder()
	b.version(t, "quickjs", "js_function_proto_funcs", func(v *catVersion) bool { return len(v.entries) == 7 })
	var u [8]byte
	binary.LittleEndian.PutUint32(u[:], b.fn())
	b.entry("columnNumber", 1, defCGetSet, 0, u) // Bellard's later releases: JS_CGETSET_MAGIC_DEF
	b.version(t, "quickjs", "js_json_funcs", latest)
	c, err := Scan(b.module(), nil)
	require.NoError(t, err)
	found := c.Find("get Function.prototype.columnNumber")
	require.Len(t, found, 1)
	assert.Equal(t, Extended, found[0].Attribution)
	assert.Empty(t, found[0].CFuncs)
}

// Entries whose pointers are not what they must be are not entries.
func TestScanSyntheticMalformed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		patch func(e []byte)
	}{
		{"table index beyond the table", func(e []byte) { binary.LittleEndian.PutUint32(e[12:], tableSize+5) }},
		{"null function", func(e []byte) { binary.LittleEndian.PutUint32(e[12:], 0) }},
		{"def_type out of range", func(e []byte) { e[5] = 12 }},
		{"prop_flags out of range", func(e []byte) { e[4] = 8 }},
		{"cproto out of range", func(e []byte) { e[9] = 13 }},
		{"name not a property name", func(e []byte) { binary.LittleEndian.PutUint32(e[0:], strBase+2) }},
		{"name outside memory", func(e []byte) { binary.LittleEndian.PutUint32(e[0:], 0xfffffff0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			b.str("x\x01y") // at strBase: a name that is not one
			b.version(t, "quickjs", "js_json_funcs", latest)
			tc.patch(b.entries[0:entrySize]) // "parse"
			c, err := Scan(b.module(), nil)
			require.NoError(t, err)
			assert.Empty(t, c.Find("JSON.parse"))
		})
	}
}

// Wizer snapshots split data segments at runs of zeros, inside entries.
func TestScanSyntheticSplitSegments(t *testing.T) {
	b := newBuilder()
	b.version(t, "quickjs-ng", "js_json_funcs", latest)
	m := b.module()
	whole := m.Data[0].Init
	var segs []wasmcore.DataSegment
	for lo := 0; lo < len(whole); {
		for lo < len(whole) && whole[lo] == 0 {
			lo++
		}
		hi := lo
		for hi < len(whole) && !(whole[hi] == 0 && hi+1 < len(whole) && whole[hi+1] == 0) {
			hi++
		}
		if hi > lo {
			segs = append(segs, wasmcore.DataSegment{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(int32(strBase + lo)), Init: whole[lo:hi]})
		}
		lo = hi
	}
	require.Greater(t, len(segs), 5)
	m.Data = segs
	c, err := Scan(m, nil)
	require.NoError(t, err)
	assert.Len(t, c.Find("JSON.stringify"), 1)
}

func TestScanNilModule(t *testing.T) {
	_, err := Scan(nil, nil)
	assert.ErrorContains(t, err, "nil module")
	c, err := Scan(&wasmcore.Module{}, nil)
	require.NoError(t, err)
	assert.Empty(t, c.Natives)
}

func TestCatalog(t *testing.T) {
	cat, err := loadCatalog()
	require.NoError(t, err)
	families := map[string]int{}
	owners := map[string]string{}
	for _, a := range cat.arrays {
		families[a.family]++
		owners[a.family+"/"+a.name] = a.owner
		for _, v := range a.versions {
			assert.NotEmpty(t, v.entries, a.name)
			assert.LessOrEqual(t, v.first, v.last, a.name)
		}
	}
	assert.Greater(t, families["quickjs"], 60)
	assert.Greater(t, families["quickjs-ng"], 60)
	for array, owner := range map[string]string{
		"quickjs/js_json_funcs":                 "JSON",
		"quickjs-ng/js_array_proto_funcs":       "Array.prototype",
		"quickjs/js_global_funcs":               "",
		"quickjs-ng/js_set_proto_funcs":         "Set.prototype",
		"quickjs/js_array_iterator_proto_funcs": "%ArrayIteratorPrototype%",
	} {
		assert.Equal(t, owner, owners[array], array)
	}
	v := findVersion(t, "quickjs-ng", "js_number_proto_funcs", latest)
	var toFixed *catEntry
	for i := range v.entries {
		if v.entries[i].name == "toFixed" {
			toFixed = &v.entries[i]
		}
	}
	require.NotNil(t, toFixed)
	assert.Equal(t, defCFunc, toFixed.defType)
	assert.Equal(t, 1, toFixed.length)
	assert.Equal(t, "js_number_toFixed", toFixed.fn)
}

// TestScanAllocation bounds what Scan allocates on the worst inputs that
// look like engine data: memory full of valid arrays, and entries every
// one of which several catalogued arrays could be. It runs in a process
// of its own, where what the heap allocated is what Scan did.
func TestScanAllocation(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	for _, tc := range []struct {
		name  string
		build func(b *builder)
	}{
		{"arrays", func(b *builder) {
			for b.next < tableSize-200 {
				b.version(t, "quickjs", "js_math_funcs", latest)
				b.version(t, "quickjs", "js_json_funcs", latest)
			}
		}},
		{"overlapping", func(b *builder) {
			// [Symbol.species] getters: the whole of several arrays.
			var u [8]byte
			binary.LittleEndian.PutUint32(u[:], b.fn())
			for range 20000 {
				b.entry("[Symbol.species]", 1, defCGetSet, 0, u)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			tc.build(b)
			m := b.module()
			size := len(m.Data[0].Init)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			c, err := Scan(m, nil)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			require.NotEmpty(t, c.Natives)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes of data, %d natives, %d bytes allocated (%.1f per byte)", size, len(c.Natives), alloc, float64(alloc)/float64(size))
			// Linear in the data: a few kilobytes per entry found at worst.
			assert.Less(t, alloc, uint64(400*size))
		})
	}
}

func FuzzScan(f *testing.F) {
	b := newBuilder()
	for _, a := range []string{"js_json_funcs", "js_math_funcs", "js_map_proto_funcs"} {
		b.version(f, "quickjs", a, latest)
	}
	full := b.module().Data[0].Init
	f.Add(full)
	f.Add(full[:len(full)/2])
	f.Add([]byte{0, 'a', 's', 'm', 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		// As module data, behind a table of tableSize functions.
		m := b.moduleWith(data)
		check(t, m)
		// As a whole module.
		if m, err := wasmcore.Decode(data); err == nil {
			check(t, m)
			if c, err := FindCFunctionCalls(m, nil); err == nil && len(c.Sites) < 8 {
				t.Fatalf("%d sites", len(c.Sites))
			}
		}
	})
}

func check(t *testing.T, m *wasmcore.Module) {
	c, err := Scan(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	var data int
	for _, d := range m.Data {
		data += len(d.Init)
	}
	if len(c.Natives) > 2*data/entrySize {
		t.Fatalf("%d natives from %d bytes", len(c.Natives), data)
	}
	for _, n := range c.Natives {
		if n.TableIndex == 0 || n.Name == "" || strings.HasPrefix(n.Name, ".") {
			t.Fatalf("bad native %+v", n)
		}
	}
}
