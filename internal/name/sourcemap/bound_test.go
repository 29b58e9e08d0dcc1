package sourcemap

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGivesUpOnItsContext (N3): reading, checking and finding a map of
// more segments than checkEvery stop with the context's cause once it is
// done; the same map with a live context is read whole (the control).
func TestGivesUpOnItsContext(t *testing.T) {
	t.Parallel()
	data, prog := hostileMap(3*checkEvery, true)
	done, cancel := context.WithCancel(t.Context())
	cancel()

	m, err := Parse(t.Context(), data, "")
	require.NoError(t, err)
	assert.Equal(t, 3*checkEvery, m.Segments())
	g := NewGenerated("p.js", prog)
	require.NoError(t, Loaded{Map: m}.Check(t.Context(), g))

	_, err = Parse(done, data, "")
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, Loaded{Map: m}.Check(done, g), context.Canceled)

	js := append(prog, "//# sourceMappingURL=data:application/json,"...)
	js = append(js, url.PathEscape(string(data))...)
	l, err := FindMap(t.Context(), "", Program{Text: js, Path: "p.js"})
	require.NoError(t, err)
	require.NotNil(t, l)
	l, err = FindMap(done, "", Program{Text: js, Path: "p.js"})
	assert.NoError(t, err, "the caller says the signal")
	assert.Nil(t, l)
}

// TestCountSegments: decodeMappings's one allocation is the segments'
// count.
func TestCountSegments(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mappings string
		want     int
	}{
		{"", 0},
		{";;;", 0},
		{"A", 1},
		{"A,", 1},
		{",,AAAA;;B,CAAAA", 3},
		{"AAAAA;A", 2},
	} {
		assert.Equal(t, tt.want, countSegments(tt.mappings), tt.mappings)
	}
}

// TestIdentByOffsets: an original line's identifier at a UTF-16 column,
// found through the line's offsets (made once), is the one a walk from
// the line's start finds, at every column of ASCII and non-ASCII lines,
// surrogate pairs and columns past the end included.
func TestIdentByOffsets(t *testing.T) {
	t.Parallel()
	lines := []string{
		"é𝄞 foo(bar)  baz",
		"plain ascii_line = 1;",
		"\tπ = ünïcode + 𝄞x",
		"",
		strings.Repeat("a", maxIdentLine+1), // too long: no identifier
	}
	sl := newSourceLines(strings.Join(lines, "\r\n"))
	found := 0
	for line, text := range lines {
		for col := range len(text) + 3 {
			want := ""
			if len(text) <= maxIdentLine {
				if off, ok := (&cursor{text: []byte(text)}).seek(col); ok {
					want = identAt([]byte(text), off)
				}
			}
			assert.Equal(t, want, sl.ident(line, col), "line %d column %d", line, col)
			if want != "" {
				found++
			}
		}
	}
	assert.Greater(t, found, 5, "the walk finds identifiers: the comparison is not of empty strings")
	assert.Equal(t, "ünïcode", sl.ident(2, 5))
}
