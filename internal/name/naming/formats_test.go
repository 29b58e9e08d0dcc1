package naming

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// TestNamesQJSRunner: on jsprof's own runner around Bellard QuickJS
// 2021-03-27 (serialization version 2, layout B2020: lines, no columns),
// fib is named at line 1 with its 21891 calls, and the classes fixture's
// methods, accessors and closures at their lines.
func TestNamesQJSRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real engine")
	}
	q := bctest.LoadQJSRunner(t)
	spec, err := bytecode.EngineSpecForModule(q.Module, q.Report)
	require.NoError(t, err)
	names := func(t *testing.T, program string) (map[string]costs.FunctionCost, map[string]FunctionInfo, *Namer) {
		bc := q.Compile(t, bctest.Source(t, program))
		prog, err := bytecode.Parse(bc, spec)
		require.NoError(t, err)
		require.Equal(t, "B2020", prog.Layout.Name)
		run := q.RunMetered(t, bc)
		n := NewNamer(prog, spec)
		n.UseMemory(run.Memory)
		n.Learn(run.Results.Functions)
		costs, infos := map[string]costs.FunctionCost{}, map[string]FunctionInfo{}
		for _, f := range run.Results.Functions {
			info := n.Name(f)
			costs[info.Name], infos[info.Name] = f, info
		}
		return costs, infos, n
	}
	t.Run("fib", func(t *testing.T) {
		costs, infos, n := names(t, "fib")
		require.Contains(t, costs, "fib")
		assert.Equal(t, uint64(21891), costs["fib"].Calls)
		assert.Equal(t, 1, infos["fib"].Line)
		assert.Equal(t, SourceBytecode, infos["fib"].Source)
		lines := map[int]bool{}
		for _, lc := range n.LineCosts(costs["fib"]) {
			lines[lc.Line] = true
		}
		assert.Equal(t, map[int]bool{2: true, 3: true}, lines)
	})
	t.Run("generators", func(t *testing.T) {
		// Bellard's QuickJS before 2024 has no top-level await: the
		// awaiting tail runs in an async arrow started on its first line.
		src := strings.Replace(string(bctest.Source(t, "generators")), "const total = await", "(async () => { const total = await", 1) + "})();\n"
		bc := q.Compile(t, []byte(src))
		prog, err := bytecode.Parse(bc, spec)
		require.NoError(t, err)
		checkRunNames(t, prog, spec, q.RunMetered(t, bc), generatorsWant)
	})
	t.Run("classes", func(t *testing.T) {
		_, infos, _ := names(t, "classes")
		for name, line := range classesWant {
			if assert.Contains(t, infos, name) {
				assert.Equal(t, line, infos[name].Line, name)
			}
		}
	})
}

// TestNamesWasi: on npm quickjs-wasi's QuickJS-NG builds (v0.12.1 0x17,
// v0.15.0 0x1a, next 0x1c) driven through their C API, fib is named at
// line 1 with its 21891 calls.
func TestNamesWasi(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real engines")
	}
	for name := range bctest.WasiEngines {
		t.Run(name, func(t *testing.T) {
			e := bctest.LoadWasiEngine(t, name)
			spec, err := bytecode.EngineSpecForModule(e.Module, e.Report)
			require.NoError(t, err)
			bc := e.Compile(t, bctest.Source(t, "fib"))
			prog, err := bytecode.Parse(bc, spec)
			require.NoError(t, err)
			run := e.RunMetered(t, bc)
			n := NewNamer(prog, spec)
			n.UseMemory(run.Memory)
			n.Learn(run.Results.Functions)
			var fib *costs.FunctionCost
			for i, f := range run.Results.Functions {
				if n.Name(f).Name == "fib" {
					fib = &run.Results.Functions[i]
				}
			}
			require.NotNil(t, fib, "fib named")
			assert.Equal(t, uint64(21891), fib.Calls)
			assert.Equal(t, 1, n.Name(*fib).Line)

			bc = e.Compile(t, bctest.Source(t, "generators"))
			prog, err = bytecode.Parse(bc, spec)
			require.NoError(t, err)
			checkRunNames(t, prog, spec, e.RunMetered(t, bc), generatorsWant)

			bc = e.Compile(t, bctest.Source(t, "classes"))
			prog, err = bytecode.Parse(bc, spec)
			require.NoError(t, err)
			checkRunNames(t, prog, spec, e.RunMetered(t, bc), classesWant)
		})
	}
}

// classesWant are classes.js's constructors, methods, accessors and
// closures, by name and line.
var classesWant = map[string]int{
	"Shape": 8, "get Shape.name": 12, "Shape.describe": 21, "Rect.area": 36, "Square": 45,
	"set Square.side": 51, "Circle.area": 65, "makeCounter": 85, "reset": 95,
	"memoize": 111, "wrapped": 114, "slowSquare": 125, "Stack.[Symbol.iterator]": 149,
}

// generatorsWant are generators.js's generators, async functions, async
// generators and closures, by name and line.
var generatorsWant = map[string]int{
	"check": 2, "range": 6, "fibs": 10, "take": 19, "flatten": 27, "withReturn": 34,
	"delay": 55, "square": 59, "sumSquares": 64, "failing": 70, "countdown": 75,
}

// checkRunNames: each wanted function ran and is named at its line.
func checkRunNames(t *testing.T, prog *bytecode.Program, spec bytecode.EngineSpec, run *bctest.Run, want map[string]int) {
	t.Helper()
	n := NewNamer(prog, spec)
	n.UseMemory(run.Memory)
	n.Learn(run.Results.Functions)
	got := map[string]int{}
	for _, f := range run.Results.Functions {
		info := n.Name(f)
		got[info.Name] = info.Line
	}
	for name, line := range want {
		if assert.Contains(t, got, name) {
			assert.Equal(t, line, got[name], name)
		}
	}
}

