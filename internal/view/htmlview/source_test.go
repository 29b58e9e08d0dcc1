package htmlview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// linesProfile: JS functions in files, a cost per line.
func linesTables(t *testing.T, costs map[string]map[int]int64) *report.Tables {
	t.Helper()
	var stacks []stackSpec
	addr := uint32(0x100)
	for file, lines := range costs {
		addr += 0x100 // a function per file
		for line, instr := range lines {
			stacks = append(stacks, st(instr, jsprofile.JSFrame("f", file, 1, line, addr, uint32(line)), opf("add", 5)))
		}
	}
	return report.New(buildProfile(t, jsprofile.ModeExact, stacks))
}

func TestMatchSources(t *testing.T) {
	tests := []struct {
		name    string
		files   []string // the profile's, heaviest first
		sources []string
		want    map[string]string
		left    []string
	}{
		{"by base name", []string{"index.js", "lib/util.js"}, []string{"src/util.js", "./index.js"}, map[string]string{"index.js": "./index.js", "lib/util.js": "src/util.js"}, nil},
		{"Javy's function.mjs takes the one source left", []string{"function.mjs"}, []string{"cart.js"}, map[string]string{"function.mjs": "cart.js"}, nil},
		{"two left: no guess", []string{"function.mjs", "other.js"}, []string{"cart.js"}, map[string]string{}, []string{"cart.js"}},
		{"unknown names are left", []string{"index.js"}, []string{"index.js", "nope.js"}, map[string]string{"index.js": "index.js"}, []string{"nope.js"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			costs := map[string]map[int]int64{}
			for i, f := range tt.files {
				costs[f] = map[int]int64{1: int64(100 - i)}
			}
			var srcs []javy.SourceFile
			for _, s := range tt.sources {
				srcs = append(srcs, javy.SourceFile{Name: s, Text: []byte("x"), From: "--source " + s})
			}
			matched, left := MatchSources(linesTables(t, costs), srcs)
			got := map[string]string{}
			for f, s := range matched {
				got[f] = s.Name
			}
			assert.Equal(t, tt.want, got)
			var leftNames []string
			for _, s := range left {
				leftNames = append(leftNames, s.Name)
			}
			assert.Equal(t, tt.left, leftNames)
		})
	}
}

// TestUnmatchedSources: a source that names no JS file of the profile is
// said, but for the bundle of a profile named after a source map.
func TestUnmatchedSources(t *testing.T) {
	d := linesTables(t, map[string]map[int]int64{"src/run.ts": {1: 10}, "src/util.ts": {2: 5}})
	mapped := jsprofile.Meta{SourceMap: "bundle.js.map", GeneratedFile: "dist/bundle.js"}
	tests := []struct {
		name    string
		sources []string
		meta    jsprofile.Meta
		left    []string
	}{
		{"all placed", []string{"src/run.ts", "util.ts"}, jsprofile.Meta{}, nil},
		{"a stranger", []string{"src/run.ts", "src/util.ts", "nope.js"}, jsprofile.Meta{}, []string{"nope.js"}},
		{"the bundle, unmapped", []string{"src/run.ts", "src/util.ts", "bundle.js"}, jsprofile.Meta{}, []string{"bundle.js"}},
		{"the bundle, mapped", []string{"src/run.ts", "src/util.ts", "bundle.js"}, mapped, nil},
		{"a stranger, mapped", []string{"src/run.ts", "src/util.ts", "nope.js"}, mapped, []string{"nope.js"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srcs []javy.SourceFile
			for _, s := range tt.sources {
				srcs = append(srcs, javy.SourceFile{Name: s, Text: []byte("x")})
			}
			var left []string
			for _, s := range UnmatchedSources(d, srcs, tt.meta) {
				left = append(left, s.Name)
			}
			assert.Equal(t, tt.left, left)
		})
	}
}

func TestSourceViews(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	d := linesTables(t, map[string]map[int]int64{
		"app.js":   {10: 300, 12: 100, 60: 600, 120: 5},
		"other.js": {3: 50},
	})
	views, missing := sourceViews(d, map[string]javy.SourceFile{"app.js": {Name: "app.js", Text: []byte(text.String()), From: "--source app.js"}})
	assert.Equal(t, []string{"other.js"}, missing, "a file without source is named, not shown")
	require.Len(t, views, 1)
	v := views[0]
	assert.Equal(t, "app.js", v.File)
	assert.Equal(t, 60, v.Hottest)
	assert.Equal(t, uint64(1005), v.Instructions)
	assert.Equal(t, 101, v.LineCount, "100 lines and line 120, past the end")
	type block struct {
		cold        bool
		first, last int
	}
	var got []block
	for _, b := range v.Blocks {
		got = append(got, block{b.Cold, b.Lines[0].N, b.Lines[len(b.Lines)-1].N})
	}
	assert.Equal(t, []block{{false, 1, 15}, {true, 16, 56}, {false, 57, 63}, {true, 64, 97}, {false, 98, 120}}, got,
		"lines near costly ones shown, the rest folded; a short gap (1-6) shown")
	line := func(n int) sourceLine {
		for _, b := range v.Blocks {
			for _, l := range b.Lines {
				if l.N == n {
					return l
				}
			}
		}
		t.Fatalf("no line %d", n)
		return sourceLine{}
	}
	assert.Equal(t, "line 60", line(60).Text)
	assert.Equal(t, uint64(600), line(60).Instructions)
	assert.Equal(t, "background: hsl(8, 95%, 66%)", string(line(60).Heat), "the costliest line, deepest")
	assert.Equal(t, "background: hsl(21, 95%, 74%)", string(line(10).Heat))
	assert.Empty(t, line(11).Heat)
	assert.Equal(t, "(past the end of the source given)", line(120).Text)
}

func TestSourceViewsLongFile(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= sourceFullLines+1000; i++ {
		fmt.Fprintf(&text, "x%d\n", i)
	}
	text.WriteString(strings.Repeat("y", 3*sourceLineChars) + "\n")
	long := sourceFullLines + 1001
	d := linesTables(t, map[string]map[int]int64{"big.js": {100: 10, long: 1}})
	views, _ := sourceViews(d, map[string]javy.SourceFile{"big.js": {Name: "big.js", Text: []byte(text.String())}})
	require.Len(t, views, 1)
	var shown, omitted int
	for _, b := range views[0].Blocks {
		shown += len(b.Lines)
		omitted += b.Omitted
	}
	assert.Equal(t, 2*(2*sourceContext+1)-sourceContext, shown, "a long file keeps only the lines near its costly ones")
	assert.Equal(t, long-shown, omitted)
	last := views[0].Blocks[len(views[0].Blocks)-1].Lines
	assert.Equal(t, strings.Repeat("y", sourceLineChars)+" …", last[len(last)-1].Text, "long lines are cut")
}

// TestSourceFromIsPrintable (issue 38, N14): where a source's text came
// from is a name a map chose (its sourceMappingURL, its path): the page
// shows it with its controls made spaces, never raw.
func TestSourceFromIsPrintable(t *testing.T) {
	t.Parallel()
	d := linesTables(t, map[string]map[int]int64{"app.js": {1: 10}})
	views, _ := sourceViews(d, map[string]javy.SourceFile{"app.js": {Name: "app.js", Text: []byte("x\n"), From: "sourcesContent of evil\x1b[2J\a\u202e.map"}})
	require.Len(t, views, 1)
	assert.Equal(t, "sourcesContent of evil [2J  .map", views[0].From)
}
