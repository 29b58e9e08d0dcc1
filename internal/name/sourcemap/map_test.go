package sourcemap

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vlqEncode writes values as Base64 VLQ: the test's own encoder, so that
// the fixtures below say their segments in numbers.
func vlqEncode(vals ...int) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b strings.Builder
	for _, v := range vals {
		u := uint(v) << 1
		if v < 0 {
			u = uint(-v)<<1 | 1
		}
		for {
			d := u & 31
			u >>= 5
			if u != 0 {
				d |= 32
			}
			b.WriteByte(digits[d])
			if u == 0 {
				break
			}
		}
	}
	return b.String()
}

// seg is a segment in absolute numbers: generated line and column,
// source, original line and column, name (-1: none); src -1 for a
// one-field segment.
type seg struct{ line, col, src, oline, ocol, name int }

// mappings encodes absolute segments, in order, as a mappings string.
func mappings(segs ...seg) string {
	var b strings.Builder
	line, pcol, psrc, pol, poc, pname := 0, 0, 0, 0, 0, 0
	first := true
	for _, s := range segs {
		for line < s.line {
			b.WriteByte(';')
			line++
			pcol = 0
			first = true
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		vals := []int{s.col - pcol}
		pcol = s.col
		if s.src >= 0 {
			vals = append(vals, s.src-psrc, s.oline-pol, s.ocol-poc)
			psrc, pol, poc = s.src, s.oline, s.ocol
			if s.name >= 0 {
				vals = append(vals, s.name-pname)
				pname = s.name
			}
		}
		b.WriteString(vlqEncode(vals...))
	}
	return b.String()
}

// The minified program and its map used throughout: inc renamed t, its
// parameter x renamed e.
const (
	minified  = "function t(e){return e+1}t(1);\n//# sourceMappingURL=app.js.map\n"
	original  = "export function inc(x: number): number {\n  return x + 1;\n}\ninc(1);\n"
	generated = "app.js"
)

func minifiedMap(t testing.TB) []byte {
	t.Helper()
	m := map[string]any{
		"version": 3, "file": "app.js", "sources": []string{"../src/inc.ts"}, "names": []string{"inc", "x"},
		"sourcesContent": []string{original},
		"mappings": mappings(
			seg{0, 0, 0, 0, 7, -1},   // function
			seg{0, 9, 0, 0, 16, 0},   // t → inc
			seg{0, 11, 0, 0, 20, 1},  // e → x
			seg{0, 14, 0, 1, 2, -1},  // return
			seg{0, 21, 0, 1, 9, 1},   // e → x
			seg{0, 25, 0, 3, 0, 0},   // t(1) → inc(1)
			seg{0, 30, -1, 0, 0, -1}, // unmapped
		),
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func TestLookup(t *testing.T) {
	t.Parallel()
	m, err := Parse(context.Background(), minifiedMap(t), "dist")
	require.NoError(t, err)
	require.Len(t, m.Sources, 1)
	assert.Equal(t, filepath.Join("src", "inc.ts"), m.Sources[0].Path, "sources resolve against the map's directory")
	for _, tc := range []struct {
		line, col int
		want      Position
		ok        bool
	}{
		{1, 0, Position{File: "src/inc.ts", Line: 1, Column: 8}, true},
		{1, 9, Position{File: "src/inc.ts", Line: 1, Column: 17, Name: "inc"}, true},
		{1, 10, Position{File: "src/inc.ts", Line: 1, Column: 17, Name: "inc"}, true}, // inside the segment
		{1, 22, Position{File: "src/inc.ts", Line: 2, Column: 10, Name: "x"}, true},
		{1, 30, Position{}, false}, // a segment of no source
		{2, 0, Position{}, false},  // a line without segments: never the previous line's
	} {
		got, ok := m.Lookup(tc.line, tc.col)
		assert.Equal(t, tc.ok, ok, "%d:%d", tc.line, tc.col)
		if tc.ok {
			tc.want.File = filepath.FromSlash(tc.want.File)
			assert.Equal(t, tc.want, got, "%d:%d", tc.line, tc.col)
		}
	}
}

// TestIndexMap: sections are placed at their offsets, the column offset
// on their first line only, and a section ends where the next begins.
func TestIndexMap(t *testing.T) {
	t.Parallel()
	section := func(src string, segs ...seg) map[string]any {
		return map[string]any{"version": 3, "sources": []string{src}, "names": []string{}, "mappings": mappings(segs...)}
	}
	idx := map[string]any{"version": 3, "sections": []any{
		map[string]any{"offset": map[string]int{"line": 0, "column": 0}, "map": section("a.js", seg{0, 0, 0, 0, 0, -1}, seg{0, 50, 0, 9, 0, -1})},
		map[string]any{"offset": map[string]int{"line": 0, "column": 20}, "map": section("b.js", seg{0, 0, 0, 4, 0, -1}, seg{1, 3, 0, 5, 0, -1})},
	}}
	data, err := json.Marshal(idx)
	require.NoError(t, err)
	m, err := Parse(context.Background(), data, "")
	require.NoError(t, err)
	at := func(line, col int) string {
		p, ok := m.Lookup(line, col)
		if !ok {
			return "-"
		}
		return p.File + ":" + strings.Repeat("I", 0) + string(rune('0'+p.Line))
	}
	assert.Equal(t, "a.js:1", at(1, 5))
	assert.Equal(t, "b.js:5", at(1, 20), "the second section starts at column 20 of line 1")
	assert.Equal(t, "b.js:5", at(1, 60), "a.js's segment at 50 is past its section's end: dropped")
	assert.Equal(t, "-", at(2, 0), "the column offset is not applied on the section's later lines")
	assert.Equal(t, "b.js:6", at(2, 3))

	for _, tc := range []struct{ name, doc, want string }{
		{"url section", `{"version":3,"sections":[{"offset":{"line":0,"column":0},"url":"x.map"}]}`, "given by url"},
		{"nested", `{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sections":[]}}]}`, "inside an index map"},
		{"out of order", `{"version":3,"sections":[{"offset":{"line":1,"column":0},"map":{"version":3,"sources":[],"mappings":""}},{"offset":{"line":0,"column":0},"map":{"version":3,"sources":[],"mappings":""}}]}`, "not after"},
	} {
		_, err := Parse(context.Background(), []byte(tc.doc), "")
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{`[]`, "not a source map"},
		{`{"version":2,"mappings":""}`, "version 2"},
		{`{"version":3,"sources":[]}`, "no mappings"},
		{`{"version":3,"sources":["a"],"mappings":"AACA,!"}`, "not a base64 digit"},
		{`{"version":3,"sources":["a"],"mappings":"AC"}`, "2 fields"},
		{`{"version":3,"sources":["a"],"mappings":"ACAA"}`, "source 1 of 1"},
		{`{"version":3,"sources":["a"],"names":[],"mappings":"AAAAC"}`, "name 1 of 0"},
		{`{"version":3,"sources":["a"],"mappings":"gggggggA"}`, "longer than 32 bits"},
		{`{"version":3,"sources":["a"],"mappings":"AAAg"}`, "cut short"},
		{`{"version":3,"sources":["a"],"mappings":"AADA"}`, "line -1"},
	} {
		_, err := Parse(context.Background(), []byte(tc.doc), "")
		require.Error(t, err, tc.doc)
		assert.Contains(t, err.Error(), tc.want, tc.doc)
	}
}

func TestFromSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.js.map"), minifiedMap(t), 0o644))
	l, err := FromSource(context.Background(), []byte(minified), filepath.Join(dir, "app.js"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "app.js.map"), l.From)
	assert.Equal(t, filepath.Join(dir, "..", "src", "inc.ts"), l.Map.Sources[0].Path)

	inline := strings.Replace(minified, "app.js.map", "data:application/json;charset=utf-8;base64,"+base64.StdEncoding.EncodeToString(minifiedMap(t)), 1)
	l, err = FromSource(context.Background(), []byte(inline), filepath.Join(dir, "app.js"))
	require.NoError(t, err)
	assert.Equal(t, "inline (app.js)", l.From)
	assert.Equal(t, 7, l.Map.Segments())

	_, err = FromSource(context.Background(), []byte("let a = 1;\n"), "x.js")
	assert.ErrorIs(t, err, ErrNoURL)
	_, err = FromSource(context.Background(), []byte("//# sourceMappingURL=https://example.invalid/x.map\n"), "x.js")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--source-map")
	assert.Equal(t, "a.map", URL([]byte("x\n//# sourceMappingURL=old.map\n//# sourceMappingURL=a.map\n")), "the last comment wins")
	assert.Equal(t, "", URL([]byte("let s = 'sourceMappingURL=x';\n")), "not a comment")
}

func TestCheck(t *testing.T) {
	t.Parallel()
	m, err := Parse(context.Background(), minifiedMap(t), "dist")
	require.NoError(t, err)
	l := Loaded{Map: m, From: "app.js.map"}
	require.NoError(t, l.Check(context.Background(), NewGenerated(generated, []byte(minified))), "the map's own program")

	// The same map against another build: the code moved by a few
	// columns; the identifiers the map joins no longer agree.
	moved := "var q=0;function t(e){return e+1}t(1);\n"
	err = l.Check(context.Background(), NewGenerated(generated, []byte(moved)))
	var stale *StaleError
	require.ErrorAs(t, err, &stale)
	assert.Contains(t, err.Error(), "identifiers it joins differ")
	// A program shorter than the map.
	err = l.Check(context.Background(), NewGenerated(generated, []byte("t(1)")))
	require.ErrorAs(t, err, &stale)
	assert.Contains(t, err.Error(), "column 9 of line 1, which has 4")
}

// TestOriginalWithoutColumns: an engine that keeps no columns gets a
// line's original only when the line maps to one original line: a
// minified line, whose segments map to several, gets none.
func TestOriginalWithoutColumns(t *testing.T) {
	t.Parallel()
	m, err := Parse(context.Background(), minifiedMap(t), "")
	require.NoError(t, err)
	l := Loaded{Map: m}
	g := NewGenerated(generated, []byte(minified))
	_, ok := l.Original(g, 1, 0)
	assert.False(t, ok, "a minified line is not guessed")
	p, ok := l.Original(g, 1, 23) // byte column 23 is "e" of e+1
	require.True(t, ok)
	assert.Equal(t, 2, p.Line)

	one, err := json.Marshal(map[string]any{"version": 3, "sources": []string{"a.ts"}, "names": []string{},
		"mappings": mappings(seg{0, 2, 0, 4, 2, -1}, seg{0, 9, 0, 4, 9, -1}, seg{1, 0, 0, 6, 0, -1})})
	require.NoError(t, err)
	m, err = Parse(context.Background(), one, "")
	require.NoError(t, err)
	p, ok = Loaded{Map: m}.Original(NewGenerated("b.js", []byte("  x = y;\nz();\n")), 1, 0)
	require.True(t, ok, "a line of one statement")
	assert.Equal(t, 5, p.Line)
}
