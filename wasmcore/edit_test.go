package wasmcore

import (
	"bytes"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// detached returns a copy of m with no memory of the decoded binary, so
// that Encode writes every section canonically. Names is dropped so the
// name custom section is written from its bytes.
func detached(m *Module) *Module {
	c := *m
	c.src = nil
	c.Names = nil
	return &c
}

// requireSameContent compares two modules field by field (not byte
// offsets or where custom sections sit).
func requireSameContent(t testing.TB, a, b *Module) {
	t.Helper()
	require.True(t, slices.EqualFunc(a.Types, b.Types, FuncType.Equal), "types")
	require.True(t, slices.Equal(a.Imports, b.Imports), "imports")
	require.Equal(t, len(a.Functions), len(b.Functions), "functions")
	for i := range a.Functions {
		fa, fb := a.Functions[i], b.Functions[i]
		require.Equal(t, fa.Type, fb.Type, "function %d type", i)
		require.True(t, slices.Equal(fa.Locals, fb.Locals), "function %d locals", i)
		require.True(t, bytes.Equal(fa.Body, fb.Body), "function %d body", i)
	}
	require.True(t, slices.Equal(a.Tables, b.Tables), "tables")
	require.True(t, slices.Equal(a.Memories, b.Memories), "memories")
	require.True(t, slices.EqualFunc(a.Globals, b.Globals, func(x, y Global) bool {
		return x.Type == y.Type && bytes.Equal(x.Init.Code, y.Init.Code)
	}), "globals")
	require.True(t, slices.Equal(a.Exports, b.Exports), "exports")
	require.Equal(t, a.Start, b.Start, "start")
	require.True(t, slices.EqualFunc(a.Elements, b.Elements, equalElement), "elements")
	require.Equal(t, a.DataCount, b.DataCount, "data count")
	require.True(t, slices.EqualFunc(a.Data, b.Data, equalData), "data")
	require.Equal(t, len(a.Customs), len(b.Customs), "customs")
	for i := range a.Customs {
		require.Equal(t, a.Customs[i].Name, b.Customs[i].Name)
		require.True(t, bytes.Equal(a.Customs[i].Data, b.Customs[i].Data), "custom %q", a.Customs[i].Name)
	}
}

// TestCanonicalEncode writes every input with all sections re-encoded and
// checks the result decodes to the same content, is a fixed point, and
// (for the real engines) is valid for wazero.
func TestCanonicalEncode(t *testing.T) {
	for _, in := range allInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			m, err := Decode(in.data)
			require.NoError(t, err)
			out, err := detached(m).Encode()
			require.NoError(t, err)
			m2, err := Decode(out)
			require.NoError(t, err)
			requireSameContent(t, m, m2)
			out2, err := detached(m2).Encode()
			require.NoError(t, err)
			require.Equal(t, out, out2, "canonical encoding is a fixed point")
			if bytes.HasPrefix([]byte(in.name), []byte("engine/")) {
				compile(t, out)
			}
		})
	}
}

