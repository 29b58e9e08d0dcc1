package bytecode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/wasmcore"
)

// namingEntry is a function's display name and first line.
type namingEntry struct {
	Name string
	Line int
}

// namingWant are, per program, the functions its bytecode holds (on
// both engines), in file order, as the source says.
var namingWant = map[string][]namingEntry{
	"fib": {{"<eval>", 1}, {"fib", 1}, {"fibLoop", 7}},
	"classes": {
		{"<eval>", 1}, {"check", 3},
		{"Shape", 8}, {"get Shape.name", 12}, {"Shape.area", 15}, {"Shape.perimeter", 18}, {"Shape.describe", 21}, {"Shape.compare", 24},
		{"Rect", 31}, {"Rect.area", 36}, {"Rect.perimeter", 39},
		{"Square", 45}, {"get Square.side", 48}, {"set Square.side", 51}, {"Square.describe", 55},
		{"Circle", 61}, {"Circle.area", 65}, {"Circle.perimeter", 68},
		{"<anonymous>", 77}, {"<anonymous>", 78}, {"<anonymous>", 80},
		{"makeCounter", 85}, {"next", 88}, {"get current", 92}, {"reset", 95},
		{"memoize", 111}, {"wrapped", 114}, {"<anonymous>", 121}, {"slowSquare", 125},
		{"Stack", 136}, {"Stack.push", 139}, {"Stack.pop", 143}, {"get Stack.size", 146}, {"Stack.[Symbol.iterator]", 149}, {"next", 153},
	},
	"generators": {
		{"<eval>", 1}, {"check", 2}, {"range", 6}, {"fibs", 10}, {"take", 19}, {"flatten", 27}, {"withReturn", 34},
		{"delay", 55}, {"<anonymous>", 56}, {"square", 59}, {"sumSquares", 64}, {"failing", 70}, {"countdown", 75},
		{"<anonymous>", 95}, {"<anonymous>", 102}, {"<anonymous>", 103}, {"<anonymous>", 104}, {"<anonymous>", 108},
	},
	"trycatch": {
		{"<eval>", 1}, {"check", 2}, {"ValidationError", 7}, {"validate", 16}, {"level3", 23}, {"level2", 31}, {"level1", 40},
		{"kind", 63}, {"<anonymous>", 72}, {"<anonymous>", 73}, {"<anonymous>", 74}, {"<anonymous>", 75}, {"<anonymous>", 76}, {"<anonymous>", 77},
		{"finallyOrder", 81}, {"overridden", 96}, {"dive", 107},
	},
	"variety": {
		{"Base.<fields>", 0}, {"Base.<static fields>", 0}, {"<eval>", 1}, {"tag", 7},
		{"plain", 11}, {"get value", 12}, {"set value", 13}, {"arrow", 14}, {"<anonymous>", 15}, {"[Symbol.toPrimitive]", 16},
		{"am", 17}, {"gen", 18}, {"agen", 19}, {"field", 24}, {"Base.#hidden", 25}, {"Base.peek", 26}, {"get Base.secret", 27},
		{"Base", 28}, {"Derived", 30}, {"Derived.method", 31}, {"default", 33}, {"named", 34},
	},
}

func TestParseBytecodeFunctions(t *testing.T) {
	for _, engine := range bctest.Plugins {
		spec := namingSpec(t, engine)
		for _, program := range bctest.Programs {
			t.Run(engine+"/"+program, func(t *testing.T) {
				prog, err := Parse(bctest.Bytecode(t, engine, program), spec)
				require.NoError(t, err)
				var got []namingEntry
				for i, f := range prog.Functions {
					got = append(got, namingEntry{f.DisplayName(), f.Line})
					assert.Equal(t, i, f.Index)
					assert.Equal(t, "function.mjs", f.File, f.DisplayName())
					assert.NotEmpty(t, f.Code)
					assert.NotEmpty(t, f.Lines)
				}
				assert.Equal(t, namingWant[program], got)
				require.NotNil(t, prog.Module)
				assert.Equal(t, "function.mjs", prog.Module.Name)
				src := strings.Split(string(bctest.Source(t, program)), "\n")
				for _, f := range prog.Functions {
					bcCheckSource(t, f, src)
				}
			})
		}
	}
}

