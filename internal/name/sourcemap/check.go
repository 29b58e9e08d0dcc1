package sourcemap

import (
	"bytes"
	"context"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Generated is the generated program's text (the bundle), by line: what a
// map's generated positions point into.
type Generated struct {
	Name  string // its file name, for messages
	lines [][]byte
	ascii []bool // each line's text is ASCII: its byte and UTF-16 columns agree
}

// NewGenerated splits a program's text into lines (LF, CRLF or CR ends
// a line, as in source maps).
func NewGenerated(name string, src []byte) *Generated {
	g := &Generated{Name: name}
	for len(src) > 0 {
		i := bytes.IndexAny(src, "\r\n")
		if i < 0 {
			g.lines = append(g.lines, src)
			break
		}
		g.lines = append(g.lines, src[:i])
		if src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
			i++
		}
		src = src[i+1:]
		if len(src) == 0 {
			g.lines = append(g.lines, nil) // the empty last line
		}
	}
	g.ascii = make([]bool, len(g.lines))
	for i, l := range g.lines {
		g.ascii[i] = isASCII(l)
	}
	return g
}

// Line returns the text of a 1-based line, nil past the end.
func (g *Generated) Line(line int) []byte {
	if line < 1 || line > len(g.lines) {
		return nil
	}
	return g.lines[line-1]
}

// UTF16Column converts a 1-based byte column of a line (as QuickJS
// counts) to the 0-based UTF-16 column a map uses; columns past the line's
// end are kept past it.
func (g *Generated) UTF16Column(line, byteColumn int) int {
	text := g.Line(line)
	off := byteColumn - 1
	if off <= 0 {
		return max(off, 0)
	}
	if off > len(text) {
		return g.utf16Prefix(line, len(text)) + off - len(text)
	}
	return g.utf16Prefix(line, off)
}

