package natives_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/wasmcore"
)

// engine is one real engine build and what Scan must find in it.
type engine struct {
	name     string // a fixtures engine, or "provider:" and a provider file
	named    bool   // a name section names the C functions
	family   string // the epoch's family
	natives  int    // natives found
	certain  int    // Catalogued
	extended int    // Extended
	ambig    int    // Ambiguous
}

// engines pins what Scan finds in every real build at hand. The counts
// are regression pins: they change only when the catalogue or the
// matching does, and a change must be explained.
var engines = []engine{
	{name: "javy-plugin-1.7.0", family: "quickjs-ng", natives: 477, certain: 475, ambig: 2},
	{name: "javy-plugin-1.1.0", named: true, family: "quickjs", natives: 495, certain: 482, extended: 1, ambig: 12},
	{name: "jitl-debug-0.32.0", family: "quickjs", natives: 464, certain: 464},
	{name: "jitl-release-0.25.0", family: "quickjs", natives: 412, certain: 409, ambig: 3},
	{name: "jitl-release-0.28.0", family: "quickjs", natives: 497, certain: 485, ambig: 12},
	{name: "jitl-release-0.32.0", family: "quickjs", natives: 464, certain: 464},
	{name: "jitl-ng-release-0.26.0", family: "quickjs-ng", natives: 432, certain: 430, ambig: 2},
	{name: "jitl-ng-release-0.29.0", family: "quickjs-ng", natives: 432, certain: 430, ambig: 2},
	{name: "jitl-ng-release-0.32.0", family: "quickjs-ng", natives: 483, certain: 481, ambig: 2},
	{name: "provider:javy_quickjs_provider_v1", named: true, family: "quickjs", natives: 412, certain: 409, ambig: 3},
	{name: "provider:javy_quickjs_provider_v2", named: true, family: "quickjs", natives: 495, certain: 482, extended: 1, ambig: 12},
	{name: "provider:javy_quickjs_provider_v3", named: true, family: "quickjs", natives: 495, certain: 482, extended: 1, ambig: 12},
	{name: "provider:shopify_functions_javy_v1", family: "quickjs", natives: 495, certain: 482, extended: 1, ambig: 12},
	{name: "provider:shopify_functions_javy_v2", family: "quickjs", natives: 495, certain: 482, extended: 1, ambig: 12},
	{name: "provider:shopify_functions_javy_v3", family: "quickjs", natives: 496, certain: 483, extended: 1, ambig: 12},
	{name: "provider:shopify_functions_javy_v4", family: "quickjs-ng", natives: 499, certain: 497, ambig: 2},
	// Not QuickJS: the Wasm API providers declare no builtins.
	{name: "provider:shopify_function_v1"},
	{name: "provider:shopify_function_v2"},
}

func loadEngine(t testing.TB, name string) *wasmcore.Module {
	t.Helper()
	var b []byte
	if file, ok := strings.CutPrefix(name, "provider:"); ok {
		var err error
		b, err = os.ReadFile(filepath.Join(fixtures.ProvidersDir(t), file+".wasm"))
		require.NoError(t, err)
	} else {
		b = fixtures.EngineBytes(t, name)
	}
	m, err := wasmcore.Decode(b)
	require.NoError(t, err, name)
	return m
}

func scanEngine(t testing.TB, name string) (*wasmcore.Module, *natives.Catalogue) {
	t.Helper()
	m := loadEngine(t, name)
	c, err := natives.Scan(m, nil)
	require.NoError(t, err, name)
	return m, c
}

func TestScanEngines(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			m, c := scanEngine(t, e.name)
			counts := map[natives.Attribution]int{}
			for _, n := range c.Natives {
				counts[n.Attribution]++
				// Every native is a function of the module, through the
				// element segments.
				assert.NotZero(t, n.TableIndex, n.Name)
				assert.Less(t, n.Func, m.NumFuncs(), n.Name)
				assert.NotEmpty(t, n.Name)
				switch n.Attribution {
				case natives.Catalogued:
					assert.NotEmpty(t, n.CFuncs, "%s: a catalogued entry has the C function its source gives", n.Name)
					assert.NotEmpty(t, n.Array, n.Name)
				case natives.Ambiguous:
					assert.True(t, strings.Contains(n.Name, "?."), n.Name)
					assert.GreaterOrEqual(t, len(n.Candidates), 2, n.Name)
				}
			}
			t.Logf("%s: %d natives (%v), %d arrays, epoch %s %v, %d entries dropped",
				e.name, len(c.Natives), counts, len(c.Arrays), c.Family, c.Dates, c.Dropped)
			assert.Equal(t, e.natives, len(c.Natives), "natives")
			assert.Equal(t, e.certain, counts[natives.Catalogued], "catalogued")
			assert.Equal(t, e.extended, counts[natives.Extended], "extended")
			assert.Equal(t, e.ambig, counts[natives.Ambiguous], "ambiguous")
			assert.Zero(t, counts[natives.Unattributed], "unattributed")
			assert.Equal(t, e.family, c.Family, "family")
		})
	}
}

