package naming

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures/js"
	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// namingCalls are, per fixture program, functions ("name:line") and the
// calls the source makes to them: the same on both engines.
var namingCalls = map[string]map[string]uint64{
	"fib": {"fib:1": 21891, "fibLoop:7": 1},
	"classes": {
		"Shape:8": 5, "Rect:31": 3, "Square:45": 1, "Circle:61": 2, "Shape.compare:24": 10,
		"Shape.describe:21": 6, "Square.describe:55": 2, "get Shape.name:12": 6, "get Square.side:48": 2, "set Square.side:51": 1,
		"<anonymous>:77": 5, "<anonymous>:78": 5, "<anonymous>:80": 5,
		"makeCounter:85": 2, "next:88": 20, "get current:92": 3, "reset:95": 1,
		"memoize:111": 1, "wrapped:114": 100, "<anonymous>:121": 1, "slowSquare:125": 10,
		"Stack:136": 1, "Stack.push:139": 3, "Stack.pop:143": 1, "get Stack.size:146": 1, "Stack.[Symbol.iterator]:149": 1, "next:153": 4,
	},
	"generators": {
		"check:2": 1, "range:6": 2, "fibs:10": 1, "take:19": 2, "flatten:27": 6, "withReturn:34": 1,
		"delay:55": 36, "<anonymous>:56": 36, "square:59": 26, "sumSquares:64": 2, "failing:70": 2, "countdown:75": 1,
	},
	"trycatch": {
		"ValidationError:7": 54, "validate:16": 5, "level3:23": 5, "level2:31": 5, "level1:40": 5, "kind:63": 6,
		"<anonymous>:72": 1, "<anonymous>:77": 1, "finallyOrder:81": 1, "overridden:96": 1, "dive:107": 275,
	},
	"sort": {"random:7": 500, "compareNumbers:12": 15733, "byScoreThenName:16": 1732, "isSorted:21": 2, "<anonymous>:37": 2442,
		"<anonymous>:47": 3, "<anonymous>:48": 3, "insertionSort:55": 1},
}

// namingAmbiguous are the functions the bytecode alone cannot tell apart
// (identical bodies and atoms): without memory they are reported as
// ambiguous, never named wrongly.
var namingAmbiguous = map[string][]string{
	"classes": {"<anonymous>:77", "<anonymous>:78", "<anonymous>:80", "get current:92", "<anonymous>:121"},
	"sort":    {"<anonymous>:47", "<anonymous>:48"},
}

// TestNamesFixtures is the acceptance test of naming: every fixture
// program on both real engines, built into a static module and run under
// the meter; every function measured is matched to its source function,
// with the calls the source makes, and its lines lie in the source.
func TestNamesFixtures(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real engines")
	}
	programs, err := js.Programs()
	require.NoError(t, err)
	for _, engine := range bctest.Plugins {
		e := loadEngine(t, engine)
		for _, p := range programs {
			t.Run(engine+"/"+p.Name, func(t *testing.T) {
				src := bctest.Source(t, p.Name)
				run := e.runMetered(t, src)
				require.Equal(t, p.Expected, run.stdout)
				lines := strings.Split(string(src), "\n")

				n := NewNamer(run.prog, run.spec)
				n.UseMemory(run.mem)
				n.Learn(run.results.Functions)
				byKey := map[string]costs.FunctionCost{}
				seen := map[string]bool{}
				for _, f := range run.results.Functions {
					info := n.Name(f)
					require.Equal(t, SourceBytecode, info.Source, "%#x: %+v", f.Address, info)
					require.False(t, info.Ambiguous, info.Name)
					require.NotNil(t, info.Function)
					assert.Equal(t, "function.mjs", info.File)
					pos := fmt.Sprintf("%s:%d:%d", info.Name, info.Line, info.Column)
					assert.False(t, seen[pos], "two runtime functions are %s", pos)
					seen[pos] = true
					byKey[fmt.Sprintf("%s:%d", info.Name, info.Line)] = f
					checkLineCosts(t, n, f, lines)
				}
				for key, calls := range namingCalls[p.Name] {
					f, ok := byKey[key]
					if assert.True(t, ok, "no function %s", key) {
						assert.Equal(t, calls, f.Calls, key)
					}
				}

				// Without memory, the same names or an honest ambiguity.
				bare := NewNamer(run.prog, run.spec)
				bare.Learn(run.results.Functions)
				var ambiguous []string
				for _, f := range run.results.Functions {
					with, without := n.Name(f), bare.Name(f)
					if without.Ambiguous {
						ambiguous = append(ambiguous, fmt.Sprintf("%s:%d", with.Name, with.Line))
						assert.Contains(t, without.Candidates, with.Function)
						assert.Contains(t, without.Name, fmt.Sprintf("%s:%d", with.Name, with.Line))
						continue
					}
					assert.Equal(t, with, without)
				}
				assert.ElementsMatch(t, namingAmbiguous[p.Name], ambiguous)
			})
		}
	}
}

