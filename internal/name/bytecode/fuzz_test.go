package bytecode

import (
	"runtime"
	"testing"

	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/testrules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseBytecode: whatever the bytes, Parse returns (no panic,
// no runaway recursion), and what it returns stays within the input's
// size. Seeded with real bytecode of both engines.
func FuzzParseBytecode(f *testing.F) {
	specs := []EngineSpec{namingSpec(f, "javy-plugin-1.7.0"), namingSpec(f, "javy-plugin-1.1.0")}
	for _, engine := range bctest.Plugins {
		for _, program := range bctest.Programs {
			f.Add(bctest.Bytecode(f, engine, program))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, spec := range specs {
			if prog, err := Parse(b, spec); err == nil {
				checkBounded(t, spec.TableID, prog, b)
			}
		}
	})
}

// TestParseBytecodeAllocation: hostile counts (huge atom tables, strings,
// functions nested without end) are refused without allocating for them.
// It runs in a process of its own, where what the heap allocated is what
// Parse did.
func TestParseBytecodeAllocation(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	spec := namingSpec(t, "javy-plugin-1.7.0")
	nested := []byte{0x15, 0x00} // no atoms, then functions whose constant pools hold functions
	fn := []byte{0x0c, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 1, 0, 0}
	for i := 0; i < 10000; i++ {
		nested = append(nested, fn...)
	}
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"atom count", []byte{0x15, 0xff, 0xff, 0xff, 0xff, 0x0f}, "atom count"},
		{"string length", []byte{0x15, 0x01, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f}, "string of"},
		{"code length", append([]byte{0x15, 0x00, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0xff, 0xff, 0xff, 0xff, 0x0f, 0), "bytes of code"},
		{"nesting", nested, "nested more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse(tt.input, spec)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64*len(tt.input)+1<<20))
		})
	}
}

// BenchmarkParseBytecode parses the largest fixture program (classes.js)
// as each engine serialized it.
func BenchmarkParseBytecode(b *testing.B) {
	for _, engine := range bctest.Plugins {
		spec := namingSpec(b, engine)
		bc := bctest.Bytecode(b, engine, "classes")
		b.Run(engine, func(b *testing.B) {
			b.SetBytes(int64(len(bc)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Parse(bc, spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fuzzLayout is the body of the per-layout fuzz targets: whatever the
// bytes, reading them in the layout returns (no panic, no runaway
// recursion or allocation), and what it returns stays within the input.
func fuzzLayout(f *testing.F, spec EngineSpec, layouts []*Layout, seeds [][]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, l := range layouts {
			prog, err := ParseLayout(b, spec, l)
			if err == nil {
				checkBounded(t, l.Name, prog, b)
			}
		}
	})
}

// checkBounded: what a parse returns stays within the input's size.
func checkBounded(t *testing.T, what string, prog *Program, b []byte) {
	t.Helper()
	code := 0
	for _, fn := range prog.Functions {
		code += len(fn.Code) + len(fn.Lines)
	}
	if len(prog.Functions) > len(b) || code > 2*len(b) {
		t.Fatalf("%s: %d functions, %d bytes of code and line entries from %d bytes", what, len(prog.Functions), code, len(b))
	}
}

// FuzzParseReleases reads every release of testdata/releases (golden
// output of native builds of each release's source, one per serialization
// version) with its own engine description: Parse, which selects the
// layout by the version byte, and the release's layout whatever the
// version byte has become. The first argument picks the release, so each
// release's bytes are mutated against its own opcodes and atoms.
func FuzzParseReleases(f *testing.F) {
	type release struct {
		name   string
		spec   EngineSpec
		layout *Layout
	}
	var rs []release
	for _, name := range goldenReleases(f) {
		rs = append(rs, release{name, readSpec(f, releasesPath(name+".json")), mustLayouts(f, releaseWant[name].layout)[0]})
	}
	require.NotEmpty(f, rs)
	for i, r := range rs {
		for _, p := range formatPrograms {
			f.Add(uint8(i), readGolden(f, r.name, p))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		r := rs[int(which)%len(rs)]
		if prog, err := Parse(b, r.spec); err == nil {
			checkBounded(t, r.name, prog, b)
		}
		if prog, err := ParseLayout(b, r.spec, r.layout); err == nil {
			checkBounded(t, r.name+" as "+r.layout.Name, prog, b)
		}
	})
}

func mustLayouts(tb testing.TB, names ...string) []*Layout {
	var out []*Layout
	for _, n := range names {
		l, ok := LayoutByName(n)
		require.True(tb, ok, n)
		out = append(out, l)
	}
	return out
}

func formatSeeds(tb testing.TB, provider string) [][]byte {
	var out [][]byte
	for _, p := range formatPrograms {
		out = append(out, readFormats(tb, provider, p))
	}
	return out
}

func pluginSeeds(tb testing.TB, engine string) [][]byte {
	var out [][]byte
	for _, p := range bctest.Programs {
		out = append(out, bctest.Bytecode(tb, engine, p))
	}
	return out
}

// FuzzParseNG13 reads QuickJS-NG v0.13+ (checksum, typed atoms,
// var_ref_count, LEB128 closure flags), seeded with
// shopify_functions_javy_v4's output. The checksum is what a mutation
// breaks first: NG12 (the same layout without it) is fuzzed alongside.
func FuzzParseNG13(f *testing.F) {
	fuzzLayout(f, formatsSpec(f, "shopify_functions_javy_v4"), mustLayouts(f, "NG13", "NG12"), formatSeeds(f, "shopify_functions_javy_v4"))
}

// FuzzParseNG10 reads QuickJS-NG v0.5-v0.11 layouts, seeded with Javy
// plugin 1.7.0's output (v0.10/v0.11).
func FuzzParseNG10(f *testing.F) {
	fuzzLayout(f, namingSpec(f, "javy-plugin-1.7.0"), mustLayouts(f, "NG10", "NG09", "NG061", "NG05"), pluginSeeds(f, "javy-plugin-1.7.0"))
}

// FuzzParseB2020 reads Bellard's layouts of 2019-2024 (version 1/2) and
// QuickJS-NG's first ones, seeded with Javy provider v1's output (Bellard
// 2023-12-09).
func FuzzParseB2020(f *testing.F) {
	fuzzLayout(f, formatsSpec(f, "javy_quickjs_provider_v1"),
		mustLayouts(f, "B2020", "B2020a", "B2019a", "B2019b", "B2019c", "B2024", "NG01", "NG02", "NG03"), formatSeeds(f, "javy_quickjs_provider_v1"))
}

// FuzzParseB3rq reads Bellard's 2024-2025 layouts (version 3/0x43, 4, 5)
// and rquickjs's patched ones, seeded with Javy plugin 1.1.0's output.
func FuzzParseB3rq(f *testing.F) {
	fuzzLayout(f, namingSpec(f, "javy-plugin-1.1.0"),
		mustLayouts(f, "B3rq", "B3", "B2rq", "B4a", "B4b", "B4c", "B4", "B5a", "B5b", "B5c", "B5d"), pluginSeeds(f, "javy-plugin-1.1.0"))
}