// bcCheckSource checks that a named function's first line holds its
// name, and that every line of its pc → line table lies within the source.
func bcCheckSource(t *testing.T, f *Function, src []string) {
	t.Helper()
	if f.Line == 0 {
		assert.True(t, f.Definition.Internal, "%s has no line", f.DisplayName())
		return
	}
	require.LessOrEqual(t, f.Line, len(src))
	line := src[f.Line-1]
	bare := f.Name
	if bare == "" {
		bare = f.Definition.Name
	}
	switch {
	case bare == "<eval>" || bare == "":
	case f.Definition.Constructor:
		assert.True(t, strings.Contains(line, "constructor") || strings.Contains(line, "class "+bare) || strings.HasPrefix(line, "}"),
			"%s at line %d: %q", f.DisplayName(), f.Line, line)
	case strings.HasPrefix(bare, "[Symbol."):
		assert.Contains(t, line, strings.TrimSuffix(strings.TrimPrefix(bare, "[Symbol."), "]"))
	case bare == "default":
		assert.Contains(t, line, "export default")
	default:
		assert.Contains(t, line, bare, "%s at line %d", f.DisplayName(), f.Line)
	}
	assert.GreaterOrEqual(t, f.Column, 1)
	assert.LessOrEqual(t, f.Column, len(line)+1)
	for _, e := range f.Lines {
		if e.Line == 0 {
			continue // the engine's own code before the first statement
		}
		assert.LessOrEqual(t, e.Line, len(src), "%s pc %d", f.DisplayName(), e.PC)
		assert.GreaterOrEqual(t, e.Line, f.Line, "%s pc %d", f.DisplayName(), e.PC)
	}
}

// TestParseBytecodeKinds checks function kinds and flags the parser reads.
func TestParseBytecodeKinds(t *testing.T) {
	tests := []struct {
		program, name string
		kind          FunctionKind
		derived       bool
	}{
		{"generators", "range", KindGenerator, false},
		{"generators", "square", KindAsync, false},
		{"generators", "countdown", KindAsyncGenerator, false},
		{"generators", "<eval>", KindAsync, false}, // a module's top level (top-level await)
		{"fib", "fib", KindNormal, false},
		{"classes", "Rect", KindNormal, true},
		{"classes", "Shape", KindNormal, false},
		{"trycatch", "ValidationError", KindNormal, true},
	}
	for _, engine := range bctest.Plugins {
		spec := namingSpec(t, engine)
		for _, tt := range tests {
			t.Run(engine+"/"+tt.program+"/"+tt.name, func(t *testing.T) {
				prog, err := Parse(bctest.Bytecode(t, engine, tt.program), spec)
				require.NoError(t, err)
				f := bcFunction(t, prog, tt.name)
				assert.Equal(t, tt.kind, f.Kind)
				assert.Equal(t, tt.derived, f.DerivedClassConstructor)
			})
		}
	}
}

func bcFunction(t *testing.T, prog *Program, name string) *Function {
	t.Helper()
	for _, f := range prog.Functions {
		if f.DisplayName() == name {
			return f
		}
	}
	require.Failf(t, "no function", "%s", name)
	return nil
}

