package naming

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// callsWant are, per function of testdata's calls.js, the names CallName
// gives its call opcodes in pc order ("" where no name path gives the
// callee): the same on every engine.
var callsWant = map[string][]string{
	"<eval>": {"readAll", "JSON.parse", "JSON.stringify",
		"f", "g.h", "obj.a.b.method", // obj.a.b.method(1, f(2), g.h(3)): the arguments' calls first
		"ShopifyFunction.readInput", "ShopifyFunction.writeOutput",
		"more", "pick", "pick", "loop", "fn", "console.log"},
	"readAll": {"Uint8Array", "Javy.IO.readSync", "TextDecoder", "Math.max", "buf.subarray",
		"decode"}, // new TextDecoder().decode(…), a tail call
	"more": {"parse", // const parse = JSON.parse; parse("2")
		"Math.max",  // Math.max(...list): apply
		"",          // g[key](1)
		"maker", "", // maker()(1)
		"g.h",                     // g?.h(1)
		"fn", "Error", "f", "g.h", // in try, catch and finally
		"Counter", "twice"}, // in a loop: new Counter().twice(i)
	"Counter.twice": {"this.bump", "this.bump"},
	"pick":          {""}, // (cond ? a : b)()
	"loop":          {"JSON.parse", "fn"},
	"f":             nil,
}

// callOpcodes are the opcodes CallName names.
var callOpcodes = map[string]bool{"call": true, "call0": true, "call1": true, "call2": true, "call3": true,
	"call_method": true, "tail_call": true, "tail_call_method": true, "call_constructor": true, "apply": true}

// callPCs returns the pcs of code's call opcodes, in order.
func callPCs(t *testing.T, spec bytecode.EngineSpec, code []byte) []uint32 {
	t.Helper()
	var pcs []uint32
	for pc := 0; pc < len(code); {
		op := int(code[pc])
		require.Less(t, op, len(spec.Opcodes))
		if callOpcodes[spec.Opcodes[op].Name] {
			pcs = append(pcs, uint32(pc))
		}
		require.Positive(t, spec.Opcodes[op].Size)
		pc += spec.Opcodes[op].Size
	}
	return pcs
}

// checkCallNames asserts callsWant on a namer's functions, by name.
func checkCallNames(t *testing.T, n *Namer, spec bytecode.EngineSpec, fs []costs.FunctionCost) {
	t.Helper()
	got := map[string][]string{}
	for _, f := range fs {
		info := n.Name(f)
		if _, ok := callsWant[info.Name]; !ok {
			continue
		}
		require.NotContains(t, got, info.Name)
		names := []string{}
		for _, pc := range callPCs(t, spec, f.Code) {
			names = append(names, n.CallName(f, pc))
			assert.Equal(t, n.CallName(f, pc), n.Identity().CallName(f, pc))
		}
		got[info.Name] = names
		// Only call opcodes are named.
		for pc := range f.Code {
			if name := n.CallName(f, uint32(pc)); name != "" {
				assert.True(t, callOpcodes[spec.Opcodes[f.Code[pc]].Name], "%s at %d: %s", info.Name, pc, name)
			}
		}
	}
	for name, want := range callsWant {
		if assert.Contains(t, got, name) {
			if want == nil {
				want = []string{}
			}
			assert.Equal(t, want, got[name], name)
		}
	}
}

