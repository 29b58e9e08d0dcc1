package printable

import (
	"strconv"
	"testing"
	"unicode/utf8"

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
		name := Name(s)
		assert.Equal(t, name, String(name), "Name is printable")
		if name != s {
			back, err := strconv.Unquote(name)
			if assert.NoError(t, err, "%q", name) && utf8.ValidString(s) {
				assert.Equal(t, s, back, "Name keeps what it escapes")
			}
		}
	})
}

func TestLines(t *testing.T) {
	assert.Equal(t, "a b\nc\n", Lines("a\x1bb\nc\n"), "each line made printable, the breaks kept")
}

// TestName: a name that String would change is quoted with its unsafe
// characters escaped, so that names differing by a control character
// stay apart; a printable name is as it is (the control).
func TestName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"in/a.json", "in/a.json"},
		{"in/é ü.json", "in/é ü.json"},
		{"in/a\x1b.json", `"in/a\x1b.json"`},
		{"in/a\a.json", `"in/a\a.json"`},
		{"in/a\u202e.json", `"in/a\u202e.json"`},
		{"a\nb\"c", `"a\nb\"c"`},
		{"bad\xffbyte", `"bad\xffbyte"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Name(tt.in), "%q", tt.in)
		assert.Equal(t, Name(tt.in), String(Name(tt.in)), "printable itself")
	}
	assert.NotEqual(t, Name("a\x1b"), Name("a\x07"), "kept apart")
}
