package naming

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// TestCheck: the functions of a real run pass the self-check; the same
// run with one function's code replaced by another's (what the meter kept
// when the engine freed a buffer and filled it with the program, issue 28)
// fails it, naming the pc, the opcode dispatched and the byte found.
func TestCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engines")
	}
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			e := loadEngine(t, engine)
			run := e.runMetered(t, bctest.Source(t, "fib"))
			n := NewNamer(run.prog, run.spec)
			fs := run.results.Functions
			n.Learn(fs)
			failed, checked := n.Check(fs)
			assert.Empty(t, failed)
			assert.Equal(t, len(fs), checked, "every function's code was read")

			fib := slices.IndexFunc(fs, func(f costs.FunctionCost) bool { return n.Name(f).Name == "fib" })
			top := slices.IndexFunc(fs, func(f costs.FunctionCost) bool { return n.Name(f).Name == "<eval>" })
			require.GreaterOrEqual(t, fib, 0)
			require.GreaterOrEqual(t, top, 0)
			corrupt := slices.Clone(fs)
			stale := make([]byte, len(fs[fib].Code))
			copy(stale, fs[top].Code) // the top level's code where fib's was
			corrupt[fib].Code = stale
			failed, _ = n.Check(corrupt)
			require.Len(t, failed, 1)
			assert.Equal(t, fib, failed[0].Function)
			assert.Contains(t, failed[0].Why, "pc 0: the interpreter dispatched get_arg0, the code holds ")
			assert.Contains(t, failed[0].Why, "more pcs)")

			// An opcode dispatched where the code holds it, but inside
			// another instruction: fib's pc 3 is if_false8 with its 1-byte
			// operand at pc 4.
			code := fs[fib].Code
			require.Equal(t, "if_false8", n.opName(int(code[3])))
			inside := slices.Clone(fs)
			inside[fib].PCs = append(slices.Clone(fs[fib].PCs), costs.PCCost{PC: 4, Opcode: int(code[4]), Dispatched: int(code[4]), Executions: 1})
			failed, _ = n.Check(inside)
			require.Len(t, failed, 1)
			assert.Contains(t, failed[0].Why, "pc 4: ")
			assert.Contains(t, failed[0].Why, "dispatched inside another instruction")
		})
	}
}

// TestCheckOtherEngines: the self-check passes on the other engines whose
// bytecode jsprof reads — Bellard QuickJS 2021-03-27 and quickjs-wasi's
// QuickJS-NG v0.15 — for a program with closures, classes and recursion:
// the opcode their dispatch reads is the byte at the pc, at an
// instruction's start.
func TestCheckOtherEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real engines")
	}
	type engine struct {
		spec bytecode.EngineSpec
		run  func(t *testing.T, src []byte) *bctest.Run
	}
	engines := map[string]func(t *testing.T) engine{
		"qjsrunner-2021-03-27": func(t *testing.T) engine {
			q := bctest.LoadQJSRunner(t)
			spec, err := bytecode.EngineSpecForModule(q.Module, q.Report)
			require.NoError(t, err)
			return engine{spec, func(t *testing.T, src []byte) *bctest.Run { return q.RunMetered(t, q.Compile(t, src)) }}
		},
		"quickjs-wasi-3.0.0": func(t *testing.T) engine {
			e := bctest.LoadWasiEngine(t, "quickjs-wasi-3.0.0")
			spec, err := bytecode.EngineSpecForModule(e.Module, e.Report)
			require.NoError(t, err)
			return engine{spec, func(t *testing.T, src []byte) *bctest.Run { return e.RunMetered(t, e.Compile(t, src)) }}
		},
	}
	for name, load := range engines {
		t.Run(name, func(t *testing.T) {
			e := load(t)
			for _, program := range []string{"fib", "classes"} {
				run := e.run(t, bctest.Source(t, program))
				n := NewNamer(nil, e.spec)
				failed, checked := n.Check(run.Results.Functions)
				assert.Empty(t, failed, program)
				assert.Positive(t, checked, program)
			}
		})
	}
}