// checkLineCosts checks that a function's cost by line adds up to its
// cost by pc, on lines of the function in the source.
func checkLineCosts(t *testing.T, n *Namer, f costs.FunctionCost, src []string) {
	t.Helper()
	info := n.Name(f)
	var execs, instrs, lineExecs, lineInstrs uint64
	for _, c := range f.PCs {
		execs += c.Executions
		instrs += c.Instructions
	}
	for _, lc := range n.LineCosts(f) {
		lineExecs += lc.Executions
		lineInstrs += lc.Instructions
		if lc.Line == 0 {
			// The engine's own code before the first statement of a
			// module (the patched engine dates it line 0).
			assert.Equal(t, "<eval>", info.Name)
			continue
		}
		assert.GreaterOrEqual(t, lc.Line, info.Line, info.Name)
		assert.LessOrEqual(t, lc.Line, len(src), info.Name)
	}
	assert.Equal(t, execs, lineExecs, info.Name)
	assert.Equal(t, instrs, lineInstrs, info.Name)
}

// TestNamesFibLines: fib's cost by line, on both engines, as each
// engine's own pc → line table dates fib's opcodes.
func TestNamesFibLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engines")
	}
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			e := loadEngine(t, engine)
			run := e.runMetered(t, bctest.Source(t, "fib"))
			n := NewNamer(run.prog, run.spec)
			n.Learn(run.results.Functions)
			var fib costs.FunctionCost
			for _, f := range run.results.Functions {
				if n.Name(f).Name == "fib" {
					fib = f
				}
			}
			require.Equal(t, uint64(21891), fib.Calls)
			byLine := map[int]uint64{}
			for _, lc := range n.LineCosts(fib) {
				byLine[lc.Line] = lc.Executions
			}
			// fib(20) makes 21891 calls, 10946 of them with n < 2.
			// fib's bytecode: pc 0 get_arg0, 1 push_2, 2 lt, 3 if_false8
			// (the test), 5 get_arg0, 6 return (return n), 7
			// get_var_ref0 fib, 8..18 the rest of line 3 (11 opcodes).
			const calls, leaves = 21891, 10946
			inner := uint64(calls - leaves)
			if engine == "javy-plugin-1.7.0" {
				// QuickJS-NG dates pc 0 at the function's own line and
				// pc 7 at line 2.
				assert.Equal(t, map[int]uint64{1: calls, 2: 4*inner + 5*leaves, 3: 11 * inner}, byLine)
			} else {
				assert.Equal(t, map[int]uint64{2: 4*inner + 6*leaves, 3: 12 * inner}, byLine)
			}
			line, col, ok := n.LineOf(fib, 8) // get_arg0 of fib(n - 1)
			assert.True(t, ok)
			assert.Equal(t, 3, line)
			assert.Equal(t, 14, col)
		})
	}
}

