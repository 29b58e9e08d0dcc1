package wasmcore

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

func TestEditBody(t *testing.T) {
	body := []byte{0, 1, 2, 3, 4, 5}
	cases := []struct {
		name  string
		edits []BodyEdit
		want  []byte
		err   string
	}{
		{"none", nil, []byte{0, 1, 2, 3, 4, 5}, ""},
		{"insert at start", []BodyEdit{{At: 0, Insert: []byte{9}}}, []byte{9, 0, 1, 2, 3, 4, 5}, ""},
		{"insert at end", []BodyEdit{{At: 6, Insert: []byte{9}}}, []byte{0, 1, 2, 3, 4, 5, 9}, ""},
		{"replace", []BodyEdit{{At: 2, Remove: 2, Insert: []byte{7, 7, 7}}}, []byte{0, 1, 7, 7, 7, 4, 5}, ""},
		{"remove", []BodyEdit{{At: 1, Remove: 4}}, []byte{0, 5}, ""},
		{"unsorted", []BodyEdit{{At: 4, Insert: []byte{8}}, {At: 1, Insert: []byte{9}}}, []byte{0, 9, 1, 2, 3, 8, 4, 5}, ""},
		{"two inserts at one offset keep order", []BodyEdit{{At: 3, Insert: []byte{8}}, {At: 3, Insert: []byte{9}}}, []byte{0, 1, 2, 8, 9, 3, 4, 5}, ""},
		{"adjacent", []BodyEdit{{At: 1, Remove: 2, Insert: []byte{9}}, {At: 3, Remove: 1}}, []byte{0, 9, 4, 5}, ""},
		{"overlap", []BodyEdit{{At: 1, Remove: 3}, {At: 2, Remove: 1}}, nil, "overlaps"},
		{"past end", []BodyEdit{{At: 5, Remove: 2}}, nil, "goes past the body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := append([]byte(nil), body...)
			got, err := EditBody(body, c.edits)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
			assert.Equal(t, orig, body, "input must not change")
		})
	}
}

func TestAddTypeGlobalRemoveExport(t *testing.T) {
	m, err := Decode(mustRead(t, "testdata/calls.wasm"))
	require.NoError(t, err)
	n := len(m.Types)
	assert.Equal(t, uint32(0), m.AddType(FuncType{Params: []ValType{ValI32}, Results: []ValType{ValI32}}), "reuses an identical type")
	assert.Equal(t, uint32(n), m.AddType(FuncType{Params: []ValType{ValF64}}))
	assert.Equal(t, uint32(n), m.AddType(FuncType{Params: []ValType{ValF64}}))
	assert.Equal(t, uint32(2), m.AddGlobal(Global{Type: GlobalType{Type: ValI64, Mutable: true}, Init: ConstI64(-7)}))
	assert.True(t, m.RemoveExport("getref"))
	assert.False(t, m.RemoveExport("getref"))
	out, err := m.Encode()
	require.NoError(t, err)
	m2, err := Decode(out)
	require.NoError(t, err)
	require.Len(t, m2.Globals, 3)
	v, ok := m2.Globals[2].Init.I64()
	require.True(t, ok)
	assert.Equal(t, int64(-7), v)
	_, ok = m2.ExportedFunc("getref")
	assert.False(t, ok)
	compile(t, out)
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

func newRuntime(ctx context.Context) wazero.Runtime {
	// The interpreter validates modules like the compiler does, and
	// compiles much faster: enough to prove an encoding valid.
	return wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
}

// compile proves b is a valid module by compiling it with wazero.
func compile(t testing.TB, b []byte) {
	t.Helper()
	ctx := context.Background()
	r := newRuntime(ctx)
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, b)
	require.NoError(t, err)
	require.NoError(t, cm.Close(ctx))
}

// runCalls instantiates a calls.wasm variant and returns run(5), plus how
// often jsprof.hook was called.
func runCalls(t *testing.T, b []byte, call string) (uint64, int) {
	ctx := context.Background()
	r := newRuntime(ctx)
	defer r.Close(ctx)
	hooks := 0
	_, err := r.NewHostModuleBuilder("env").
		NewFunctionBuilder().WithFunc(func(x int32) int32 { return x + 1 }).Export("add1").
		Instantiate(ctx)
	require.NoError(t, err)
	_, err = r.NewHostModuleBuilder("jsprof").
		NewFunctionBuilder().WithFunc(func() { hooks++ }).Export("hook").
		Instantiate(ctx)
	require.NoError(t, err)
	mod, err := r.Instantiate(ctx, b)
	require.NoError(t, err)
	res, err := mod.ExportedFunction(call).Call(ctx, 5)
	require.NoError(t, err)
	return res[0], hooks
}