// TestParseBytecodeFib checks the details of fib.js on both formats: the
// variables, closure variables and constants, and the pc → line/column
// tables, against the source and the engines' own encodings.
func TestParseBytecodeFib(t *testing.T) {
	tests := []struct {
		engine  string
		format  Format
		version byte
		first   uint32
		fibCol  int
		lines   []PCLine // fib's table
	}{
		{"javy-plugin-1.7.0", FormatNG, 0x15, 227, 1, []PCLine{
			{0, 1, 1}, {1, 2, 11}, {8, 3, 14}, {9, 3, 18}, {12, 3, 23}, {13, 3, 27}, {14, 3, 31}}},
		{"javy-plugin-1.1.0", FormatColumns, 0x43, 228, 1, []PCLine{
			{0, 2, 7}, {1, 2, 11}, {5, 2, 21}, {7, 3, 10}, {8, 3, 14}, {9, 3, 18}, {11, 3, 10}, {12, 3, 23}, {13, 3, 27}, {14, 3, 31}, {16, 3, 23}}},
	}
	for _, tt := range tests {
		t.Run(tt.engine, func(t *testing.T) {
			prog, err := Parse(bctest.Bytecode(t, tt.engine, "fib"), namingSpec(t, tt.engine))
			require.NoError(t, err)
			assert.Equal(t, tt.format, prog.Format)
			assert.Equal(t, tt.version, prog.Version)
			assert.Equal(t, tt.first, prog.FirstAtom)
			fib := bcFunction(t, prog, "fib")
			assert.Equal(t, "fib", fib.Name)
			assert.Equal(t, tt.fibCol, fib.Column)
			assert.Equal(t, 1, fib.ArgCount)
			assert.Equal(t, []Var{{Name: "n"}}, fib.Vars)
			require.Len(t, fib.ClosureVars, 1)
			assert.Equal(t, "fib", fib.ClosureVars[0].Name)
			assert.Len(t, fib.Code, 19)
			assert.Equal(t, tt.lines, fib.Lines)
			top := bcFunction(t, prog, "<eval>")
			assert.Nil(t, top.Parent)
			require.Len(t, top.Constants, 2)
			assert.Equal(t, "function", top.Constants[0].Kind)
			assert.Same(t, fib, top.Constants[0].Function)
			assert.Same(t, top, fib.Parent)
			assert.Equal(t, []*Function{fib, bcFunction(t, prog, "fibLoop")}, top.Children)
			for _, a := range []string{"function.mjs", "fib", "fibLoop", "n", "result", "console", "log"} {
				assert.Contains(t, prog.Atoms, a)
			}
			// Source: only QuickJS-NG serializes it.
			if tt.format == FormatNG {
				assert.Equal(t, "function fib(n) {\n  if (n < 2) return n;\n  return fib(n - 1) + fib(n - 2);\n}", fib.Source)
			} else {
				assert.Empty(t, fib.Source)
			}
		})
	}
}

// TestParseBytecodeConstants checks the constant kinds variety.js puts in
// the top level's pool, on both BigInt layouts.
func TestParseBytecodeConstants(t *testing.T) {
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			prog, err := Parse(bctest.Bytecode(t, engine, "variety"), namingSpec(t, engine))
			require.NoError(t, err)
			kinds := map[string]int{}
			var values []string
			for _, c := range bcFunction(t, prog, "<eval>").Constants {
				kinds[c.Kind]++
				values = append(values, c.Value)
			}
			assert.Positive(t, kinds["bigint"])
			assert.Positive(t, kinds["function"])
			assert.Positive(t, kinds["template"])
			assert.Contains(t, values, "3.141592653589793")
			assert.Contains(t, values, "5e-301")
			assert.Contains(t, values, `(?<word>\w+)\s*=\s*(\d+)`) // the regexp's source
			assert.Equal(t, []string{"big", "small", "pi", "neg", "default", "named"}, prog.Module.Exports)
			assert.Contains(t, prog.Atoms, "héllo wörld ✓ 🎉") // a UTF-16 string
		})
	}
}

