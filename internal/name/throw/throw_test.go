package throw

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestUncaught: the uncaught errors Javy engines print before they trap,
// in the forms the pinned plugins and providers print them.
func TestUncaught(t *testing.T) {
	t.Parallel()
	js := func(fn, file string, line int64) jsprofile.ThrowFrame {
		return jsprofile.ThrowFrame{Function: fn, File: file, Line: line}
	}
	tests := []struct {
		name, text string
		ok         bool
		message    string
		backtrace  []jsprofile.ThrowFrame
	}{
		{"javy-plugin 1.7.0", "log line\nError: boom at 3\n    at inner (function.mjs:3:34)\n    at outer (function.mjs:8:10)\n    at <anonymous> (function.mjs:10:1)\n\n",
			true, "Error: boom at 3", []jsprofile.ThrowFrame{js("inner", "function.mjs", 3), js("outer", "function.mjs", 8), js("<anonymous>", "function.mjs", 10)}},
		{"provider v1", "Error while running JS: Uncaught Error: boom\n    at inner (function.mjs:3)\n",
			true, "Error: boom", []jsprofile.ThrowFrame{js("inner", "function.mjs", 3)}},
		{"a native threw", "Error: Expected property name\r\n    at <input>:1:1\r\n    at parse (native)\r\n    at f (function.mjs:2:21)\r\n",
			true, "Error: Expected property name", []jsprofile.ThrowFrame{js("", "<input>", 1), {Function: "parse", Native: true}, js("f", "function.mjs", 2)}},
		{"not an Error", "Error while running JS: Uncaught plain string\n", true, "plain string", nil},
		{"the last error counts", "Error: first\n    at a (x.js:1)\nthen\nError: second\n    at b (x.js:2)\n", true, "Error: second", []jsprofile.ThrowFrame{js("b", "x.js", 2)}},
		{"control characters are not passed on", "Error: \x1b[2Jgone\x07\n    at f\x1b (x.js:1)\n", true, "Error:  [2Jgone", []jsprofile.ThrowFrame{js("f", "x.js", 1)}},
		{"nothing told", "just output\n", false, "", nil},
		{"a backtrace with no message", "    at f (x.js:1)\n", false, "", nil},
		{"empty", "", false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, bt, ok := Uncaught([]byte(tt.text))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.message, msg)
			assert.Equal(t, tt.backtrace, bt)
		})
	}
}

// FuzzUncaught: whatever the guest wrote, the message and frames are
// printable, bounded, one line each.
func FuzzUncaught(f *testing.F) {
	for _, s := range []string{"Error: x\n    at f (a.js:1:2)\n", "Error while running JS: Uncaught y", "    at (:::)\n", "E\n    at  (native)\n    at x:0:-1\n", "\xff\n    at \xfe (\xfd:9999999999999999999999)\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		msg, bt, ok := Uncaught(text)
		if !ok && (msg != "" || bt != nil) {
			t.Fatalf("not ok, yet %q %v", msg, bt)
		}
		check := func(what, s string, n int) {
			if len(s) > n {
				t.Fatalf("%s %q longer than %d", what, s, n)
			}
			// Printable as jsprof's one sanitizer defines it: nothing that
			// acts on a terminal, breaks a line or reorders the text.
			if printable.String(s) != s {
				t.Fatalf("%s %q is not printable", what, s)
			}
		}
		check("message", msg, 500)
		if len(bt) > 64 {
			t.Fatalf("%d frames", len(bt))
		}
		for _, fr := range bt {
			check("function", fr.Function, 200)
			check("file", fr.File, 200)
			if fr.Line < 0 {
				t.Fatalf("line %d", fr.Line)
			}
		}
	})
}

// TestTailKeepsTheEnd: a Tail passes everything on and keeps the end.
func TestTailKeepsTheEnd(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	tail := &Tail{W: &all}
	chunk := strings.Repeat("x", 1000) + "\n"
	for range 100 {
		tail.Write([]byte(chunk))
	}
	tail.Write([]byte("Error: last\n"))
	assert.Equal(t, 100*len(chunk)+len("Error: last\n"), all.Len())
	kept := tail.Bytes()
	assert.Len(t, kept, tailBytes)
	assert.True(t, strings.HasSuffix(string(kept), "x\nError: last\n"))
}