// utf16Prefix is the UTF-16 length of a 1-based line's first n bytes.
func (g *Generated) utf16Prefix(line, n int) int {
	if line >= 1 && line <= len(g.ascii) && g.ascii[line-1] {
		return n
	}
	return utf16Len(g.Line(line)[:n])
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// maxIdentLine bounds the original lines whose identifiers Check reads.
const maxIdentLine = 4096

// cursor walks a line's text by UTF-16 column, forward.
type cursor struct {
	text []byte
	b, u int // a byte offset and its UTF-16 column
}

// seek returns the byte offset of a 0-based UTF-16 column at or after the
// cursor's (or restarts from the line's start for an earlier one); false
// past the line's end or inside a character.
func (c *cursor) seek(col int) (int, bool) {
	if col < c.u {
		c.b, c.u = 0, 0
	}
	for c.u < col && c.b < len(c.text) {
		r, n := utf8.DecodeRune(c.text[c.b:])
		c.b += n
		c.u += runeLen16(r)
	}
	return c.b, c.u == col
}

func utf16Len(b []byte) int {
	n := 0
	for _, r := range string(b) {
		n += runeLen16(r)
	}
	return n
}

// runeLen16 is how many UTF-16 code units r takes (an invalid byte, one).
func runeLen16(r rune) int {
	if n := utf16.RuneLen(r); n > 0 {
		return n
	}
	return 1
}

// identAt returns the identifier that starts at byte offset i of text, ""
// when none does.
func identAt(text []byte, i int) string { return identUpTo(text, i, len(text)) }

// maxIdent bounds the bytes of an identifier, and of the indentation
// before one, that Check compares: each segment's work is then constant,
// where a map pointing 31M times at one long identifier or run of blanks
// would walk it each time.
const maxIdent = 256

// identUpTo is identAt's identifier, its first limit bytes at most.
func identUpTo(text []byte, i, limit int) string {
	if i < 0 || i >= len(text) {
		return ""
	}
	if i > 0 {
		if r, _ := utf8.DecodeLastRune(text[:i]); isIdentPart(r) {
			return "" // inside an identifier, not at its start
		}
	}
	j := i
	for j < len(text) && j-i < limit {
		r, n := utf8.DecodeRune(text[j:])
		if !isIdentPart(r) || (j == i && unicode.IsDigit(r)) {
			break
		}
		j += n
	}
	return string(text[i:j])
}

// isIdentByte says whether an identifier may hold the byte (any byte of
// a non-ASCII character may be one of a letter's).
func isIdentByte(c byte) bool {
	return c >= 0x80 || isIdentPart(rune(c))
}

func isIdentPart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// StaleError says a map does not belong to the program: a stale map, or
// one of another build.
type StaleError struct {
	From, File string
	Reason     string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("the source map %s does not match %s (%s): a stale map, or another build's", oneLine(e.From), oneLine(e.File), e.Reason)
}

// Check says whether a map belongs to the generated program g: every
// segment must point into g's text, and where the map carries the
// original sources, the identifiers its segments join must agree — the
// generated identifier is the original one, or the segment names the
// original (a minifier's renaming). A map of the same program tolerates
// a few disagreements (a bundler maps `export function f` to `function
// f`); a stale one, whose positions moved, disagrees throughout. Its work
// is linear in the map's and the program's sizes; it gives up with ctx's
// cause when ctx is done.
func (l Loaded) Check(ctx context.Context, g *Generated) error {
	stale := func(format string, args ...any) error {
		return &StaleError{From: l.From, File: g.Name, Reason: fmt.Sprintf(format, args...)}
	}
	m := l.Map
	if len(m.segs) == 0 {
		return stale("it maps nothing")
	}
	last := m.segs[len(m.segs)-1]
	if int(last.genLine) >= len(g.lines) {
		return stale("it maps line %d, and %s has %d", last.genLine+1, g.Name, len(g.lines))
	}
	var checked, differ int
	var cur cursor
	sources := map[int32]*sourceLines{}
	for i, s := range m.segs {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		text := g.lines[s.genLine]
		if i == 0 || s.genLine != m.segs[i-1].genLine {
			cur = cursor{text: text}
		}
		gi, ok := cur.seek(int(s.genCol))
		if !ok {
			if cur.u < int(s.genCol) { // the cursor is at the line's end
				return stale("it maps column %d of line %d, which has %d", s.genCol, s.genLine+1, cur.u)
			}
			continue // inside a character
		}
		if s.src < 0 || !m.Sources[s.src].HasContent {
			continue
		}
		sl := sources[s.src]
		if sl == nil {
			sl = newSourceLines(m.Sources[s.src].Content)
			sources[s.src] = sl
		}
		orig := sl.ident(int(s.line), int(s.col))
		if orig == "" {
			continue
		}
		// An identifier of the original must be one of the generated
		// text, at its start (bundlers map a line's indentation to its
		// first token): the same, or renamed as the segment says. A
		// segment inside a generated identifier is wrong outright; one
		// at punctuation (a closing brace mapped to the statement before)
		// tells nothing.
		for start := gi; gi < len(text) && gi-start < maxIdent && (text[gi] == ' ' || text[gi] == '\t'); {
			gi++
		}
		gen := identUpTo(text, gi, maxIdent)
		inside := gen == "" && gi > 0 && gi < len(text) && isIdentByte(text[gi-1]) && isIdentByte(text[gi])
		if gen == "" && !inside {
			continue
		}
		checked++
		if gen != orig && (s.name < 0 || m.Names[s.name] != orig || inside) {
			differ++
		}
	}
	// Tolerated: a quarter of the identifiers (type-only and export
	// keywords moved by a compiler); a stale map's positions land on other
	// tokens almost everywhere.
	if checked >= 4 && differ*4 > checked {
		return stale("%d of the %d identifiers it joins differ", differ, checked)
	}
	return nil
}

// sourceLines is an original source's text, indexed by line.
type sourceLines struct {
	text   []byte
	starts []int // each line's first byte
	// units are the byte offsets of a non-ASCII line's UTF-16 columns
	// (-1 inside a character), made the first time a segment points
	// into the line: each segment then finds its identifier in constant
	// time (a walk from the line's start for each was quadratic: 203 s
	// for a map pointing at column 4090 of one line 31M times).
	units map[int][]int32
}

func newSourceLines(content string) *sourceLines {
	sl := &sourceLines{text: []byte(content), starts: []int{0}, units: map[int][]int32{}}
	for i, c := range sl.text {
		if c == '\n' {
			sl.starts = append(sl.starts, i+1)
		}
	}
	return sl
}

// ident is the identifier at a 0-based line and UTF-16 column.
func (sl *sourceLines) ident(line, col int) string {
	if line >= len(sl.starts) {
		return ""
	}
	end := len(sl.text)
	if line+1 < len(sl.starts) {
		end = sl.starts[line+1]
	}
	text := bytes.TrimRight(sl.text[sl.starts[line]:end], "\r\n")
	if len(text) > maxIdentLine {
		return "" // a minified original: not worth the offsets' memory
	}
	units, ok := sl.units[line]
	if !ok {
		units = utf16Offsets(text)
		sl.units[line] = units
	}
	off := col
	switch {
	case units != nil && col < len(units):
		off = int(units[col])
	case units != nil && col == len(units):
		off = len(text)
	case units != nil || col > len(text):
		return ""
	}
	if off < 0 {
		return "" // inside a character
	}
	return identUpTo(text, off, maxIdent)
}

// utf16Offsets is the byte offset of each UTF-16 column of a line, -1
// for a column inside a character; nil for an ASCII line, whose columns
// are its offsets.
func utf16Offsets(text []byte) []int32 {
	if isASCII(text) {
		return nil
	}
	units := make([]int32, 0, len(text))
	for b := 0; b < len(text); {
		r, n := utf8.DecodeRune(text[b:])
		units = append(units, int32(b))
		for range runeLen16(r) - 1 {
			units = append(units, -1)
		}
		b += n
	}
	return units
}