// TestNamesRuntime: functions compiled at run time (new Function, eval)
// are named from the engine's memory, or labelled by address; a function
// eval compiles to the same bytecode as a program function is told apart
// by the engine's record of where it comes from.
func TestNamesRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engines")
	}
	type want struct {
		name, file, source string
		line, column       int
		calls              uint64
	}
	tests := map[string][]want{
		"javy-plugin-1.7.0": {
			{"anonymous", "<input>", SourceMemory, 1, 1, 100},
			{"twice", "<input>", SourceMemory, 1, 1, 50},
			{"<anonymous>", "<input>", SourceMemory, 1, 1, 10},
			{"inc", "function.mjs", SourceBytecode, 10, 13, 20},
		},
		"javy-plugin-1.1.0": {
			{"anonymous", "<input>", SourceMemory, 1, 2, 100},
			{"twice", "<input>", SourceMemory, 1, 2, 50},
			{"<anonymous>", "<input>", SourceMemory, 1, 1, 10},
			{"inc", "function.mjs", SourceBytecode, 10, 13, 20},
		},
	}
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			e := loadEngine(t, engine)
			run := e.runMetered(t, bctest.Source(t, "runtime"))
			require.Equal(t, "runtime: 530909\n", run.stdout)
			n := NewNamer(run.prog, run.spec)
			n.UseMemory(run.mem)
			n.Learn(run.results.Functions)
			bare := NewNamer(run.prog, run.spec)
			bare.Learn(run.results.Functions)
			var got []want
			for _, f := range run.results.Functions {
				info := n.Name(f)
				if f.Calls < 10 {
					// The top levels: the program's, and those of the
					// eval'd and new Function code, freed (labelled by
					// address) or not (named <eval> from memory).
					assert.Contains(t, []string{"<eval>", fmt.Sprintf("anonymous@%#x", f.Address)}, info.Name)
					continue
				}
				got = append(got, want{info.Name, info.File, info.Source, info.Line, info.Column, f.Calls})
				if info.Source == SourceMemory {
					without := bare.Name(f)
					if without.Source == SourceAddress {
						assert.Equal(t, fmt.Sprintf("anonymous@%#x", f.Address), without.Name)
					} else {
						// Without memory, eval's copy of inc cannot be
						// told from inc (docs/naming.md).
						assert.Equal(t, "inc", without.Name)
					}
				}
				var sum uint64
				for _, lc := range n.LineCosts(f) {
					sum += lc.Executions
					assert.NotZero(t, lc.Line, info.Name)
				}
				assert.NotZero(t, sum)
			}
			assert.ElementsMatch(t, tests[engine], got)
		})
	}
}

func TestNamerWithoutProgram(t *testing.T) {
	n := NewNamer(nil, bytecode.EngineSpec{})
	f := costs.FunctionCost{Address: 0x1234, Length: 4, Code: []byte{1, 2, 3, 4},
		PCs: []costs.PCCost{{PC: 0, Executions: 2, Instructions: 10}, {PC: 2, Executions: 1, Instructions: 5}}}
	n.Learn([]costs.FunctionCost{f})
	info := n.Name(f)
	assert.Equal(t, FunctionInfo{Name: "anonymous@0x1234", Source: SourceAddress}, info)
	_, _, ok := n.LineOf(f, 0)
	assert.False(t, ok)
	assert.Equal(t, []LineCost{{Line: 0, Executions: 3, Instructions: 15}}, n.LineCosts(f))
	name, file, line, _ := n.Identity().Function(f)
	assert.Equal(t, "anonymous@0x1234", name)
	assert.Empty(t, file)
	assert.Zero(t, line)
}

