package printable

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fib (fib.js:1)", "fib (fib.js:1)"},
		{"héllo, 世界", "héllo, 世界"},
		{"\x1b[2J\x1b]0;owned\x07title", " [2J ]0;owned title"},
		{"a\x00b\nc\rd\te", "a b c d e"},
		{"nel\u0085ls\u2028ps\u2029", "nel ls ps "},
		{"\u202eevil.js", " evil.js"},
		{"\u2066x\u2069\u200e\u200f\u061c", " x    "},
		{"\x9b31m", "\ufffd31m"},
		{"del\x7f", "del "},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, String(tt.in), "%q", tt.in)
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b[2J\u202e\x9b")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		for _, r := range out {
			assert.False(t, unsafe(r), "%q in %q", r, out)
		}
		assert.Equal(t, out, String(out), "idempotent")
	})
}

func TestLines(t *testing.T) {
	assert.Equal(t, "a b\nc\n", Lines("a\x1bb\nc\n"), "each line made printable, the breaks kept")
}
