package javy

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/wasmcore"
)

// TestEmbedSource: the javy_source section jsprof build writes reads back
// with ReadSource (what the HTML report reads the Javy CLI's with), named
// as NameSource recorded.
func TestEmbedSource(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"empty", ""},
		{"a program", "function f(x) {\n  return x + 1;\n}\nconsole.log(f(1));\n"},
		{"UTF-8", "const s = \"héllo wörld ✓\";\n"},
		{"large", strings.Repeat("let a = [1, 2, 3].map((x) => x * 2);\n", 20_000)},
	}
	empty := []byte("\x00asm\x01\x00\x00\x00")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := EmbedSource(NameSource(empty, "index.js"), []byte(tt.src))
			require.NoError(t, err)
			m, err := wasmcore.Decode(out)
			require.NoError(t, err)
			var names []string
			for _, c := range m.Customs {
				names = append(names, c.Name)
				if c.Name == JavySourceSection && len(tt.src) > 1000 {
					assert.Less(t, len(c.Data), len(tt.src)/10, "compressed")
				}
			}
			assert.Equal(t, []string{SourceSection, JavySourceSection}, names)
			name, text, err := ReadSource(m)
			require.NoError(t, err)
			assert.Equal(t, "index.js", name)
			assert.Equal(t, tt.src, string(text))
			assert.Equal(t, "index.js", SourceOf(m))
		})
	}
	// A module with neither section: no source, no name.
	m, err := wasmcore.Decode(empty)
	require.NoError(t, err)
	name, _, err := ReadSource(m)
	assert.ErrorIs(t, err, ErrNoSource)
	assert.Empty(t, name)
}

// FuzzReadSource: whatever a javy_source section holds, ReadSource returns
// UTF-8 text within its bound or an error, and never panics.
func FuzzReadSource(f *testing.F) {
	empty := []byte("\x00asm\x01\x00\x00\x00")
	f.Add([]byte("console.log(1);\n"))
	f.Add([]byte{0xff, 0xfe, 0x00, 0x81})
	if m, err := EmbedSource(empty, []byte("let x = 1;\n")); err == nil {
		f.Add(m[len(empty)+len(JavySourceSection)+3:])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := wasmcore.Decode(wasmcore.AppendCustomSection(empty, JavySourceSection, data))
		require.NoError(t, err)
		_, text, err := ReadSource(m)
		if err == nil {
			assert.True(t, utf8.Valid(text))
			assert.LessOrEqual(t, len(text), maxSourceBytes)
		}
	})
}

// TestRecordedName: a build records the JS's path relative to the
// module's folder; a run looks for it (and its map) there, never outside
// that folder, whatever an untrusted module records.
func TestRecordedName(t *testing.T) {
	t.Parallel()
	records := []struct{ js, module, want string }{
		{"function.js", "function.wasm", "function.js"},
		{"dist/function.js", "function.wasm", "dist/function.js"},
		{"dist/function.js", "dist/function.wasm", "function.js"},
		{"../shared/function.js", "function.wasm", "function.js"},
		{"/elsewhere/function.js", "out/function.wasm", "function.js"},
	}
	for _, tt := range records {
		assert.Equal(t, tt.want, RecordedName(filepath.FromSlash(tt.js), filepath.FromSlash(tt.module)), "%s → %s", tt.js, tt.module)
	}
	beside := []struct{ module, recorded, want string }{
		{"app/function.wasm", "dist/function.js", "app/dist/function.js"},
		{"app/function.wasm", "function.js", "app/function.js"},
		{"app/function.wasm", "../../home/u/.ssh/id_rsa", "app/id_rsa"},
		{"app/function.wasm", "/etc/passwd", "app/passwd"},
		{"function.wasm", "", "."},
	}
	for _, tt := range beside {
		assert.Equal(t, filepath.FromSlash(tt.want), BesideModule(filepath.FromSlash(tt.module), tt.recorded), "%s records %s", tt.module, tt.recorded)
	}
}
