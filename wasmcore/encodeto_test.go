package wasmcore

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodeTo: EncodeTo writes what Encode returns, for every module of
// the fixtures as decoded and once edited (editForTest), and its digest
// is the digest of Encode's bytes.
func TestEncodeTo(t *testing.T) {
	check := func(t *testing.T, m *Module, what string) {
		t.Helper()
		want, err := m.Encode()
		require.NoError(t, err)
		var got bytes.Buffer
		require.NoError(t, m.EncodeTo(&got))
		assert.True(t, bytes.Equal(want, got.Bytes()), "%s: EncodeTo writes what Encode returns", what)
		h := sha256.New()
		require.NoError(t, m.EncodeTo(h))
		assert.Equal(t, sha256.Sum256(want), [32]byte(h.Sum(nil)), what)
	}
	for _, in := range allInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			m, err := Decode(in.data)
			if err != nil {
				t.Skip("not a module wasmcore decodes:", err)
			}
			check(t, m, "as decoded")
			editForTest(m)
			check(t, m, "edited")
		})
	}
	// A module built from nothing: no decoded bytes to write from.
	check(t, &Module{
		Types:     []FuncType{{}},
		Functions: []Function{{Body: []byte{byte(OpNop), byte(OpEnd)}, Locals: []Local{{Count: 130, Type: ValI32}}}},
		Customs:   []CustomSection{{Name: "c", Data: bytes.Repeat([]byte{1}, 300), After: SectionCode}},
	}, "built")
}

// TestEncodeToErrors: EncodeTo returns the writer's first error, and
// Encode's own.
func TestEncodeToErrors(t *testing.T) {
	m, err := Decode(mustRead(t, "testdata/detach.wasm"))
	require.NoError(t, err)
	broken := errors.New("broken pipe")
	w := &failingWriter{after: 10, err: broken}
	assert.ErrorIs(t, m.EncodeTo(w), broken)
	assert.Equal(t, 1, w.failed, "written no more once it failed")

	m.Functions[0].Body = []byte{byte(OpNop)}
	_, want := m.Encode()
	require.Error(t, want)
	assert.EqualError(t, m.EncodeTo(&bytes.Buffer{}), want.Error())
}

type failingWriter struct {
	after, n, failed int
	err              error
}

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.n+len(b) > w.after {
		w.failed++
		return 0, w.err
	}
	w.n += len(b)
	return len(b), nil
}