func TestDecodePC2Line(t *testing.T) {
	tests := []struct {
		name  string
		tab   []byte
		start int
		want  []pcValue
	}{
		{"empty", nil, 5, []pcValue{{0, 5}}},
		// op 3: pc +0, line +1; op 0x26: pc +7, line +1 (fib, 1.1.0).
		{"short ops", []byte{0x03, 0x26}, 1, []pcValue{{0, 2}, {7, 3}}},
		// op 0: LEB128 pc delta 10, zigzag line delta 36 → +18.
		{"long op", []byte{0x00, 0x0a, 0x24}, 0, []pcValue{{0, 0}, {10, 18}}},
		{"negative delta", []byte{0x00, 0x02, 0x05}, 10, []pcValue{{0, 10}, {2, 7}}},
		{"same pc keeps the last", []byte{0x04, 0x00, 0x00, 0x08}, 0, []pcValue{{0, 6}}},
		{"multi-byte LEB128", []byte{0x00, 0x80, 0x01, 0x02}, 0, []pcValue{{0, 0}, {128, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodePC2Line(tt.tab, tt.start)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	for _, bad := range [][]byte{{0x00}, {0x00, 0x01}, {0x00, 0x80}, {0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00}} {
		_, err := decodePC2Line(bad, 1)
		assert.Error(t, err, "% x", bad)
		_, err = decodePC2LineNG(bad, 1, 1)
		assert.Error(t, err, "% x", bad)
	}
	// NG: every entry carries a zigzag column delta (fib on 1.7.0).
	got, err := decodePC2LineNG([]byte{0x08, 0x14, 0x26, 0x06}, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, []PCLine{{0, 1, 1}, {1, 2, 11}, {8, 3, 14}}, got)
	_, err = decodePC2LineNG([]byte{0x08}, 1, 1) // the column delta is missing
	assert.Error(t, err)
}

func TestMergeLineColumn(t *testing.T) {
	lines := []pcValue{{0, 2}, {7, 3}}
	cols := []pcValue{{0, 6}, {1, 10}, {7, 9}, {9, 2}}
	assert.Equal(t, []PCLine{{0, 2, 7}, {1, 2, 11}, {7, 3, 10}, {9, 3, 3}}, mergeLineColumn(lines, cols, 1, 0, 1))
}

func TestLineAt(t *testing.T) {
	tab := []PCLine{{0, 1, 1}, {4, 2, 3}, {9, 5, 1}}
	for pc, want := range map[uint32]int{0: 1, 3: 1, 4: 2, 8: 2, 9: 5, 100: 5} {
		e, ok := LineAt(tab, pc)
		assert.True(t, ok)
		assert.Equal(t, want, e.Line, "pc %d", pc)
	}
	_, ok := LineAt(nil, 0)
	assert.False(t, ok)
	_, ok = LineAt([]PCLine{{4, 2, 1}}, 3)
	assert.False(t, ok)
}

// TestParseBytecodeErrors: damaged input fails with the offset, never
// panics.
func TestParseBytecodeErrors(t *testing.T) {
	spec := namingSpec(t, "javy-plugin-1.7.0")
	good := bctest.Bytecode(t, "javy-plugin-1.7.0", "fib")
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"empty", nil, "offset 0x0: unexpected end of input"},
		{"unknown version", mutate(func(b []byte) []byte { b[0] = 0x02; return b }), "offset 0x0: unsupported serialization version 0x2"},
		{"truncated atoms", good[:20], "offset 0x"},
		{"truncated function", good[:len(good)/2], "offset 0x"},
		{"trailing bytes", append(append([]byte(nil), good...), 0), "1 trailing bytes"},
		{"huge atom count", mutate(func(b []byte) []byte { copy(b[1:], []byte{0xff, 0xff, 0xff, 0x0f}); return b }), "offset 0x1: atom count 33554431 exceeds"},
		{"bad tag", mutate(func(b []byte) []byte { b[0x58] = 0x30; return b }), "offset 0x58: tag 48"},
		{"bad opcode", mutate(func(b []byte) []byte { b[0x95] = 0xff; return b }), "opcode 255"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.input, spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Parse(good, EngineSpec{})
	assert.ErrorContains(t, err, "opcodes are unknown")
	var pe *ParseError
	_, err = Parse(good[:30], spec)
	assert.True(t, errors.As(err, &pe))
}

// TestParseBytecodeAtomsUnknown: without the builtin atoms the first
// program atom is inferred, and builtin names are left unresolved, never
// guessed.
func TestParseBytecodeAtomsUnknown(t *testing.T) {
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			spec := namingSpec(t, engine)
			want := uint32(len(spec.Atoms))
			spec.Atoms = nil
			prog, err := Parse(bctest.Bytecode(t, engine, "classes"), spec)
			require.NoError(t, err)
			assert.Equal(t, want, prog.FirstAtom)
			top := prog.Functions[0]
			assert.True(t, top.NameUnresolved)
			assert.Equal(t, fmt.Sprintf("atom#%d", top.NameAtom), top.DisplayName())
			assert.Equal(t, "Shape.area", bcFunction(t, prog, "Shape.area").DisplayName())
		})
	}
	spec := namingSpec(t, "javy-plugin-1.7.0")
	spec.Atoms = spec.Atoms[:100] // the wrong builtin atoms
	_, err := Parse(bctest.Bytecode(t, "javy-plugin-1.7.0", "fib"), spec)
	assert.ErrorContains(t, err, "builtin atoms end at 100")
}

func TestEngineSpecFor(t *testing.T) {
	_, err := EngineSpecFor(nil)
	assert.Error(t, err)
	_, err = EngineSpecFor(&dispatch.Report{Engine: dispatch.Engine{Family: dispatch.FamilyUnknown}})
	assert.ErrorContains(t, err, "not a QuickJS engine")
	_, err = EngineSpecFor(&dispatch.Report{Engine: dispatch.Engine{Family: dispatch.FamilyQuickJSNG}})
	assert.ErrorContains(t, err, "no opcode table")
	_, err = EngineSpecFor(&dispatch.Report{Engine: dispatch.Engine{Family: dispatch.FamilyQuickJSNG, Tables: []dispatch.TableRef{{ID: "nope"}}}})
	assert.ErrorContains(t, err, "not in the catalog")
	spec, err := EngineSpecFor(&dispatch.Report{Engine: dispatch.Engine{Family: dispatch.FamilyQuickJSNG, OpcodeCount: 248,
		Tables: []dispatch.TableRef{{ID: "quickjs-ng-2025-04-02-bd5be754"}}}})
	require.NoError(t, err)
	require.Len(t, spec.Opcodes, 248)
	assert.Equal(t, OpcodeSpec{Name: "get_field", Size: 5, Fmt: "atom", NPop: 1, NPush: 1}, spec.Opcodes[bcOpcode(spec, "get_field")])
	assert.Equal(t, OpcodeSpec{Name: "fclosure8", Size: 2, Fmt: "const8", NPush: 1}, spec.Opcodes[bcOpcode(spec, "fclosure8")])
	assert.Equal(t, OpcodeSpec{Name: "with_get_var", Size: 10, Fmt: "atom_label_u8", NPop: 1}, spec.Opcodes[bcOpcode(spec, "with_get_var")])
	_, err = EngineSpecFor(&dispatch.Report{Engine: dispatch.Engine{Family: dispatch.FamilyQuickJSNG, OpcodeCount: 200,
		Tables: []dispatch.TableRef{{ID: "quickjs-ng-2025-04-02-bd5be754"}}}})
	assert.ErrorContains(t, err, "200 opcodes")
}

func bcOpcode(spec EngineSpec, name string) int {
	for i, o := range spec.Opcodes {
		if o.Name == name {
			return i
		}
	}
	return -1
}

func TestAtomsFromModule(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real engines")
	}
	tests := []struct {
		engine string
		end    int
		eval   int
		last   string
	}{
		{"javy-plugin-1.7.0", 227, 81, "Symbol.asyncIterator"},
		{"javy-plugin-1.1.0", 228, 82, "Symbol.operatorSet"}, // CONFIG_BIGNUM
	}
	for _, tt := range tests {
		t.Run(tt.engine, func(t *testing.T) {
			e := loadEngine(t, tt.engine)
			atoms := AtomsFromModule(e.Module)
			require.Len(t, atoms, tt.end)
			assert.Equal(t, "", atoms[0])
			assert.Equal(t, "null", atoms[1])
			assert.Equal(t, "<eval>", atoms[tt.eval])
			assert.Equal(t, tt.last, atoms[tt.end-1])
			assert.Equal(t, atoms, namingSpec(t, tt.engine).Atoms)
		})
	}
}