func TestEditsHonoured(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		edit  func(m *Module)
		check func(t *testing.T, m *Module)
	}{
		{"type appended", "calls.wasm",
			func(m *Module) { m.Types = append(m.Types, FuncType{Params: []ValType{ValF32}}) },
			func(t *testing.T, m *Module) { assert.Equal(t, []ValType{ValF32}, m.Types[len(m.Types)-1].Params) }},
		{"type edited in place", "calls.wasm",
			func(m *Module) { m.Types[0].Params[0] = ValI64 },
			func(t *testing.T, m *Module) { assert.Equal(t, ValI64, m.Types[0].Params[0]) }},
		{"import renamed", "calls.wasm",
			func(m *Module) { m.Imports[0].Name = "add2" },
			func(t *testing.T, m *Module) { assert.Equal(t, "add2", m.Imports[0].Name) }},
		{"function type", "calls.wasm",
			func(m *Module) { m.Functions[3].Type = 0 },
			func(t *testing.T, m *Module) { assert.Equal(t, uint32(0), m.Functions[3].Type) }},
		{"table limits", "calls.wasm",
			func(m *Module) { m.Tables[0].Limits = Limits{Min: 10, Max: 20, HasMax: true} },
			func(t *testing.T, m *Module) {
				assert.Equal(t, Limits{Min: 10, Max: 20, HasMax: true}, m.Tables[0].Limits)
			}},
		{"memory added", "calls.wasm",
			func(m *Module) { m.Memories = append(m.Memories, MemoryType{Limits: Limits{Min: 1}}) },
			func(t *testing.T, m *Module) { assert.Equal(t, []MemoryType{{Limits: Limits{Min: 1}}}, m.Memories) }},
		{"global init edited in place", "calls.wasm",
			func(m *Module) { m.Globals[0].Init.Code[1] = 5 },
			func(t *testing.T, m *Module) {
				v, ok := m.Globals[0].Init.I32()
				assert.True(t, ok)
				assert.Equal(t, int32(5), v)
			}},
		{"export renamed", "calls.wasm",
			func(m *Module) { m.Exports[0].Name = "go" },
			func(t *testing.T, m *Module) { _, ok := m.ExportedFunc("go"); assert.True(t, ok) }},
		{"start removed", "calls.wasm",
			func(m *Module) { m.Start = nil },
			func(t *testing.T, m *Module) { assert.Nil(t, m.Start) }},
		{"start changed", "calls.wasm",
			func(m *Module) { *m.Start = 1 },
			func(t *testing.T, m *Module) { assert.Equal(t, uint32(1), *m.Start) }},
		{"element edited in place", "calls.wasm",
			func(m *Module) { m.Elements[0].Funcs[0] = 3 },
			func(t *testing.T, m *Module) { assert.Equal(t, []uint32{3, 2}, m.Elements[0].Funcs) }},
		{"data edited in place", "features.wasm",
			func(m *Module) { m.Data[0].Init[0] = 'A' },
			func(t *testing.T, m *Module) { assert.Equal(t, "Active", string(m.Data[0].Init)) }},
		{"data segment added", "features.wasm",
			func(m *Module) {
				m.Data = append(m.Data, DataSegment{Mode: DataActive, Memory: 0, Offset: ConstI32(128), Init: []byte("new")})
				*m.DataCount = 4
			},
			func(t *testing.T, m *Module) {
				assert.Equal(t, uint32(4), *m.DataCount)
				assert.Equal(t, "new", string(m.Data[3].Init))
				assert.Equal(t, "explicit", string(m.Data[2].Init))
			}},
		{"body edited in place", "calls.wasm",
			func(m *Module) { m.Functions[0].Body[len(m.Functions[0].Body)-2] = byte(OpI32Add) },
			func(t *testing.T, m *Module) {
				ins, err := DecodeInstructions(m.Functions[0].Body)
				require.NoError(t, err)
				assert.Equal(t, OpI32Add, ins[len(ins)-2].Op)
			}},
		{"body appended to", "calls.wasm",
			func(m *Module) {
				b := m.Functions[0].Body
				// Appending must not overwrite the next function's body,
				// which shares the decoded buffer.
				m.Functions[0].Body = append(b[:len(b)-1], byte(OpNop), byte(OpEnd))
			},
			func(t *testing.T, m *Module) {
				ins, err := DecodeInstructions(m.Functions[1].Body)
				require.NoError(t, err)
				assert.Equal(t, OpLocalGet, ins[0].Op)
				assert.Equal(t, byte(OpNop), m.Functions[0].Body[len(m.Functions[0].Body)-2])
			}},
		{"locals added", "calls.wasm",
			func(m *Module) { m.Functions[0].Locals = append(m.Functions[0].Locals, Local{Count: 3, Type: ValF64}) },
			func(t *testing.T, m *Module) {
				assert.Equal(t, []Local{{Count: 3, Type: ValF64}}, m.Functions[0].Locals)
			}},
		{"custom added and edited", "calls.wasm",
			func(m *Module) {
				m.Customs = append(m.Customs, CustomSection{Name: "jsprof", Data: []byte{1, 2}, After: SectionType})
			},
			func(t *testing.T, m *Module) {
				require.Len(t, m.Customs, 2)
				assert.Equal(t, CustomSection{Name: "jsprof", Data: []byte{1, 2}, After: SectionType}, m.Customs[0])
			}},
		{"custom removed", "calls.wasm",
			func(m *Module) { m.Customs = nil },
			func(t *testing.T, m *Module) { assert.Empty(t, m.Customs); assert.Nil(t, m.Names) }},
		{"name edited in place", "calls.wasm",
			func(m *Module) { m.Names.Funcs[1] = "twice"; m.Names.Module = "renamed" },
			func(t *testing.T, m *Module) {
				assert.Equal(t, "twice", m.FuncName(1))
				assert.Equal(t, "renamed", m.Names.Module)
				assert.Equal(t, "x", m.Names.Locals[2][0], "local names kept")
			}},
		{"names added", "features.wasm",
			func(m *Module) { m.Names.Globals[1] = "counter2"; m.Names.DataSegments[0] = "act" },
			func(t *testing.T, m *Module) {
				assert.Equal(t, "counter2", m.Names.Globals[1])
				assert.Equal(t, "act", m.Names.DataSegments[0])
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := mustRead(t, "testdata/"+c.file)
			m, err := Decode(orig)
			require.NoError(t, err)
			c.edit(m)
			out, err := m.Encode()
			require.NoError(t, err)
			require.NotEqual(t, orig, out)
			m2, err := Decode(out)
			require.NoError(t, err)
			c.check(t, m2)
			// Encoding again gives the same bytes.
			out2, err := m.Encode()
			require.NoError(t, err)
			require.Equal(t, out, out2)
		})
	}
}