// TestNamerAtoms: matching ignores atom operands the engine renumbers,
// keeps them consistent, and uses what unambiguous matches show of the
// renumbering to settle functions that differ only in atoms.
func TestNamerAtoms(t *testing.T) {
	// bytecode.Program atoms from 100: "foo" is 100, "bar" 101. Builtin atom 7.
	prog := &bytecode.Program{FirstAtom: 100, Atoms: []string{"foo", "bar"}}
	op := func(atom uint32) []byte { // get_field ATOM (opcode 65 here)
		return []byte{65, byte(atom), byte(atom >> 8), byte(atom >> 16), byte(atom >> 24)}
	}
	fn := func(name string, line int, atoms ...uint32) *bytecode.Function {
		f := &bytecode.Function{Name: name, Line: line, File: "f.js", Lines: []bytecode.PCLine{{PC: 0, Line: line, Column: 1}}}
		for i, a := range atoms {
			f.Code = append(f.Code, op(a)...)
			f.AtomOps = append(f.AtomOps, bytecode.AtomOperand{Offset: uint32(5*i + 1), Ref: a})
		}
		f.Code = append(f.Code, 40) // return
		return f
	}
	getFoo := fn("getFoo", 1, 100)
	getBar := fn("getBar", 2, 101)
	both := fn("both", 3, 100, 7, 100)
	prog.Functions = []*bytecode.Function{getFoo, getBar, both}
	run := func(atoms ...uint32) []byte { return fn("", 0, atoms...).Code }

	n := NewNamer(prog, bytecode.EngineSpec{})
	tests := []struct {
		name string
		code []byte
		want []string
	}{
		{"remapped", run(500, 7, 500), []string{"both"}},
		{"inconsistent remapping", run(500, 7, 501), nil},
		{"builtin changed", run(500, 8, 500), nil},
		{"program atom mapped to a builtin", run(5, 7, 5), nil},
		{"one atom, two functions", run(600), []string{"getFoo", "getBar"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range n.candidates(costs.FunctionCost{Code: tt.code}) {
				got = append(got, c.fn.Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}

	// "both" shows that foo is runtime atom 500: the function reading
	// atom 600 is then getBar, the one reading 500 getFoo.
	fs := []costs.FunctionCost{
		{Address: 0x100, Code: run(500, 7, 500)},
		{Address: 0x200, Code: run(600)},
		{Address: 0x300, Code: run(500)},
		{Address: 0x400, Code: run(700, 7, 700, 1)}, // no program function this long
	}
	alone := n.Name(fs[1])
	assert.True(t, alone.Ambiguous)
	assert.Equal(t, "getFoo:1 | getBar:2", alone.Name)
	assert.Equal(t, "f.js", alone.File)
	assert.Zero(t, alone.Line)
	n.Learn(fs)
	assert.Equal(t, "both", n.Name(fs[0]).Name)
	assert.Equal(t, "getBar", n.Name(fs[1]).Name)
	assert.Equal(t, "getFoo", n.Name(fs[2]).Name)
	assert.Equal(t, "anonymous@0x400", n.Name(fs[3]).Name)
	line, _, ok := n.LineOf(fs[1], 0)
	assert.True(t, ok)
	assert.Equal(t, 2, line)
}

func TestAmbiguousInfo(t *testing.T) {
	var fns []*bytecode.Function
	for i := 1; i <= 5; i++ {
		fns = append(fns, &bytecode.Function{Line: i, File: "a.js", Lines: []bytecode.PCLine{{PC: 0, Line: 9, Column: 1}}})
	}
	info := ambiguousInfo(fns)
	assert.Equal(t, "<anonymous>:1 | <anonymous>:2 | <anonymous>:3 | … (5 candidates)", info.Name)
	assert.True(t, info.Ambiguous)
	assert.Equal(t, "a.js", info.File)
	assert.Zero(t, info.Line)
	// Every candidate puts pc 0 on line 9: so does LineOf.
	line, _, ok := NewNamer(nil, bytecode.EngineSpec{}).lineOfInfo(costs.FunctionCost{}, info, 0)
	assert.True(t, ok)
	assert.Equal(t, 9, line)
	fns[2].Lines = []bytecode.PCLine{{PC: 0, Line: 8, Column: 1}}
	_, _, ok = NewNamer(nil, bytecode.EngineSpec{}).lineOfInfo(costs.FunctionCost{}, info, 0)
	assert.False(t, ok)
}
