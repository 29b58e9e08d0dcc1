package printable

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// String returns s with every character that acts on a terminal, breaks
// a line or reorders what a reader sees replaced by a space: the C0
// controls (ESC, NUL, tab, line breaks), DEL, the C1 controls (CSI, OSC,
// NEL), the Unicode line and paragraph separators, and the
// bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069: U+202E shows what follows it reversed). Bytes that are
// not UTF-8 become U+FFFD (a lone 0x9B is CSI to a terminal in 8-bit
// mode). s is returned as it is when it has none of these.
func String(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r) || (r == utf8.RuneError && n == 1) {
			return strings.Map(clean, s)
		}
		i += n
	}
	return s
}

// Name is a name someone else chose (a file found in a folder), safe for
// a terminal and kept apart from every other: s as it is when String
// would leave it so, else Go-quoted with its unsafe characters escaped
// ("in/a\x1b.json"), so that two names that differ only by a control
// character never read the same.
func Name(s string) string {
	if String(s) == s {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case unsafe(r):
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
	return b.String()
}

// Lines is String of each line of s: its line breaks are kept.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}

func clean(r rune) rune {
	if unsafe(r) {
		return ' '
	}
	return r
}

func unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == '\u2028', r == '\u2029':
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}