// TestNamesRuntimeFormats: functions compiled at run time (new Function,
// eval) are described from the engine's memory on jsprof's own runner
// (Bellard 2021-03-27) and on quickjs-wasi's QuickJS-NG v0.12 and v0.15:
// the release's known layout gives their line, and eval's copy of inc is
// told apart from inc. Their names are not asserted: the runner's arena
// allocator never reuses memory, so the objects outlive the atoms of their
// names, and the quickjs-wasi builds' atom array is not found (naming
// reads no JSString of theirs yet).
func TestNamesRuntimeFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real engines")
	}
	check := func(t *testing.T, spec bytecode.EngineSpec, bc []byte, run *bctest.Run) *Namer {
		prog, err := bytecode.Parse(bc, spec)
		require.NoError(t, err)
		n := NewNamer(prog, spec)
		n.UseMemory(run.Memory)
		n.Learn(run.Results.Functions)
		calls := map[uint64]FunctionInfo{}
		for _, f := range run.Results.Functions {
			if f.Calls >= 10 {
				calls[f.Calls] = n.Name(f)
			}
		}
		for _, c := range []uint64{100, 50, 10} { // add, twice, eval's (x) => x + 1
			info, ok := calls[c]
			if assert.True(t, ok, "no function called %d times", c) {
				assert.Equal(t, SourceMemory, info.Source, "%d calls", c)
				assert.Equal(t, 1, info.Line, "%d calls", c)
				assert.NotEqual(t, "inc", info.Name, "%d calls", c)
			}
		}
		assert.Equal(t, "inc", calls[20].Name)
		assert.Equal(t, 10, calls[20].Line)
		return n
	}
	t.Run("qjsrunner-2021-03-27", func(t *testing.T) {
		q := bctest.LoadQJSRunner(t)
		spec, err := bytecode.EngineSpecForModule(q.Module, q.Report)
		require.NoError(t, err)
		bc := q.Compile(t, bctest.Source(t, "runtime"))
		n := check(t, spec, bc, q.RunMetered(t, bc))
		assertKnownLayout(t, n, spec.TableID, bytecode.FormatLines)
	})
	// quickjs-wasi 3.6.2's unreleased QuickJS-NG keeps its function
	// objects in another layout than the releases of its opcode table:
	// runtime.js matches too few functions to calibrate it.
	for _, name := range []string{"quickjs-wasi-2.0.0", "quickjs-wasi-3.0.0"} {
		t.Run(name, func(t *testing.T) {
			e := bctest.LoadWasiEngine(t, name)
			spec, err := bytecode.EngineSpecForModule(e.Module, e.Report)
			require.NoError(t, err)
			bc := e.Compile(t, bctest.Source(t, "runtime"))
			n := check(t, spec, bc, e.RunMetered(t, bc))
			assertKnownLayout(t, n, spec.TableID, bytecode.FormatNG)
		})
	}
}

// assertKnownLayout: the offsets the run established (calibrated, or
// the known ones the samples agreed with) are the release's known layout
// (knownLayout), which is what names runtime functions in runs that
// match too few functions to calibrate.
func assertKnownLayout(t *testing.T, n *Namer, table string, format bytecode.Format) {
	t.Helper()
	known, ok := knownLayout(table, format)
	require.True(t, ok, "no known layout for %s", table)
	require.NotNil(t, n.layout)
	got := n.layout
	for _, f := range []struct {
		name      string
		got, want int
	}{
		{"buf", got.buf, known.buf}, {"length", got.length, known.length}, {"name", got.name, known.name},
		{"line", got.line, known.line}, {"column", got.column, known.column},
		{"pc2line", got.pc2line, known.pc2line}, {"pc2lineLen", got.pc2lineLen, known.pc2lineLen},
	} {
		assert.Equal(t, f.want, f.got, f.name)
	}
}

// TestNamesWithoutProgram: a build that carries no serialized program (the
// Javy builds of 2021-22 were Wizer'd: their JS was evaluated when the
// module was made, and its bytecode is in the memory image) has nothing
// to match: on Bellard QuickJS 2021-03-27 (the releases those builds
// embed), the engine's known layout, which the measured functions'
// objects agree with, names fib and gives its lines from memory.
func TestNamesWithoutProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real engine")
	}
	q := bctest.LoadQJSRunner(t)
	spec, err := bytecode.EngineSpecForModule(q.Module, q.Report)
	require.NoError(t, err)
	run := q.RunMetered(t, q.Compile(t, bctest.Source(t, "fib")))
	n := NewNamer(nil, spec)
	n.UseMemory(run.Memory)
	n.Learn(run.Results.Functions)
	var fib *costs.FunctionCost
	for i, f := range run.Results.Functions {
		if f.Calls == 21891 {
			fib = &run.Results.Functions[i]
		}
	}
	require.NotNil(t, fib, "fib(20)'s 21891 calls")
	info := n.Name(*fib)
	assert.Equal(t, SourceMemory, info.Source)
	assert.Equal(t, "fib", info.Name)
	assert.Equal(t, 1, info.Line)
	line, _, ok := n.LineOf(*fib, 0)
	assert.True(t, ok)
	assert.Equal(t, 2, line, "pc 0 (n < 2) is on line 2")

	// The negative control: without the engine's memory, no name.
	bare := NewNamer(nil, spec)
	bare.Learn(run.Results.Functions)
	assert.Equal(t, SourceAddress, bare.Name(*fib).Source)
}
