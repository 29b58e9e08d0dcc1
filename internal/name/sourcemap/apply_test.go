package sourcemap

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestApply names a profile of the minified program after its map: t is
// inc at its line of inc.ts, its pcs at theirs; a pc the map has no
// position for keeps the bundle's, in a function of the bundle; the
// bundle's positions stay in the system names; a second Apply is refused.
func TestApply(t *testing.T) {
	t.Parallel()
	m, err := Parse(context.Background(), minifiedMap(t), "dist")
	require.NoError(t, err)
	l := Loaded{Map: m, From: "dist/app.js.map"}
	g := NewGenerated(generated, []byte(minified))
	require.NoError(t, l.Check(context.Background(), g))

	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 60})
	// t is declared at byte column 1 ("function"); its pcs at "return"
	// (15) and "e+1" (22); the module's call t(1) at 26, and a pc at 31,
	// where the map maps nothing.
	fn := func(line, col int, pc uint32) jsprofile.Frame {
		return jsprofile.JSFrameAt("t", generated, 1, 1, line, col, 0x100, pc)
	}
	module := func(col int, pc uint32) jsprofile.Frame {
		return jsprofile.JSFrameAt("<eval>", generated, 1, 1, 1, col, 0x200, pc)
	}
	b.Add([]jsprofile.Frame{module(26, 4), fn(1, 15, 0)}, 10, 1, 0)
	b.Add([]jsprofile.Frame{module(26, 4), fn(1, 23, 2)}, 20, 1, 0)
	b.Add([]jsprofile.Frame{module(31, 9)}, 30, 1, 0)
	p, err := b.Profile()
	require.NoError(t, err)

	a, err := Apply(p, l, g)
	require.NoError(t, err)
	assert.Equal(t, Applied{Functions: 2, Renamed: 1, Split: 1, Locations: 4, Unmapped: 1}, a)
	jp, err := jsprofile.Read(p)
	require.NoError(t, err, "the profile reads back")
	assert.Equal(t, "dist/app.js.map", jp.Meta.SourceMap)
	assert.Equal(t, generated, jp.Meta.GeneratedFile)

	type at struct {
		name, file string
		start      int64
		line       int64
	}
	var got []at
	for _, loc := range p.Location {
		ln := loc.Line[0]
		got = append(got, at{ln.Function.Name, ln.Function.Filename, ln.Function.StartLine, ln.Line})
	}
	assert.ElementsMatch(t, []at{
		{"<eval>", "src/inc.ts", 1, 4}, // t(1) → inc(1); the module starts where "function" maps
		{"inc", "src/inc.ts", 1, 2},    // return
		{"inc", "src/inc.ts", 1, 2},    // e+1
		{"<eval>", generated, 1, 1},    // unmapped: the bundle's
	}, got)
	for _, f := range p.Function {
		jn, ok := jsprofile.ParseJSName(f.SystemName)
		require.True(t, ok, f.SystemName)
		require.NotNil(t, jn.Generated, f.SystemName)
		assert.Equal(t, 1, jn.Generated.Line, "the bundle's first line kept")
		if f.Name == "inc" {
			assert.Equal(t, "t", jn.Name, "the bundle's name kept")
			assert.Equal(t, map[int64]int64{2: 1}, jn.Lines)
		}
	}
	_, err = Apply(p, l, g)
	assert.ErrorIs(t, err, ErrMapped)
}