// One changed function leaves every other function's bytes alone,
// padded LEBs included.
func TestUntouchedFunctionsKeepTheirBytes(t *testing.T) {
	orig := fixtures.EngineBytes(t, "javy-plugin-1.1.0")
	m, err := Decode(orig)
	require.NoError(t, err)
	changed := len(m.Functions) / 2
	f := &m.Functions[changed]
	f.Body = append([]byte{byte(OpNop)}, f.Body...)
	out, err := m.Encode()
	require.NoError(t, err)
	assert.Len(t, out, len(orig)+1)
	m2, err := Decode(out)
	require.NoError(t, err)
	for i := range m.src.funcs {
		if i == changed {
			continue
		}
		require.Equal(t, m.src.funcs[i].entry, m2.src.funcs[i].entry, "function %d", i)
	}
	for _, id := range []SectionID{SectionType, SectionImport, SectionFunction, SectionElement, SectionData} {
		a, b := m.src.secs[id], m2.src.secs[id]
		require.Equal(t, orig[a.start:a.end], out[b.start:b.end], "%v section", id)
	}
	compile(t, out)
}

// TestElementEncodings decodes the eight element segment encodings, built
// by hand, and checks both the byte-identical and the canonical paths.
func TestElementEncodings(t *testing.T) {
	i32c := func(v byte) []byte { return []byte{0x41, v, 0x0B} }
	refFunc := func(f byte) []byte { return []byte{0xD2, f, 0x0B} }
	nullFunc := []byte{0xD0, 0x70, 0x0B}
	segs := [][]byte{
		cat([]byte{0}, i32c(0), []byte{2, 0, 1}),                              // active, table 0, indices
		{1, 0x00, 1, 1},                                                       // passive, indices
		cat([]byte{2, 1}, i32c(1), []byte{0x00, 1, 0}),                        // active, table 1, indices
		{3, 0x00, 1, 0},                                                       // declarative, indices
		cat([]byte{4}, i32c(2), []byte{2}, refFunc(0), nullFunc),              // active, table 0, exprs
		cat([]byte{5, 0x70, 1}, refFunc(1)),                                   // passive, exprs
		cat([]byte{6, 2}, i32c(3), []byte{0x6F, 1}, []byte{0xD0, 0x6F, 0x0B}), // active, table 2, externref exprs
		cat([]byte{7, 0x70, 1}, refFunc(1)),                                   // declarative, exprs
	}
	elemPayload := []byte{byte(len(segs))}
	for _, s := range segs {
		elemPayload = append(elemPayload, s...)
	}
	in := module(typeSec, sec(SectionFunction, 2, 0, 0),
		sec(SectionTable, 3, 0x70, 0, 4, 0x70, 0, 4, 0x6F, 0, 4),
		sec(SectionElement, elemPayload...),
		sec(SectionCode, 2, 2, 0, 0x0B, 2, 0, 0x0B))
	m, err := Decode(in)
	require.NoError(t, err)
	want := []Element{
		{Mode: ElemActive, Table: 0, Offset: ConstI32(0), Type: ValFuncRef, Funcs: []uint32{0, 1}},
		{Mode: ElemPassive, Type: ValFuncRef, Funcs: []uint32{1}},
		{Mode: ElemActive, Table: 1, Offset: ConstI32(1), Type: ValFuncRef, Funcs: []uint32{0}},
		{Mode: ElemDeclarative, Type: ValFuncRef, Funcs: []uint32{0}},
		{Mode: ElemActive, Offset: ConstI32(2), Type: ValFuncRef, Exprs: []ConstExpr{ConstRefFunc(0), ConstRefNull(ValFuncRef)}},
		{Mode: ElemPassive, Type: ValFuncRef, Exprs: []ConstExpr{ConstRefFunc(1)}},
		{Mode: ElemActive, Table: 2, Offset: ConstI32(3), Type: ValExternRef, Exprs: []ConstExpr{ConstRefNull(ValExternRef)}},
		{Mode: ElemDeclarative, Type: ValFuncRef, Exprs: []ConstExpr{ConstRefFunc(1)}},
	}
	require.Len(t, m.Elements, len(want))
	for i := range want {
		assert.True(t, equalElement(want[i], m.Elements[i]), "segment %d: %+v", i, m.Elements[i])
	}
	out, err := m.Encode()
	require.NoError(t, err)
	assert.Equal(t, in, out)

	// Canonically: same content.
	out, err = detached(m).Encode()
	require.NoError(t, err)
	m2, err := Decode(out)
	require.NoError(t, err)
	requireSameContent(t, m, m2)
	compile(t, out)

	// A hand-built segment with a zero Type is funcref.
	m2.Elements = append(m2.Elements, Element{Mode: ElemPassive, Funcs: []uint32{1}})
	out, err = m2.Encode()
	require.NoError(t, err)
	m3, err := Decode(out)
	require.NoError(t, err)
	assert.Equal(t, ValFuncRef, m3.Elements[8].Type)

	// Both Funcs and Exprs is an error.
	m2.Elements[8].Exprs = []ConstExpr{ConstRefFunc(0)}
	_, err = m2.Encode()
	assert.ErrorContains(t, err, "both Funcs and Exprs")
}