func TestAddImportFuncRuns(t *testing.T) {
	orig := mustRead(t, "testdata/calls.wasm")
	want, _ := runCalls(t, orig, "run")
	require.Equal(t, uint64(19), want) // triple(5) + add1(triple(1))

	m, err := Decode(orig)
	require.NoError(t, err)
	hookType := m.AddType(FuncType{})
	hook := m.AddImportFunc("jsprof", "hook", hookType)
	require.Equal(t, uint32(1), hook)
	assert.Equal(t, "hook", m.FuncName(hook))
	assert.Equal(t, "double", m.FuncName(2))
	assert.Equal(t, "tmp", m.Names.Locals[3][1], "local names follow their function")
	start := *m.Start
	assert.Equal(t, uint32(5), start)
	idx, _ := m.ExportedFunc("run")
	assert.Equal(t, uint32(6), idx)
	assert.Equal(t, []uint32{2, 3}, m.Elements[0].Funcs)
	ref, ok := m.Globals[1].Init.RefFunc()
	require.True(t, ok)
	assert.Equal(t, uint32(2), ref)

	// A new function that calls the hook, then run.
	runType, err := m.FuncTypeIndex(idx)
	require.NoError(t, err)
	var body []byte
	body = AppendInstr(body, Instr{Op: OpCall, Index: hook})
	body = AppendInstr(body, Instr{Op: OpLocalGet, Index: 0})
	body = AppendInstr(body, Instr{Op: OpCall, Index: idx})
	body = AppendInstr(body, Instr{Op: OpEnd})
	hooked := m.AddFunction(Function{Type: runType, Body: body})
	m.Exports = append(m.Exports, Export{Name: "hooked", Kind: ExternFunc, Index: hooked})

	out, err := m.Encode()
	require.NoError(t, err)
	got, hooks := runCalls(t, out, "run")
	assert.Equal(t, want, got)
	assert.Equal(t, 0, hooks)
	got, hooks = runCalls(t, out, "hooked")
	assert.Equal(t, want, got)
	assert.Equal(t, 1, hooks)

	m2, err := Decode(out)
	require.NoError(t, err)
	assert.Equal(t, "hook", m2.FuncName(1))
	assert.Equal(t, "getref", m2.FuncName(7))
}

// callTargets lists, per defined function, the function indices its
// instructions reference.
func callTargets(t *testing.T, m *Module) [][]uint32 {
	out := make([][]uint32, len(m.Functions))
	for i, f := range m.Functions {
		ins, err := DecodeInstructions(f.Body)
		require.NoError(t, err)
		for _, in := range ins {
			if in.Op == OpCall || in.Op == OpReturnCall || in.Op == OpRefFunc {
				out[i] = append(out[i], in.Index)
			}
		}
	}
	return out
}

func TestAddImportFuncRealEngines(t *testing.T) {
	for _, name := range []string{"javy-plugin-1.1.0", "jitl-release-0.32.0"} {
		t.Run(name, func(t *testing.T) {
			orig := fixtures.EngineBytes(t, name)
			m, err := Decode(orig)
			require.NoError(t, err)
			before := callTargets(t, m)
			k := m.NumImportedFuncs()
			var startBefore *uint32
			if m.Start != nil {
				s := *m.Start
				startBefore = &s
			}
			exportsBefore := append([]Export(nil), m.Exports...)
			sizes := make([]int, len(m.Functions))
			for i, f := range m.Functions {
				sizes[i] = len(f.Body)
			}

			got := m.AddImportFunc("jsprof", "hook", m.AddType(FuncType{Params: []ValType{ValI32}}))
			require.Equal(t, k, got)
			out, err := m.Encode()
			require.NoError(t, err)
			compile(t, out)

			m2, err := Decode(out)
			require.NoError(t, err)
			require.Equal(t, k+1, m2.NumImportedFuncs())
			after := callTargets(t, m2)
			for i := range before {
				require.Len(t, after[i], len(before[i]))
				for j, idx := range before[i] {
					if idx >= k {
						idx++
					}
					require.Equal(t, idx, after[i][j], "function %d reference %d", int(k)+i, j)
				}
			}
			for i, e := range exportsBefore {
				if e.Kind == ExternFunc && e.Index >= k {
					e.Index++
				}
				assert.Equal(t, e, m2.Exports[i])
			}
			if startBefore != nil {
				assert.Equal(t, *startBefore+1, *m2.Start)
			}
			if name == "javy-plugin-1.1.0" {
				// wasm-ld pads call indices to 5 bytes: renumbering keeps
				// every body the same size, so code offsets do not move.
				for i, f := range m2.Functions {
					require.Equal(t, sizes[i], len(f.Body), "function %d", int(k)+1+i)
				}
				assert.Equal(t, "hook", m2.FuncName(k))
				assert.Equal(t, m.FuncName(k+5), m2.FuncName(k+5))
			}
			// Sections the rewrite did not touch are copied byte for byte.
			for _, id := range []SectionID{SectionFunction, SectionTable, SectionGlobal, SectionData} {
				sp := m.src.secs[id]
				if sp.present {
					assert.True(t, bytes.Contains(out, orig[sp.start:sp.end]), "%v section copied", id)
				}
			}
		})
	}
}

// TestAddImportFuncsBatch: adding imports in one call gives the module
// adding them one at a time gives, byte for byte, with their indices in
// order.
func TestAddImportFuncsBatch(t *testing.T) {
	orig := fixtures.EngineBytes(t, "javy-plugin-1.1.0")
	one, err := Decode(orig)
	require.NoError(t, err)
	batch, err := Decode(orig)
	require.NoError(t, err)
	k := one.NumImportedFuncs()
	names := []string{"a", "b", "c"}
	for i, name := range names {
		require.Equal(t, k+uint32(i), one.AddImportFunc("jsprof", name, one.AddType(FuncType{})))
	}
	void := batch.AddType(FuncType{})
	var imports []FuncImport
	for _, name := range names {
		imports = append(imports, FuncImport{Module: "jsprof", Name: name, Type: void})
	}
	require.Equal(t, k, batch.AddImportFuncs(imports...))
	want, err := one.Encode()
	require.NoError(t, err)
	got, err := batch.Encode()
	require.NoError(t, err)
	assert.Equal(t, len(want), len(got), "encoded sizes")
	assert.True(t, bytes.Equal(want, got), "the batch's module differs from one import at a time")
	assert.Equal(t, k+3, batch.AddImportFuncs(), "no imports: the next index, nothing added")
}
