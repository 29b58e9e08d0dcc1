package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// nativeEngines are the three real engines the natives' acceptance tests
// run on: the stripped QuickJS-NG of the npm 1.7.0 plugin, the Bellard
// QuickJS of the 1.1.0 plugin (with a name section), and Shopify's
// stripped shopify_functions_javy_v1 provider (a dynamic module's plugin).
var nativeEngines = []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0", "shopify_functions_javy_v1"}

// profiled is a fixture program profiled on one engine.
type profiled struct {
	prof   *jsprofile.Profile
	tables *report.Tables
}

// profileFixture builds fixtures/js/<program>.js for engine and profiles
// it with jsprof run (extra flags first).
func profileFixture(t *testing.T, engine, program string, extra ...string) profiled {
	t.Helper()
	dir := t.TempDir()
	src := fixtures.Path("js", program+".js")
	out := filepath.Join(dir, "profile.pb.gz")
	args := append([]string{"run", "-q", "-o", out}, extra...)
	if strings.HasPrefix(engine, "javy-plugin-") {
		module := filepath.Join(dir, "index.wasm")
		require.NoError(t, os.WriteFile(module, buildSource(t, engine, readFileText(t, src)), 0o644))
		got := jsprof(t, "", append(args, module)...)
		require.Equal(t, 0, got.code, got.stderr)
	} else {
		// A Shopify Function writes JSON; these programs write lines, so
		// jsprof says the output is missing, after writing the profile.
		module := buildFunction(t, engine, src)
		input := filepath.Join(dir, "input.json")
		require.NoError(t, os.WriteFile(input, []byte("{}"), 0o644))
		got := jsprof(t, "", append(args, "--plugin", filepath.Join(fixtures.ProvidersDir(t), engine+".wasm"), "--input", input, module)...)
		require.Contains(t, got.stderr, "_start ("+engine)
	}
	p, err := jsprofile.ReadFile(out)
	require.NoError(t, err)
	return profiled{prof: p, tables: report.New(p)}
}

// function finds a function of the tables by kind and name.
func (p profiled) function(t *testing.T, kind, name string) report.FunctionStats {
	t.Helper()
	for _, f := range p.tables.Functions {
		if f.Kind == kind && f.Name == name {
			return f
		}
	}
	require.Failf(t, "no such function", "%s %s in %v", kind, name, p.names(""))
	return report.FunctionStats{}
}

