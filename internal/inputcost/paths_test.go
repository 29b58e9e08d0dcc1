package inputcost

import (
	"encoding/json"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/report"
)

// TestRemove: a path's members go from every object it reaches, through
// every element of its arrays, each with the separator that joined it
// (after it, or before it when last), the other bytes as they were.
func TestRemove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		path     Path
		want     string
	}{
		{"first", `{"a":1,"b":2}`, Path{"a"}, `{"b":2}`},
		{"last", `{"a":1,"b":2}`, Path{"b"}, `{"a":1}`},
		{"only", `{"a":{"b":[1,2]}}`, Path{"a"}, `{}`},
		{"middle, spaced", "{ \"a\": 1,\n  \"b\": [2],\n  \"c\": 3 }", Path{"b"}, "{ \"a\": 1,\n  \"c\": 3 }"},
		{"last, spaced", `{ "a" : 1 , "b" : 2 }`, Path{"b"}, `{ "a" : 1 }`},
		{"every element", `{"l":[{"x":1,"t":["s"]},{"t":[],"x":2},{"x":3},5]}`, Path{"l", each, "t"}, `{"l":[{"x":1},{"x":2},{"x":3},5]}`},
		{"nested arrays", `[[{"a":1,"b":2}],[{"a":3}]]`, Path{each, each, "a"}, `[[{"b":2}],[{}]]`},
		{"duplicate keys, last", `{"k":0,"a":1,"a":2}`, Path{"a"}, `{"k":0}`},
		{"duplicate keys, apart", `{"a":1,"k":0,"a":2}`, Path{"a"}, `{"k":0}`},
		{"escaped key", `{"a\"b":1,"c":"x\\\"}"}`, Path{`a"b`}, `{"c":"x\\\"}"}`},
		{"not there", `{"a":{"b":1}}`, Path{"a", "c"}, `{"a":{"b":1}}`},
		{"through a scalar", `{"a":1}`, Path{"a", "b"}, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, err := parse([]byte(tt.in))
			require.NoError(t, err)
			got := string(remove([]byte(tt.in), root, tt.path))
			assert.Equal(t, tt.want, got)
			assert.True(t, json.Valid([]byte(got)))
		})
	}
}

// TestPaths: each path once, in the order first met, with the bytes its
// members span over every element; [] for array elements.
func TestPaths(t *testing.T) {
	t.Parallel()
	root, err := parse([]byte(`{"cart":{"lines":[{"q":1,"m":{"tags":["a"]}},{"q":22}]},"s":null}`))
	require.NoError(t, err)
	var got []string
	bytes := map[string]int{}
	for _, f := range paths(root) {
		got = append(got, f.path.String())
		bytes[f.path.String()] = f.bytes
	}
	assert.Equal(t, []string{"cart", "cart.lines", "cart.lines[].q", "cart.lines[].m", "cart.lines[].m.tags", "s"}, got)
	assert.Equal(t, len(`"q":1`)+len(`"q":22`), bytes["cart.lines[].q"])
	assert.Equal(t, len(`"s":null`), bytes["s"])

	_, err = parse([]byte(`{"a":`))
	assert.ErrorIs(t, err, errNotJSON, "a truncated input is refused, not scanned")
}

// TestPathString: keys that would read as another path are quoted.
func TestPathString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    Path
		want string
	}{
		{Path{"cart", "lines", each, "merchandise"}, "cart.lines[].merchandise"},
		{Path{each, "a"}, "[].a"},
		{Path{"a.b", "c"}, `["a.b"].c`},
		{Path{"", "x y", "\x1b[2J"}, `[""]["x y"]["\x1b[2J"]`},
	} {
		assert.Equal(t, tt.want, tt.p.String())
	}
	assert.NotEqual(t, Path{"a.b"}.key(), Path{"a", "b"}.key(), "keys stay apart")
}

// TestChoose: every top-level path, then the others over the share, the
// largest first, up to the cap; the rest counted.
func TestChoose(t *testing.T) {
	t.Parallel()
	all := []found{{Path{"a"}, 50}, {Path{"a", "x"}, 5}, {Path{"a", "y"}, 30}, {Path{"a", "z"}, 20}, {Path{"b"}, 1}}
	var c report.InputCost
	got := func(max int) []string {
		c = report.InputCost{}
		var names []string
		for _, f := range choose(all, 100, Options{MaxPaths: max, MinShare: 0.1}, &c) {
			names = append(names, f.path.String())
		}
		return names
	}
	assert.Equal(t, []string{"a", "b", "a.y", "a.z"}, got(10))
	assert.Equal(t, 1, c.Small, "a.x holds 5% of the bytes")
	assert.Equal(t, 0, c.LeftOut)
	assert.Equal(t, []string{"a", "b", "a.y"}, got(3))
	assert.Equal(t, 1, c.LeftOut, "a.z left out by the cap")
}

// TestFlag: --input-cost alone, =N, =false; 0 and words refused.
func TestFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want int
		err  bool
	}{
		{nil, 0, false},
		{[]string{"--input-cost"}, DefaultMaxPaths, false},
		{[]string{"--input-cost=7"}, 7, false},
		{[]string{"--input-cost=false"}, 0, false},
		{[]string{"--input-cost=0"}, 0, true},
		{[]string{"--input-cost=many"}, 0, true},
	} {
		var f Flag
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&f, "input-cost", "")
		err := fs.Parse(tt.args)
		if tt.err {
			assert.Error(t, err, tt.args)
			continue
		}
		require.NoError(t, err, tt.args)
		assert.Equal(t, tt.want, f.MaxPaths, tt.args)
	}
}

// TestQueryFields: a path's query field is its keys without [].
func TestQueryFields(t *testing.T) {
	t.Parallel()
	q := QueryFields(map[string]string{"cart.lines.merchandise.product.tags": "src/run.graphql:14: tags"})
	assert.Equal(t, "src/run.graphql:14: tags", q(Path{"cart", "lines", each, "merchandise", "product", "tags"}))
	assert.Empty(t, q(Path{"cart", "lines"}), "a path the query does not name")
}

// FuzzRemove: any bytes are refused or read; every path of what is read
// is removed into valid JSON no longer than the input, which has that
// path no more.
func FuzzRemove(f *testing.F) {
	for _, s := range []string{`{"a":[{"b":1,"c":[2]}],"d":"e"}`, `[]`, `1`, `{"a":1,"a":{"a":[]}}`, ` { "x" : [ { } , { "y" : null } ] } `, `{"a":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		root, err := parse(in)
		if err != nil {
			return
		}
		for _, p := range paths(root) {
			out := remove(in, root, p.path)
			require.True(t, json.Valid(out), "%q without %s: %q", in, p.path, out)
			require.Less(t, len(out), len(in))
			again, err := parse(out)
			require.NoError(t, err)
			for _, q := range paths(again) {
				require.NotEqual(t, p.path.key(), q.path.key(), "%s is gone", p.path)
			}
		}
	})
}