// TestScanAgreesWithNames checks every name against the builds that name
// their C functions: the Wasm function a native's table index resolves to
// must be the C function the engine's source declares for that entry
// (JSON.stringify → js_json_stringify, Math.abs → fabs), as the name
// section says. (javy_quickjs_provider_v1's DWARF describes only its Rust
// code, 233 functions and none of QuickJS's, so it cannot serve.) The one
// kind of exception is an Extended entry, which no catalogued version
// declares: its C function must at least carry the property's name
// (get Function.prototype.columnNumber → js_function_proto_columnNumber in
// Javy's patched 2024 engine). Ambiguous entries must resolve to one of
// their candidates' C functions.
func TestScanAgreesWithNames(t *testing.T) {
	for _, e := range engines {
		if !e.named {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			m, c := scanEngine(t, e.name)
			sym, err := wasmcore.NewSymbolizer(m)
			require.NoError(t, err)
			var catalogued, agree, ambiguous, consistent, extended, carry int
			for _, n := range c.Natives {
				fn := sym.FuncName(n.Func)
				switch n.Attribution {
				case natives.Catalogued:
					catalogued++
					if assert.Contains(t, n.CFuncs, fn, "%s (table %d, function %d)", n.Name, n.TableIndex, n.Func) {
						agree++
					}
				case natives.Ambiguous:
					ambiguous++
					if assert.Contains(t, n.CFuncs, fn, "%s (table %d, function %d)", n.Name, n.TableIndex, n.Func) {
						consistent++
					}
				case natives.Extended:
					extended++
					if assert.Contains(t, fn, n.Property, n.Name) {
						carry++
					}
				}
			}
			t.Logf("%s: catalogued %d/%d agree, ambiguous %d/%d consistent, extended %d/%d carry the name",
				e.name, agree, catalogued, consistent, ambiguous, carry, extended)
			assert.Equal(t, e.certain, catalogued)
		})
	}
}

// TestScanOwnersAgreeWithTags checks owners on every build, stripped or
// not: where an array has a [Symbol.toStringTag] string, it is the
// engine's own name for the object the catalogue attributed the array to.
func TestScanOwnersAgreeWithTags(t *testing.T) {
	intrinsic := map[string]string{
		"":                                   "global",
		"%ArrayIteratorPrototype%":           "Array Iterator",
		"%AsyncFunction.prototype%":          "AsyncFunction",
		"%AsyncGeneratorFunction.prototype%": "AsyncGeneratorFunction",
		"%AsyncGeneratorPrototype%":          "AsyncGenerator",
		"%GeneratorFunction.prototype%":      "GeneratorFunction",
		"%GeneratorPrototype%":               "Generator",
		"%IteratorConcatPrototype%":          "Iterator Concat",
		"%IteratorHelperPrototype%":          "Iterator Helper",
		"%MapIteratorPrototype%":             "Map Iterator",
		"%RegExpStringIteratorPrototype%":    "RegExp String Iterator",
		"%SetIteratorPrototype%":             "Set Iterator",
		"%StringIteratorPrototype%":          "String Iterator",
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			_, c := scanEngine(t, e.name)
			checked := 0
			for _, a := range c.Arrays {
				if a.Tag == "" || a.Owner == "" && a.Name == "" {
					continue
				}
				want, ok := intrinsic[a.Owner]
				if !ok {
					want = strings.TrimSuffix(a.Owner, ".prototype")
				}
				assert.Equal(t, want, a.Tag, "array %s at %#x", a.Name, a.Address)
				checked++
			}
			if e.natives > 0 {
				assert.GreaterOrEqual(t, checked, 15, "arrays with a tag")
			}
		})
	}
}

