package wasmcore

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode checks that Decode never panics and that whatever it accepts
// is encoded back byte for byte, encodes canonically to the same content,
// and survives instruction decoding, symbolization and a rewrite without
// panicking.
func FuzzDecode(f *testing.F) {
	for _, pattern := range []string{"testdata/*.wasm", "testdata/*/*.wasm"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			f.Add(mustRead(f, p))
		}
	}
	if b, err := allOpsModule(nil).Encode(); err == nil {
		f.Add(b)
	}
	f.Add(module(typeSec, funcSec, codeSec))
	f.Add(module(sec(SectionMemory, 1, 0, 1), sec(SectionData, 2, 0, 0x41, 0, 0x0B, 1, 'a', 1, 2, 'b', 'c')))
	f.Add(module(typeSec, funcSec, codeSec, sec(SectionCustom, cat(appendName(nil, "name"), []byte{1, 4, 1, 0, 1, 'f'})...)))
	f.Add(module(sec(SectionGlobal, 1, 0x7F, 0, 0x41, 0x80, 0x80, 0x80, 0x80, 0x00, 0x0B)))

	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		// The compile bounds read every instruction: no panic, whatever
		// the bodies hold.
		_ = CheckBounds(context.Background(), m)
		out, err := m.Encode()
		require.NoError(t, err)
		require.True(t, bytes.Equal(b, out), "round trip is byte-identical")

		canon, err := detached(m).Encode()
		require.NoError(t, err)
		m2, err := Decode(canon)
		require.NoError(t, err)
		requireSameContent(t, m, m2)

		for _, fn := range m.Functions {
			_, _ = DecodeInstructions(fn.Body)
		}
		if s, err := NewSymbolizer(m); err == nil {
			for off := uint64(0); off < 64; off++ {
				s.Lookup(off)
			}
			s.FuncName(0)
		}
		m2.AddImportFunc("fuzz", "hook", m2.AddType(FuncType{}))
		m2.AddFunction(Function{Body: []byte{byte(OpEnd)}})
		if out, err := m2.Encode(); err == nil {
			_, err = Decode(out)
			require.NoError(t, err)
		}
	})
}

// FuzzDWARF feeds arbitrary .debug_info, .debug_abbrev and .debug_line
// contents to the symbolizer: it must neither panic nor fail.
func FuzzDWARF(f *testing.F) {
	m, err := Decode(mustRead(f, "testdata/dwarf/dwarf4.wasm"))
	require.NoError(f, err)
	idx := map[string]int{}
	for i, c := range m.Customs {
		idx[c.Name] = i
	}
	for _, name := range []string{".debug_info", ".debug_abbrev", ".debug_line"} {
		require.Contains(f, idx, name)
	}
	f.Add(m.Customs[idx[".debug_info"]].Data, m.Customs[idx[".debug_abbrev"]].Data, m.Customs[idx[".debug_line"]].Data)
	f.Fuzz(func(t *testing.T, info, abbrev, line []byte) {
		c := *m
		c.Customs = append([]CustomSection(nil), m.Customs...)
		c.Customs[idx[".debug_info"]].Data = info
		c.Customs[idx[".debug_abbrev"]].Data = abbrev
		c.Customs[idx[".debug_line"]].Data = line
		s, err := NewSymbolizer(&c)
		require.NoError(t, err)
		for off := uint64(0); off < 0x70; off += 3 {
			s.Lookup(off)
		}
		require.Equal(t, "run", s.FuncName(1))
	})
}