func TestDataSegmentExplicitMemory(t *testing.T) {
	in := module(sec(SectionMemory, 1, 0, 1),
		sec(SectionData, 3, 0, 0x41, 0, 0x0B, 1, 'a', 1, 2, 'b', 'c', 2, 0, 0x41, 8, 0x0B, 1, 'd'))
	m, err := Decode(in)
	require.NoError(t, err)
	require.Len(t, m.Data, 3)
	assert.Equal(t, DataSegment{Mode: DataActive, Offset: ConstI32(0), Init: []byte("a")}, m.Data[0])
	assert.Equal(t, DataSegment{Mode: DataPassive, Init: []byte("bc")}, m.Data[1])
	assert.Equal(t, DataMode(DataActive), m.Data[2].Mode)
	out, err := m.Encode()
	require.NoError(t, err)
	assert.Equal(t, in, out)
	// Flag 2 with memory 0 is kept while the segment is unchanged; a
	// changed one is written in the shortest form.
	m.Data[2].Init = []byte("e")
	out, err = m.Encode()
	require.NoError(t, err)
	assert.Equal(t, module(sec(SectionMemory, 1, 0, 1),
		sec(SectionData, 3, 0, 0x41, 0, 0x0B, 1, 'a', 1, 2, 'b', 'c', 0, 0x41, 8, 0x0B, 1, 'e')), out)
}