// names lists the names of the functions of a kind ("" for all), sorted.
func (p profiled) names(kind string) []string {
	var out []string
	for _, f := range p.tables.Functions {
		if kind == "" || f.Kind == kind {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// bucket is a bucket's instructions in the tables.
func (p profiled) bucket(name string) uint64 {
	for _, b := range p.tables.Buckets {
		if b.Name == name {
			return b.WasmInstructions
		}
	}
	return 0
}

// jsStack is a sample's stack without its phase and Wasm frames (leaf
// first): the JS, opcode, native and bucket frames exact counting keys its
// values by; the Wasm frames only split them.
func (p profiled) jsStack(s *profile.Sample, buf []jsprofile.StackFrame) []jsprofile.StackFrame {
	buf = p.prof.Stack(s, buf)
	out := buf[:0]
	for _, f := range buf {
		if f.Kind != jsprofile.KindWasm && f.Kind != jsprofile.KindPhase {
			out = append(out, f)
		}
	}
	return out
}

// stacks sums the profile's instructions and calls by JS stack (jsStack),
// written root first as frame names joined by ";".
func (p profiled) stacks() (instr, calls map[string]int64) {
	instr, calls = map[string]int64{}, map[string]int64{}
	var buf []jsprofile.StackFrame
	for _, s := range p.prof.Sample {
		buf = p.jsStack(s, buf)
		names := make([]string, len(buf))
		for i, f := range buf {
			names[len(buf)-1-i] = f.Function.Name
		}
		k := strings.Join(names, ";")
		instr[k] += s.Value[jsprofile.ValueInstructions]
		calls[k] += s.Value[jsprofile.ValueCalls]
	}
	return instr, calls
}

// rootedAtBucket sums the instructions of the JS stacks that start at a
// bucket frame, or have no JS frame at all: what ran outside any JS
// function.
func (p profiled) rootedAtBucket() uint64 {
	var n uint64
	var buf []jsprofile.StackFrame
	for _, s := range p.prof.Sample {
		buf = p.jsStack(s, buf)
		if len(buf) == 0 || buf[len(buf)-1].Kind == jsprofile.KindBucket {
			n += uint64(s.Value[jsprofile.ValueInstructions])
		}
	}
	return n
}

// TestNativesJSON: on the JSON-heavy fixture, native functions are frames
// of their own in their callers' context, named, with exact calls; the
// unnamed bucket is left with what cannot be attributed. On Shopify's
// provider, JSON.parse and JSON.stringify are Javy's own Rust functions
// (javy-3.1.0's json API replaces QuickJS's), which no function list
// declares: they are named after their call sites, alike.
func TestNativesJSON(t *testing.T) {
	t.Parallel()
	for _, engine := range nativeEngines {
		t.Run(engine, func(t *testing.T) {
			p := profileFixture(t, engine, "jsonheavy")
			d := p.tables
			total := d.TotalWasmInstructions

			// The parts add up: opcodes, natives, buckets.
			var ops uint64
			for _, o := range d.Opcodes {
				ops += o.WasmInstructions
			}
			var buckets uint64
			for _, b := range d.Buckets {
				buckets += b.WasmInstructions
			}
			assert.Equal(t, total, ops+d.NativeWasmInstructions+buckets)

			// <eval> holds everything but what ran outside JS.
			eval := p.function(t, report.FunctionJS, "<eval>")
			assert.Equal(t, total-p.rootedAtBucket(), eval.TotalWasmInstructions)

			// Natives JS calls alike on every engine.
			assert.Equal(t, uint64(1020), p.function(t, report.FunctionNative, "Math.imul").Calls, "random() calls")
			assert.Equal(t, uint64(340), p.function(t, report.FunctionNative, "Array.prototype.push").Calls, "order lines")

			instr, _ := p.stacks()
			unnamed := p.bucket(jsprofile.BucketNative)
			assert.Less(t, float64(unnamed), 0.01*float64(total), "the unnamed bucket")
			parse := p.function(t, report.FunctionNative, "JSON.parse")
			stringify := p.function(t, report.FunctionNative, "JSON.stringify")
			assert.Equal(t, uint64(10), parse.Calls)
			assert.Equal(t, uint64(11), stringify.Calls)
			assert.Greater(t, parse.SelfWasmInstructions+stringify.SelfWasmInstructions, total*8/10, "most of the run")
			assert.Equal(t, parse.SelfWasmInstructions, parse.TotalWasmInstructions, "no JS under it")
			// Both are called from <eval> only, by call_method.
			assert.Equal(t, int64(parse.SelfWasmInstructions), instr["<eval>;op:call_method;JSON.parse"])
			assert.Equal(t, int64(stringify.SelfWasmInstructions), instr["<eval>;op:call_method;JSON.stringify"])
		})
	}
}

// TestNativesSortComparator: a comparator's frames are under
// Array.prototype.sort, whose calls are the sorts done; a native the
// comparator calls is under it in turn.
func TestNativesSortComparator(t *testing.T) {
	for _, engine := range nativeEngines {
		t.Run(engine, func(t *testing.T) {
			p := profileFixture(t, engine, "comparator")
			sortFn := p.function(t, report.FunctionNative, "Array.prototype.sort")
			assert.Equal(t, uint64(15), sortFn.Calls, "12 sorts by value, 3 by name")

			instr, calls := p.stacks()
			byValue := p.function(t, report.FunctionJS, "byValue")
			byName := p.function(t, report.FunctionJS, "byName")
			sign := p.function(t, report.FunctionNative, "Math.sign")
			underSort := func(fn string) (c, n int64) {
				for k, v := range calls {
					if strings.HasSuffix(k, ";Array.prototype.sort;"+fn) {
						c += v
					}
				}
				for k, v := range instr {
					if strings.Contains(k, ";Array.prototype.sort;"+fn) {
						n += v
					}
				}
				return c, n
			}
			for _, f := range []report.FunctionStats{byValue, byName} {
				c, n := underSort(f.Name)
				assert.Positive(t, f.Calls)
				assert.Equal(t, int64(f.Calls), c, "every call of %s under the sort", f.Name)
				assert.Equal(t, int64(f.TotalWasmInstructions), n, "all of %s under the sort", f.Name)
			}
			assert.Equal(t, byName.Calls, sign.Calls, "byName calls Math.sign once")
			var signUnder int64
			for k, v := range calls {
				if strings.HasSuffix(k, ";Array.prototype.sort;byName;op:call_method;Math.sign") {
					signUnder += v
				}
			}
			assert.Equal(t, int64(sign.Calls), signUnder)
			assert.Equal(t, byValue.TotalWasmInstructions+byName.TotalWasmInstructions+sortFn.SelfWasmInstructions, sortFn.TotalWasmInstructions,
				"the sort's total is its own and its comparators'")
		})
	}
}

// TestNativesAcrossEngines: the same program's natives have the same names
// on the three engines, and jsprof diff aligns them, with the same calls.
func TestNativesAcrossEngines(t *testing.T) {
	t.Parallel()
	for _, program := range []string{"comparator", "jsonheavy"} {
		t.Run(program, func(t *testing.T) {
			var base profiled
			for i, engine := range nativeEngines {
				p := profileFixture(t, engine, program)
				// Natives no function list declares (constructors, such as
				// the Array constructor slice calls) are named by their
				// table index, which differs between engines: there are
				// as many of them on every engine, called as often.
				names, unnamed := splitUnnamed(p.names(report.FunctionNative))
				if i == 0 {
					base = p
					continue
				}
				want, wantUnnamed := splitUnnamed(base.names(report.FunctionNative))
				assert.Len(t, unnamed, len(wantUnnamed), "natives named by their table index")
				assert.Equal(t, want, names, "%s and %s", nativeEngines[0], engine)
				df := diff.New(base.tables, p.tables, "base", "new")
				for _, f := range df.Functions {
					if f.Kind != report.FunctionNative || !contains(want, f.Name) {
						continue
					}
					if assert.Empty(t, f.Only, "%s aligned", f.Name) {
						assert.Equal(t, f.Base.Calls, f.New.Calls, "%s calls", f.Name)
					}
				}
			}
		})
	}
}

// splitUnnamed splits native names into those of the engine's function
// lists and the native@table[N] ones.
func splitUnnamed(names []string) (named, unnamed []string) {
	for _, n := range names {
		if strings.HasPrefix(n, "native@table[") {
			unnamed = append(unnamed, n)
		} else {
			named = append(named, n)
		}
	}
	return named, unnamed
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestNativesSampleMode: sampled stacks show a native activation as the
// native's frame, and a stripped engine's Wasm functions that function
// lists point at are named after their builtins, the interpreter after
// what it is; the engine with a name section keeps its own names.
func TestNativesSampleMode(t *testing.T) {
	for _, engine := range nativeEngines[:2] {
		t.Run(engine, func(t *testing.T) {
			p := profileFixture(t, engine, "jsonheavy", "--mode", "sample", "--sample-every", "50000")
			d := p.tables
			stringify := p.function(t, report.FunctionNative, "JSON.stringify")
			parse := p.function(t, report.FunctionNative, "JSON.parse")
			assert.Greater(t, stringify.SelfWasmInstructions+parse.SelfWasmInstructions, d.SampledWasmInstructions*7/10)
			assert.Less(t, float64(p.bucket(jsprofile.BucketNative)), 0.02*float64(d.SampledWasmInstructions), "the unnamed bucket")

			wasmNames := map[string]bool{}
			for _, fn := range p.prof.Function {
				if strings.HasPrefix(fn.SystemName, "wasm:") {
					wasmNames[fn.Name] = true
				}
			}
			if engine == "javy-plugin-1.7.0" { // stripped
				assert.True(t, wasmNames["JSON.stringify (native)"], "a native's C function named after it")
				assert.True(t, wasmNames["js_call_c_function (calls natives)"])
				assert.Positive(t, d.UnnamedWasmInstructions, "what is left unnamed is said")
				assert.Less(t, d.UnnamedWasmInstructions, d.SampledWasmInstructions)
			} else {
				for n := range wasmNames {
					assert.NotContains(t, n, " (native)", "the module's own names are kept")
				}
				assert.Zero(t, d.UnnamedWasmInstructions)
			}
		})
	}
}

// TestNativesExactEqualsSlowMode: the natives' hooks count as exactly as
// the rest: the per-instruction mode gives the same natives and contexts.
func TestNativesExactEqualsSlowMode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the slow mode")
	}
	for _, plugin := range javyPlugins {
		t.Run(plugin, func(t *testing.T) {
			wasm := buildSource(t, plugin, readFileText(t, fixtures.Path("js", "comparator.js")))
			run := func(opts meter.Options) *costs.Results {
				out, res, err := profiler.Profile(context.Background(), wasm, runner.Options{Name: "index.wasm", Deterministic: true, Cache: fixtures.CompilationCache(t)},
					profiler.Options{Meter: &opts})
				require.NoError(t, err)
				require.Nil(t, res.Trap)
				require.Empty(t, out.Warnings)
				return out.Results
			}
			fast := run(meter.Options{Checkpoints: true})
			slow := run(meter.Options{Checkpoints: true, PerInstruction: true})
			require.NotEmpty(t, fast.Natives)
			assert.Equal(t, slow.TotalInstructions, fast.TotalInstructions)
			assert.Equal(t, slow.Natives, fast.Natives)
			assert.Equal(t, slow.Contexts, fast.Contexts)
			assert.Equal(t, slow.Buckets, fast.Buckets)
			require.NoError(t, fast.Check())
		})
	}
}

// TestNativesSampleNamesAsExact: a minified program's native call
// (h.slice(1), h a string) is String.prototype.slice in both modes. A
// sample taken in the native before js_call_c_function confirmed the class
// of C function objects used to name it by its call site, "h.slice".
func TestNativesSampleNamesAsExact(t *testing.T) {
	t.Parallel()
	const src = `function g(h){let t=0;for(let i=0;i<3000;i++){t+=h.slice(1).length}return t}
const h="abcdefghijklmnopqrstuvwxyz";console.log(String(g(h)));
`
	dir := t.TempDir()
	module := filepath.Join(dir, "index.wasm")
	require.NoError(t, os.WriteFile(module, buildSource(t, "javy-plugin-1.7.0", src), 0o644))
	natives := map[string][]string{}
	for _, mode := range []string{"exact", "sample"} {
		out := filepath.Join(dir, mode+".pb.gz")
		args := []string{"run", "-q", "-o", out, "--mode", mode}
		if mode == "sample" {
			// the first samples fall in String.prototype.slice's first calls
			args = append(args, "--sample-every", "2000")
		}
		got := jsprof(t, "", append(args, module)...)
		require.Equal(t, 0, got.code, got.stderr)
		p, err := jsprofile.ReadFile(out)
		require.NoError(t, err)
		natives[mode] = profiled{prof: p, tables: report.New(p)}.names(report.FunctionNative)
	}
	assert.Contains(t, natives["exact"], "String.prototype.slice")
	assert.Contains(t, natives["sample"], "String.prototype.slice")
	for mode, names := range natives {
		assert.NotContains(t, names, "h.slice", mode)
	}
}