func TestOpcodeTable(t *testing.T) {
	info, ok := dispatch.OpcodeTable("bellard-2024-01-09-6d2d6e9f")
	require.True(t, ok)
	assert.Len(t, info.Opcodes, 248)
	assert.Equal(t, "invalid", info.Opcodes[0].Name)
	assert.Equal(t, "line_num", info.Temporary[len(info.Temporary)-1].Name)
	assert.Equal(t, "i32", info.FormatName(info.Opcodes[1])) // push_i32
	assert.Equal(t, "", info.FormatName(dispatch.OpcodeDef{Fmt: 99}))
	_, ok = dispatch.OpcodeTable("nope")
	assert.False(t, ok)
}

// TestProgramFromModules finds the bytecode where the profiler meets it:
// in a static module (the engine in the same module), in a dynamic module
// (the engine in the plugin), and nowhere in a plugin.
func TestProgramFromModules(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real engines")
	}
	ctx := context.Background()
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			e := loadEngine(t, engine)
			bc := e.Compile(t, bctest.Source(t, "fib"))

			prog, err := ProgramFromModule(e.Module, e.Report)
			require.NoError(t, err)
			assert.Nil(t, prog, "a plugin carries no program")

			dyn, err := javy.BuildDynamic(e.Module, e.Plugin, bc)
			require.NoError(t, err)
			m, err := wasmcore.Decode(dyn)
			require.NoError(t, err)
			r, err := dispatch.Analyze(ctx, m)
			require.NoError(t, err)
			require.Equal(t, dispatch.JavyDynamic, r.Javy.Kind)
			_, err = ProgramFromModule(m, r) // no engine in a dynamic module
			assert.ErrorContains(t, err, "not a QuickJS engine")
			prog, err = ProgramFromModules(m, r, e.Module, e.Report)
			require.NoError(t, err)
			assert.Equal(t, []string{"<eval>", "fib", "fibLoop"}, displayNames(prog))

			static, err := javy.BuildStatic(ctx, e.Wasm, e.Plugin, bc, e.Cache)
			require.NoError(t, err)
			m, err = wasmcore.Decode(static)
			require.NoError(t, err)
			r, err = dispatch.Analyze(ctx, m)
			require.NoError(t, err)
			require.Equal(t, dispatch.JavyStatic, r.Javy.Kind)
			prog, err = ProgramFromModule(m, r)
			require.NoError(t, err)
			assert.Equal(t, []string{"<eval>", "fib", "fibLoop"}, displayNames(prog))
			assert.Len(t, AtomsFromModule(m), len(e.spec.Atoms), "the snapshot keeps the atom strings")
		})
	}
}

func displayNames(p *Program) []string {
	var out []string
	for _, f := range p.Functions {
		out = append(out, f.DisplayName())
	}
	return out
}

func TestDisassemble(t *testing.T) {
	spec := namingSpec(t, "javy-plugin-1.7.0")
	prog, err := Parse(bctest.Bytecode(t, "javy-plugin-1.7.0", "fib"), spec)
	require.NoError(t, err)
	got := prog.Disassemble(bcFunction(t, prog, "fib"), spec)
	assert.True(t, strings.HasPrefix(got, "    0  get_arg0\n    1  push_2\n    2  lt\n    3  if_false8 03\n"), got)
	top := prog.Disassemble(bcFunction(t, prog, "<eval>"), spec)
	assert.Contains(t, top, `get_var "console"`)
	assert.Contains(t, top, `get_field2 "log"`)
}