// TestCallNames runs calls.js on both Javy plugins (QuickJS-NG v0.10 in
// 1.7.0, the patched Bellard QuickJS of 2024 in 1.1.0) with the natives
// metered: every call opcode of its functions is named as the source
// wrote it, and the natives' contexts, at their call sites, are named so:
// console.log, a Rust function of the plugin that no function list
// names, among them.
func TestCallNames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engines")
	}
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			e := loadEngine(t, engine)
			run := e.runMeteredNatives(t, bctest.Source(t, "calls"))
			require.Equal(t, "21 0 {\"v\":1} 14 a b 3 1\n", run.stdout)
			n := NewNamer(run.prog, run.spec)
			n.UseMemory(run.mem)
			n.Learn(run.results.Functions)
			checkCallNames(t, n, run.spec, run.results.Functions)

			// The natives the program's calls reached, by their caller and
			// the name of the call.
			natives := map[string]bool{}
			var unidentified []string
			for _, c := range run.results.Contexts {
				if !c.IsNative() || c.Parent < 0 || !c.HasCallSite {
					continue
				}
				parent := run.results.Contexts[c.Parent]
				if parent.Function < 0 {
					continue
				}
				f := run.results.Functions[parent.Function]
				info := n.Name(f)
				if info.Source != SourceBytecode {
					continue // the engine's own JS
				}
				name := n.CallName(f, c.CallSite)
				if name == "" {
					continue // not a call: the iterator for-of calls, the spread's
				}
				natives[info.Name+": "+name] = true
				if run.results.Natives[c.Native].Unidentified {
					unidentified = append(unidentified, name)
				}
			}
			for _, want := range []string{"<eval>: JSON.parse", "<eval>: JSON.stringify", "<eval>: console.log",
				"readAll: Uint8Array", "readAll: Math.max", "readAll: buf.subarray", "more: parse", "more: Math.max", "loop: JSON.parse"} {
				assert.True(t, natives[want], "no native call %s in %v", want, natives)
			}
			assert.Equal(t, []string{"console.log"}, unidentified)
		})
	}
}

// TestCallNamesProviders: the bytecode function-runner's providers make
// of calls.js (Javy's provider v1, Bellard QuickJS 2023-12-09;
// shopify_functions_javy_v4, QuickJS-NG v0.15-v0.16), its functions given
// as the engine would load them (builtin atoms as the engine numbers
// them): named as on the plugins.
func TestCallNamesProviders(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with real engines")
	}
	for _, provider := range bctest.Providers {
		t.Run(provider, func(t *testing.T) {
			e := bctest.LoadProvider(t, provider)
			spec, err := bytecode.EngineSpecForModule(e.Module, e.Report)
			require.NoError(t, err)
			prog, err := bytecode.Parse(e.Compile(t, bctest.Source(t, "calls")), spec)
			require.NoError(t, err)
			fs := loadedFunctions(prog)
			n := NewNamer(prog, spec)
			n.Learn(fs)
			checkCallNames(t, n, spec, fs)
		})
	}
}

// TestCallNamesReleases: calls.js as every release kept in bytecode's
// testdata/releases compiled it (fixtures/engines/goldens), from Bellard
// QuickJS 2020-09-06 to QuickJS-NG v0.16.2, its functions given as the
// engine would load them: named as on the plugins, globals read by atom
// or (Bellard's 2025-11-03 commits on) through the closure variables
// that hold them.
func TestCallNamesReleases(t *testing.T) {
	releases := bctest.Releases(t)
	require.NotEmpty(t, releases)
	for _, release := range releases {
		t.Run(release, func(t *testing.T) {
			spec := specOf(t, bctest.ReadReleaseSpecFile(t, release))
			prog, err := bytecode.Parse(bctest.ReleaseBytecode(t, release, "calls"), spec)
			require.NoError(t, err)
			fs := loadedFunctions(prog)
			n := NewNamer(prog, spec)
			n.Learn(fs)
			checkCallNames(t, n, spec, fs)
		})
	}
}

// loadedFunctions are prog's functions as the engine would load them
// (loadedCode), each at an address of its own.
func loadedFunctions(prog *bytecode.Program) []costs.FunctionCost {
	var fs []costs.FunctionCost
	for i, fn := range prog.Functions {
		fs = append(fs, costs.FunctionCost{Address: uint32(0x10000 + 0x1000*i), Code: loadedCode(prog, fn)})
	}
	return fs
}

// loadedCode is fn's code with the atom operands the engine renumbers on
// loading as it numbers them, when that is known (builtin atoms of the
// NG atom table); program atoms keep their serialized numbers.
func loadedCode(prog *bytecode.Program, fn *bytecode.Function) []byte {
	code := append([]byte(nil), fn.Code...)
	for _, op := range fn.AtomOps {
		if v, ok := prog.RuntimeAtom(op.Ref); ok {
			binary.LittleEndian.PutUint32(code[op.Offset:], v)
		}
	}
	return code
}

