package wasmcore

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloneDetach: detaching a clone's program leaves the original as it
// was (it encodes to the bytes it was decoded from, program included), and
// the clone encodes as the module decoded again and detached.
func TestCloneDetach(t *testing.T) {
	for _, file := range []string{"testdata/detach.wasm", "testdata/detach_long.wasm"} {
		t.Run(file, func(t *testing.T) {
			orig := mustRead(t, file)
			m, err := Decode(orig)
			require.NoError(t, err)
			program := bytes.Clone(m.Data[1].Init)

			c := m.Clone()
			d, err := c.DetachSegment(1)
			require.NoError(t, err)
			assert.Equal(t, program, d.Bytes)
			got, err := c.Encode()
			require.NoError(t, err)

			again, err := Decode(orig)
			require.NoError(t, err)
			_, err = again.DetachSegment(1)
			require.NoError(t, err)
			want, err := again.Encode()
			require.NoError(t, err)
			assert.Equal(t, want, got, "a clone detaches as the module decoded again")

			after, err := m.Encode()
			require.NoError(t, err)
			assert.Equal(t, orig, after, "the original encodes byte for byte as it was")
			assert.Equal(t, program, m.Data[1].Init)
			_, detached := m.DetachedSegmentIndex()
			assert.False(t, detached)
			// The original can still be detached itself.
			_, err = m.DetachSegment(1)
			assert.NoError(t, err)
		})
	}
}

// TestCloneEdits: on every module of the fixtures, the edits of this
// package made to a clone (an import, a global, an export, a custom
// section, a body and a segment replaced, the start function) leave the
// original encoding byte for byte as it was decoded, and give the clone
// the encoding of the same edits made to the module decoded again.
func TestCloneEdits(t *testing.T) {
	for _, in := range allInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			m, err := Decode(in.data)
			if err != nil {
				t.Skip("not a module wasmcore decodes:", err)
			}
			c := m.Clone()
			editForTest(c)
			got, err := c.Encode()
			require.NoError(t, err)

			again, err := Decode(in.data)
			require.NoError(t, err)
			editForTest(again)
			want, err := again.Encode()
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, got), "a clone edits as the module decoded again")

			after, err := m.Encode()
			require.NoError(t, err)
			assert.True(t, bytes.Equal(in.data, after), "the original encodes byte for byte as it was")
		})
	}
}

// editForTest makes one edit of each kind this package makes: an import
// (every call renumbered), a type, a global and its export, a custom
// section, a body, a data segment, the start function and the names.
func editForTest(m *Module) {
	ti := uint32(len(m.Types))
	m.Types = append(m.Types, FuncType{Params: []ValType{ValI32}})
	m.AddImportFunc("jsprof_test", "clone", ti)
	g := m.AddGlobal(Global{Type: GlobalType{Type: ValI32, Mutable: true}, Init: ConstI32(7)})
	m.Exports = append(m.Exports, Export{Name: "jsprof_test_clone", Kind: ExternGlobal, Index: g})
	m.Customs = append(m.Customs, CustomSection{Name: "jsprof_test", Data: []byte("clone"), After: m.lastSection()})
	if len(m.Functions) > 0 {
		m.Functions[0].Body = []byte{byte(OpUnreachable), byte(OpEnd)}
		m.Functions[0].Locals = append(slices.Clone(m.Functions[0].Locals), Local{Count: 200, Type: ValI64})
		start := m.NumImportedFuncs()
		m.Start = &start
	}
	for i := range m.Data {
		if len(m.Data[i].Init) > 0 {
			m.Data[i].Init = []byte("replaced")
			break
		}
	}
	if m.Names != nil {
		m.Names.Module = "jsprof_test"
	}
}

// TestDecodeOwned: a module decoded from bytes it is given encodes as one
// Decode copied them for, as decoded and once edited; an edit written
// into its bytes is still encoded.
func TestDecodeOwned(t *testing.T) {
	for _, in := range allInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			want, err := Decode(in.data)
			if err != nil {
				t.Skip("not a module wasmcore decodes:", err)
			}
			m, err := DecodeOwned(bytes.Clone(in.data))
			require.NoError(t, err)
			out, err := m.Encode()
			require.NoError(t, err)
			assert.True(t, bytes.Equal(in.data, out), "as decoded")

			editForTest(want)
			editForTest(m)
			wantOut, err := want.Encode()
			require.NoError(t, err)
			out, err = m.Encode()
			require.NoError(t, err)
			assert.True(t, bytes.Equal(wantOut, out), "edited")
		})
	}
	b := mustRead(t, "testdata/detach.wasm")
	m, err := DecodeOwned(bytes.Clone(b))
	require.NoError(t, err)
	i := slices.Index(m.Data[1].Init, 'h')
	require.GreaterOrEqual(t, i, 0)
	m.Data[1].Init[i] = 'H' // written into the module's bytes
	out, err := m.Encode()
	require.NoError(t, err)
	again, err := Decode(out)
	require.NoError(t, err)
	assert.Equal(t, "Hello, program", string(again.Data[1].Init))
}