// TestScanStrippedNames asserts, on every build, the natives a profile of
// a JSON-heavy program meets most (FIELD-NOTES §7): each exactly once, as
// a function of the module.
func TestScanStrippedNames(t *testing.T) {
	want := []string{
		"JSON.parse", "JSON.stringify", "Array.prototype.sort", "Array.prototype.some",
		"Number.prototype.toFixed", "Set.prototype.has", "Map.prototype.has",
		"get Map.prototype.size", "get Set.prototype.size", "parseFloat", "Math.max",
		"String.prototype.indexOf", "Object.keys", "get ArrayBuffer.prototype.byteLength",
		"%ArrayIteratorPrototype%.next",
	}
	for _, e := range engines {
		if e.natives == 0 {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			m, c := scanEngine(t, e.name)
			for _, name := range want {
				found := c.Find(name)
				if assert.Len(t, found, 1, name) {
					n := found[0]
					assert.Equal(t, natives.Catalogued, n.Attribution, name)
					f, ok := resolve(m, n.TableIndex)
					assert.True(t, ok, name)
					assert.Equal(t, f, n.Func, name)
					assert.Contains(t, c.TableName(n.TableIndex), name)
				}
			}
			// Builtins sharing a C function are told apart by magic.
			setHas, mapHas := c.Find("Set.prototype.has"), c.Find("Map.prototype.has")
			if len(setHas) == 1 && len(mapHas) == 1 {
				assert.Equal(t, setHas[0].TableIndex, mapHas[0].TableIndex, "one C function, js_map_has")
				assert.NotEqual(t, setHas[0].Magic, mapHas[0].Magic)
				byCall := c.ByCall(setHas[0].TableIndex, setHas[0].Magic)
				if assert.Len(t, byCall, 1) {
					assert.Equal(t, "Set.prototype.has", byCall[0].Name)
				}
			}
		})
	}
}

// resolve is an independent reading of the element segments.
func resolve(m *wasmcore.Module, idx uint32) (uint32, bool) {
	f, ok := uint32(0), false
	for _, e := range m.Elements {
		off, isConst := e.Offset.I32()
		if e.Mode != wasmcore.ElemActive || !isConst || idx < uint32(off) || idx-uint32(off) >= uint32(len(e.Funcs)) {
			continue
		}
		f, ok = e.Funcs[idx-uint32(off)], true
	}
	return f, ok
}

// TestScanTwins compares stripped builds with named builds of the same
// engine: they must declare the same natives.
func TestScanTwins(t *testing.T) {
	twins := [][2]string{
		{"javy-plugin-1.1.0", "provider:javy_quickjs_provider_v2"},
		{"provider:javy_quickjs_provider_v3", "provider:shopify_functions_javy_v1"},
		{"provider:javy_quickjs_provider_v3", "provider:shopify_functions_javy_v2"},
		{"jitl-debug-0.32.0", "jitl-release-0.32.0"},
		{"provider:javy_quickjs_provider_v1", "jitl-release-0.25.0"},
	}
	for _, tw := range twins {
		t.Run(tw[0]+"="+tw[1], func(t *testing.T) {
			_, a := scanEngine(t, tw[0])
			_, b := scanEngine(t, tw[1])
			assert.Equal(t, names(a), names(b))
		})
	}
}

func names(c *natives.Catalogue) []string {
	var out []string
	for _, n := range c.Natives {
		out = append(out, n.Name)
	}
	sort.Strings(out)
	return out
}

// TestScanWithReport passes the dispatch analysis' engine family: it
// agrees with the epoch the arrays give, and the names do not change.
func TestScanWithReport(t *testing.T) {
	for _, name := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		t.Run(name, func(t *testing.T) {
			m, without := scanEngine(t, name)
			r, err := dispatch.Analyze(context.Background(), m)
			require.NoError(t, err)
			with, err := natives.Scan(m, r)
			require.NoError(t, err)
			assert.Equal(t, r.Engine.Family, with.Family)
			assert.Equal(t, names(without), names(with))
		})
	}
}

func BenchmarkScan(b *testing.B) {
	for _, name := range []string{"javy-plugin-1.1.0", "javy-plugin-1.7.0"} {
		b.Run(name, func(b *testing.B) {
			m := loadEngine(b, name)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := natives.Scan(m, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