// asm assembles instructions given as opcode names and operand bytes.
func asm(t testing.TB, spec bytecode.EngineSpec, instrs ...any) []byte {
	t.Helper()
	var code []byte
	for _, in := range instrs {
		switch v := in.(type) {
		case string:
			op := -1
			for i, o := range spec.Opcodes {
				if o.Name == v {
					op = i
				}
			}
			require.GreaterOrEqual(t, op, 0, v)
			code = append(code, byte(op))
		case int:
			code = append(code, byte(v))
		}
	}
	return code
}

// TestCallNameHostile: bytecode the engine's compiler would not make
// (stack depths that disagree where paths meet, jumps outside the code or
// into an instruction, code falling off its end, stack underflow, calls
// whose callee is not a name path) gives "", and every pc of it can be
// asked; well-formed code around the same calls is named.
func TestCallNameHostile(t *testing.T) {
	for _, engine := range bctest.Plugins {
		spec := testdataSpec(t, engine)
		// atom is a builtin atom of the engine, as an operand.
		atom := func(s string) []any {
			for i, a := range spec.Atoms {
				if a == s {
					var b [4]byte
					binary.LittleEndian.PutUint32(b[:], uint32(i))
					return []any{int(b[0]), int(b[1]), int(b[2]), int(b[3])}
				}
			}
			t.Fatalf("no atom %q", s)
			return nil
		}
		seq := func(parts ...any) []any {
			var out []any
			for _, p := range parts {
				if ps, ok := p.([]any); ok {
					out = append(out, ps...)
				} else {
					out = append(out, p)
				}
			}
			return out
		}
		// Math.toString(0): 11 bytes, the call next.
		mathToString := seq("get_var", atom("Math"), "get_field2", atom("toString"), "push_0")
		tests := []struct {
			name string
			code []any
			pc   uint32
			want string
		}{
			{"Math.toString", seq(mathToString, "call_method", 1, 0, "return"), 11, "Math.toString"},
			{"branches around the argument", seq(mathToString, "if_false8", 4, "push_1", "goto8", 2, "push_2", "call_method", 1, 0, "return"), 17, "Math.toString"},
			{"depths disagree", seq(mathToString, "if_false8", 2, "push_1", "call_method", 1, 0, "return"), 14, ""},
			{"falls off the end", seq(mathToString, "call_method", 1, 0), 11, ""},
			{"jump past the end", seq(mathToString, "goto8", 100, "call_method", 1, 0, "return"), 13, ""},
			{"jump into an instruction", seq(mathToString, "goto8", 3, "call_method", 1, 0, "return"), 13, ""},
			{"jump before the start", seq("goto8", 0x80, "return_undef"), 0, ""},
			{"stack underflow", seq("call_method", 5, 0, "return"), 0, ""},
			{"callee is a number", seq("push_0", "call0", "return"), 1, ""},
			{"endless loop", seq(mathToString, "call_method", 1, 0, "drop", "goto8", 0xf0), 11, "Math.toString"},
			{"not a call", seq(mathToString, "call_method", 1, 0, "return"), 0, ""},
			{"past the code", seq(mathToString, "call_method", 1, 0, "return"), 100, ""},
			{"truncated", seq("get_var", atom("JSON"))[:3], 0, ""},
		}
		for _, tt := range tests {
			t.Run(engine+"/"+tt.name, func(t *testing.T) {
				code := asm(t, spec, tt.code...)
				n := NewNamer(nil, spec)
				f := costs.FunctionCost{Address: 0x1000, Code: code}
				assert.Equal(t, tt.want, n.CallName(f, tt.pc))
				for pc := range len(code) + 2 {
					n.CallName(f, uint32(pc))
				}
			})
		}
	}
}

// testdataSpec is an engine's description kept in bytecode's testdata,
// with its opcode table's stack effects.
func testdataSpec(tb testing.TB, engine string) bytecode.EngineSpec {
	tb.Helper()
	return specOf(tb, bctest.ReadSpecFile(tb, engine))
}

// specOf is the engine description of a spec file, with its opcode
// table's stack effects.
func specOf(tb testing.TB, sf bctest.SpecFile) bytecode.EngineSpec {
	tb.Helper()
	info, ok := dispatch.OpcodeTable(sf.Table)
	require.True(tb, ok, "table %s", sf.Table)
	spec := bytecode.EngineSpec{Family: sf.Family, TableID: sf.Table, Tables: sf.Tables, Releases: sf.Releases, RQuickJS: sf.RQuickJS, Atoms: sf.Atoms}
	for _, d := range info.Opcodes {
		spec.Opcodes = append(spec.Opcodes, bytecode.OpcodeSpec{Name: d.Name, Size: d.Size, Fmt: info.FormatName(d), NPop: d.NPop, NPush: d.NPush})
	}
	return spec
}

// FuzzCallName: whatever the bytecode, CallName returns at every pc (a
// hang fails the run at the test binary's timeout; no clock is read): through the runtime buffer alone (no program), and through
// a serialized function of that code with a few variables. Seeded with
// the code of testdata's programs on both plugins, and of calls.js as
// Bellard's 2025-12-22 commit compiled it (get_var by closure variable).
func FuzzCallName(f *testing.F) {
	const b5d = "bellard-2025-12-22-f1139494"
	specs := []bytecode.EngineSpec{testdataSpec(f, "javy-plugin-1.7.0"), testdataSpec(f, "javy-plugin-1.1.0"),
		specOf(f, bctest.ReadReleaseSpecFile(f, b5d))}
	var seeds []*bytecode.Program
	for i, engine := range bctest.Plugins {
		for _, program := range bctest.Programs {
			prog, err := bytecode.Parse(bctest.Bytecode(f, engine, program), specs[i])
			require.NoError(f, err)
			seeds = append(seeds, prog)
		}
	}
	prog, err := bytecode.Parse(bctest.ReleaseBytecode(f, b5d, "calls"), specs[2])
	require.NoError(f, err)
	for _, prog := range append(seeds, prog) {
		for _, fn := range prog.Functions {
			f.Add(fn.Code, uint32(len(fn.Code)/2))
		}
	}
	f.Fuzz(func(t *testing.T, code []byte, pc uint32) {
		for _, spec := range specs {
			n := NewNamer(nil, spec)
			fc := costs.FunctionCost{Address: 0x1000, Code: code}
			_ = n.CallName(fc, pc)
			for at := range min(len(code), 1<<12) {
				_ = n.CallName(fc, uint32(at))
			}
			// The same code as a serialized function's, variables and
			// atoms looked up from its operands.
			fn := &bytecode.Function{Code: code, ArgCount: 1, Vars: []bytecode.Var{{Name: "a"}, {Name: "l"}},
				ClosureVars: []bytecode.ClosureVar{{Name: "r"}}}
			if fl := analyzeCalls(code, n.callOps); fl != nil {
				for _, s := range fl.callee {
					_ = n.fileNames(fn).callee(fl, s)
				}
			}
		}
	})
}

// BenchmarkCallName analyses and names every call of calls.js's
// functions, as compiled by each plugin.
func BenchmarkCallName(b *testing.B) {
	for _, engine := range bctest.Plugins {
		spec := testdataSpec(b, engine)
		e := loadEngine(b, engine)
		prog, err := bytecode.Parse(e.Compile(b, bctest.Source(b, "calls")), spec)
		require.NoError(b, err)
		b.Run(engine, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				n := NewNamer(prog, spec)
				for j, fn := range prog.Functions {
					fc := costs.FunctionCost{Address: uint32(0x1000 * (j + 1)), Code: loadedCode(prog, fn)}
					for pc := range fn.Code {
						_ = n.CallName(fc, uint32(pc))
					}
				}
			}
		})
	}
}
