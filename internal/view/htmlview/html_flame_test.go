package htmlview

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// flameReady is true once the page's script has drawn the flame graph.
const flameReady = "document.getElementById('flame') && document.getElementById('flame').dataset.ready"

// writePage writes a page into the test's directory and returns its path.
func writePage(t testing.TB, write func(*bytes.Buffer) error) (string, int) {
	t.Helper()
	var page bytes.Buffer
	require.NoError(t, write(&page))
	path := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))
	return path, page.Len()
}

// flamePage writes p's HTML report with its flame graph, as jsprof report
// --html does for a profile read from source, checks that the page is
// self-contained and returns its path.
func flamePage(t *testing.T, p *jsprofile.Profile, source string) string {
	t.Helper()
	r, err := report.NewReport(report.New(p), report.ReportOptions{Source: source})
	require.NoError(t, err)
	path, _ := writePage(t, func(w *bytes.Buffer) error {
		if err := WriteReport(w, r, ReportOptions{Flame: NewFlame(p, FlameOptions{})}); err != nil {
			return err
		}
		reporttest.SelfContained(t, w.String())
		return nil
	})
	return path
}

// appStacks is a sampling-mode profile with every kind of frame: Wasm
// frames from _start, JS functions, opcodes, a named native and the
// (native functions) bucket, work outside JS and a truncated stack.
func appStacks() []stackSpec {
	start, invoke, interp := wasmf(1, "_start"), wasmf(2, "invoke"), wasmf(3, "JS_CallInternal")
	eval := func(line int, rest ...jsprofile.Frame) []jsprofile.Frame {
		return append([]jsprofile.Frame{start, invoke, interp, jsf("<eval>", line)}, rest...)
	}
	render := func(line int, rest ...jsprofile.Frame) []jsprofile.Frame {
		return eval(12, append([]jsprofile.Frame{opf("call1", 36), interp, jsf("render", line)}, rest...)...)
	}
	return []stackSpec{
		st(40_000, render(21, opf("add", 5), wasmf(4, "js_add_slow"))...),
		st(20_000, render(22, opf("get_field", 65), wasmf(5, "JS_GetPropertyInternal"))...),
		st(15_000, render(23, opf("call_method", 34), wasmf(6, "js_call_c_function"), jsf("JSON.stringify"+report.NativeSuffix, 0), wasmf(7, "js_json_to_str"))...),
		st(8_000, eval(13, opf("call_method", 34), wasmf(6, "js_call_c_function"), bucketf(jsprofile.BucketNative))...),
		st(10_000, start, wasmf(9, "JS_Parse")),
		st(2_000, bucketf(jsprofile.BucketTruncated), jsf("render", 21), opf("add", 5)),
	}
}

// flameState is what the page shows of its flame graph.
type flameState struct {
	Nodes  int      // nodes drawn
	Kinds  []string // their kinds, each once, in order met
	Root   string   // the zoomed node's name
	RootW  float64  // its width
	BoxW   float64  // the graph's width
	Crumbs string
	Hash   string
	Names  []string // every node drawn
	Found  string
	Marked []string // the nodes marked by the search
	Info   string
}

func readFlame(t *testing.T, b *reporttest.Browser) flameState {
	t.Helper()
	var s flameState
	b.Eval(`(function () {
		var box = document.getElementById('flame'), fs = box.querySelectorAll('.f'), kinds = [], names = [], marked = [];
		fs.forEach(function (f) {
			if (kinds.indexOf(f.dataset.kind) < 0) kinds.push(f.dataset.kind);
			names.push(f.dataset.name);
			if (f.classList.contains('m')) marked.push(f.dataset.name);
		});
		var z = box.querySelector('.zroot');
		return {Nodes: fs.length, Kinds: kinds, Root: z.dataset.name, RootW: z.getBoundingClientRect().width,
			BoxW: box.getBoundingClientRect().width, Crumbs: document.getElementById('flame-crumbs').textContent,
			Hash: location.hash, Names: names, Found: document.getElementById('flame-found').textContent, Marked: marked,
			Info: document.getElementById('flame-info').textContent};
	})()`, &s)
	return s
}

// nodeIndex is the preorder index of the drawn node of that name.
func nodeIndex(t *testing.T, b *reporttest.Browser, name string) int {
	t.Helper()
	var i string
	b.Eval(fmt.Sprintf(`document.querySelector('#flame .f[data-name=%q]').dataset.i`, name), &i)
	n, err := strconv.Atoi(i)
	require.NoError(t, err)
	return n
}

// clickNode clicks the middle of the drawn node of that name.
func clickNode(t *testing.T, b *reporttest.Browser, name string) {
	t.Helper()
	b.Eval(fmt.Sprintf(`document.querySelector('#flame .f[data-name=%q]').scrollIntoView({block: 'center'})`, name), nil)
	r := b.Rect(fmt.Sprintf(`#flame .f[data-name=%q]`, name))
	b.Click(r.X+r.Width/2, r.Y+r.Height/2)
}

func TestHTMLFlameGraph(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	path := flamePage(t, buildProfile(t, jsprofile.ModeSample, appStacks()), "app.pb.gz")
	b := reporttest.NewBrowser(t, 1280, 800)
	b.Open(path, "", flameReady)

	s := readFlame(t, b)
	assert.Equal(t, "all", s.Root)
	assert.InDelta(t, s.BoxW, s.RootW, 2, "the root spans the graph")
	assert.ElementsMatch(t, []string{"r", "w", "j", "o", "n", "b"}, s.Kinds, "every kind of frame drawn")
	assert.Contains(t, s.Names, "JSON.stringify (native)")
	// The Wasm frames above the first JS frame are one row; a Wasm
	// subtree without JS (JS_Parse) is drawn under it.
	const run = "Wasm: _start › invoke › JS_CallInternal (3 frames)"
	assert.Equal(t, []string{"all", run, "<eval>"}, s.Names[:3])
	assert.NotContains(t, s.Names, "_start")
	assert.Contains(t, s.Names, "JS_Parse")
	// Kinds by colour: JS orange, opcodes blue, natives purple, Wasm green.
	var colours map[string]string
	b.Eval(`(function () { var c = {}; document.querySelectorAll('#flame .f').forEach(function (f) { c[f.dataset.kind] = getComputedStyle(f).backgroundColor; }); return c; })()`, &colours)
	assert.Equal(t, map[string]string{"r": "rgb(226, 226, 231)", "j": "rgb(243, 160, 79)", "o": "rgb(127, 167, 238)",
		"n": "rgb(177, 132, 227)", "w": "rgb(169, 200, 161)", "b": "rgb(213, 214, 218)"}, colours)

	// A click on render zooms into it: it spans the graph, its callers
	// are the path above, and only its callees are drawn under it.
	renderAt := nodeIndex(t, b, "render")
	clickNode(t, b, "render")
	s = readFlame(t, b)
	assert.Equal(t, "render", s.Root)
	assert.InDelta(t, s.BoxW, s.RootW, 2)
	assert.Equal(t, "all › "+run+" › <eval> › op:call1 › JS_CallInternal › render", s.Crumbs)
	assert.Equal(t, fmt.Sprintf("#zoom=%d", renderAt), s.Hash)
	assert.NotContains(t, s.Names, "JS_Parse", "nothing beside render")
	assert.NotContains(t, s.Names, "(native functions)")
	assert.Contains(t, s.Names, "js_json_to_str")
	addW := b.Rect(`#flame .f[data-name="op:add"]`).Width
	assert.InDelta(t, s.BoxW*40_000/75_000, addW, 2, "op:add is 40k of render's 75k")
	assert.Contains(t, s.Info, "render app.js:20 · JS function · 75.0k Wasm instructions, 78.9% of all")

	// Escape goes up one frame; the path's root link back to all.
	b.Call("Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27}, nil)
	assert.Equal(t, "JS_CallInternal", readFlame(t, b).Root)
	r2 := b.Rect(`#flame-crumbs a[data-i="0"]`)
	b.Click(r2.X+r2.Width/2, r2.Y+r2.Height/2)
	s = readFlame(t, b)
	assert.Equal(t, "all", s.Root)
	assert.Equal(t, "", s.Hash)

	// Search: the matching frames marked, the share they hold shown (a
	// frame under a match is not counted twice).
	b.Eval(`(function () { var i = document.getElementById('flame-search'); i.value = 'json'; i.dispatchEvent(new Event('input')); })()`, nil)
	s = readFlame(t, b)
	assert.ElementsMatch(t, []string{"JSON.stringify (native)", "js_json_to_str"}, s.Marked)
	assert.Equal(t, "matched: 15.8% of this view, 15.0k instructions", s.Found, "15k of 95k")
	assert.Equal(t, "#search=json", s.Hash)
	b.Eval(`(function () { var i = document.getElementById('flame-search'); i.value = '/^op:(add|sub)$/'; i.dispatchEvent(new Event('input')); })()`, nil)
	assert.Equal(t, []string{"op:add", "op:add"}, readFlame(t, b).Marked, "a /regexp/")

	// The fragment is applied on load: a zoomed, searched view can be
	// linked to.
	b.Open(path, fmt.Sprintf("zoom=%d&search=add", renderAt), flameReady)
	s = readFlame(t, b)
	assert.Equal(t, "render", s.Root)
	assert.Equal(t, []string{"op:add", "js_add_slow"}, s.Marked)
	assert.Equal(t, "matched: 53.3% of this view (42.1% of all), 40.0k instructions", s.Found)
	var input string
	b.Eval(`document.getElementById('flame-search').value`, &input)
	assert.Equal(t, "add", input)
}

// wasmToggle is the "every Wasm frame" box: shown, and ticked.
type wasmToggle struct{ Shown, Checked bool }

func readWasmToggle(b *reporttest.Browser) wasmToggle {
	var w wasmToggle
	b.Eval(`(function () { var c = document.getElementById('flame-wasm'); return {Shown: !c.parentNode.hidden, Checked: c.checked}; })()`, &w)
	return w
}

// TestHTMLFlameWasmRun: the collapsed run of Wasm frames above the JS
// expands on a click, or with the "every Wasm frame" box, keeping the
// zoomed frame in view, and the fragment says so.
func TestHTMLFlameWasmRun(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	path := flamePage(t, buildProfile(t, jsprofile.ModeSample, appStacks()), "app.pb.gz")
	b := reporttest.NewBrowser(t, 1280, 800)
	b.Open(path, "", flameReady)
	const run = "Wasm: _start › invoke › JS_CallInternal (3 frames)"
	assert.Equal(t, wasmToggle{Shown: true, Checked: false}, readWasmToggle(b))

	clickNode(t, b, run)
	s := readFlame(t, b)
	assert.Equal(t, "all", s.Root, "the run's parent stays zoomed")
	assert.Equal(t, []string{"all", "_start", "invoke", "JS_CallInternal", "<eval>"}, s.Names[:5])
	assert.Equal(t, "#wasm=all", s.Hash)
	assert.Equal(t, wasmToggle{Shown: true, Checked: true}, readWasmToggle(b))

	clickNode(t, b, "render")
	assert.Equal(t, "all › _start › invoke › JS_CallInternal › <eval> › op:call1 › JS_CallInternal › render", readFlame(t, b).Crumbs)
	// Unticking the box collapses the run again, render still zoomed.
	r2 := b.Rect("#flame-wasm")
	b.Click(r2.X+r2.Width/2, r2.Y+r2.Height/2)
	s = readFlame(t, b)
	assert.Equal(t, "render", s.Root)
	assert.Equal(t, "all › "+run+" › <eval> › op:call1 › JS_CallInternal › render", s.Crumbs)
	assert.Equal(t, fmt.Sprintf("#zoom=%d", nodeIndex(t, b, "render")), s.Hash)

	b.Open(path, "wasm=all", flameReady)
	assert.Contains(t, readFlame(t, b).Names, "_start", "the fragment opens the run")

	// A profile without Wasm frames above its JS has no run, and no box.
	path = flamePage(t, buildProfile(t, jsprofile.ModeExact, smallStacks()), "app.pb.gz")
	b.Open(path, "", flameReady)
	assert.Equal(t, wasmToggle{Shown: false, Checked: false}, readWasmToggle(b))
}

func TestHTMLFlameExactMode(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	path := flamePage(t, buildProfile(t, jsprofile.ModeExact, smallStacks()), "app.pb.gz")
	b := reporttest.NewBrowser(t, 1280, 800)
	b.Open(path, "", flameReady)
	s := readFlame(t, b)
	assert.Equal(t, []string{"all", "<eval>", "op:call1", "render", "op:add", "op:sub", "op:call_method", "JSON.stringify (native)",
		"op:get_var", "(native functions)", "(outside JS)"}, s.Names, "preorder, heaviest first")
	clickNode(t, b, "op:call_method")
	s = readFlame(t, b)
	assert.Equal(t, "op:call_method", s.Root)
	assert.Equal(t, []string{"<eval>", "op:call1", "render", "op:call_method", "JSON.stringify (native)"}, s.Names[1:], "the path above, then the zoomed node's own")
	var hot struct{ Line, Native, Function, Opcode string }
	b.Eval(`({Line: document.getElementById('hot-line').dataset.name, Native: document.getElementById('hot-native').dataset.name,
		Function: document.getElementById('hot-function').dataset.name, Opcode: document.getElementById('hot-opcode').dataset.name})`, &hot)
	assert.Equal(t, struct{ Line, Native, Function, Opcode string }{"app.js:12", "JSON.stringify", "render", "add"}, hot, "the hottest line by total: <eval>'s call of render")
	var natives []string
	b.Eval(`Array.from(document.querySelectorAll('tr.native')).map(function (r) { return r.dataset.name + ' ' + r.dataset.named; })`, &natives)
	assert.Equal(t, []string{"JSON.stringify true", "(native functions) false"}, natives, "named natives are rows of their own")
}

func TestHTMLReportNoProfile(t *testing.T) {
	// Without the profile's stacks (WriteHTML), the page has no graph and
	// no script, and its natives come from the tables.
	r, err := report.NewReport(readFixture(t, "fib-base.pb.gz"), report.ReportOptions{})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	assert.NotContains(t, page.String(), "<script")
	assert.NotContains(t, page.String(), `id="flame"`)
	assert.Contains(t, page.String(), `<tr class="native" data-name="(native functions)" data-named="false">`)
	assert.Contains(t, page.String(), `<a class="card k-native" id="hot-native" data-name="(native functions)"`)
}

func TestHTMLDiffFlame(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	read := func(name string) *jsprofile.Profile {
		p, err := jsprofile.ReadFile(reporttest.RealPath(name))
		require.NoError(t, err)
		return p
	}
	base, new := read("sort-quickjs-2024.pb.gz"), read("sort-quickjs-ng-0.10.pb.gz")
	df := diff.New(report.New(base), report.New(new), "sort-quickjs-2024.pb.gz", "sort-quickjs-ng-0.10.pb.gz")
	flame := NewFlameDiff(base, new, FlameOptions{})
	path, _ := writePage(t, func(w *bytes.Buffer) error {
		if err := WriteDiff(w, df, DiffOptions{Top: 12, Flame: flame}); err != nil {
			return err
		}
		reporttest.SelfContained(t, w.String())
		return nil
	})
	b := reporttest.NewBrowser(t, 1280, 800)
	b.Open(path, "", flameReady)
	var preorder []*FlameNode
	var walk func(n *FlameNode)
	walk = func(n *FlameNode) {
		preorder = append(preorder, n)
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(flame.Root)
	// The two runs side by side: the base's graph left of new's, level
	// with it, both on the page's width.
	left, right := b.Rect("#flame-base"), b.Rect("#flame")
	assert.Less(t, left.X+left.Width, right.X, "base left of new")
	assert.InDelta(t, left.Y, right.Y, 1, "level")
	assert.Greater(t, left.Width, 500.0)
	assert.InDelta(t, left.Width, right.Width, 2)
	// Each graph as wide as its run: a frame's width is its share of
	// that run, and a stack one run has not is not drawn in its graph.
	type drawn struct {
		Name, Colour string
		O            int
		W            float64
	}
	nodes := map[string][]drawn{}
	for _, side := range []string{"flame-base", "flame"} {
		var d []drawn
		b.Eval(`Array.from(document.querySelectorAll('#`+side+` .f')).map(function (f) { return {Name: f.dataset.name, Colour: f.style.backgroundColor, O: +f.dataset.o, W: f.getBoundingClientRect().width}; })`, &d)
		require.NotEmpty(t, d, side)
		nodes[side] = d
	}
	for _, d := range nodes["flame-base"] {
		fn := preorder[d.O]
		require.True(t, fn.InBase, "%s drawn in the base's graph", d.Name)
		if d.O > 0 && d.W > 10 {
			assert.InDelta(t, left.Width*float64(fn.Base)/float64(flame.Root.Base), d.W+1, 2, "%s: its share of the base", d.Name)
		}
	}
	// Each node coloured by its change: red more, green fewer, grey the
	// same, dark red absent from the base, dark green absent from new.
	counts := map[string]int{}
	for _, side := range []string{"flame-base", "flame"} {
		for _, n := range nodes[side] {
			fn := preorder[n.O]
			hue := regexpHue(t, n.Colour)
			switch {
			case !fn.InBase:
				assert.Equal(t, "rgb(170, 14, 14)", n.Colour, "%s: not in base", n.Name)
				counts["new"]++
			case !fn.InNew:
				assert.Equal(t, "rgb(17, 116, 58)", n.Colour, "%s: not in new", n.Name)
				counts["gone"]++
			case math.Abs(float64(fn.Instructions)-float64(fn.Base)) < 0.01*float64(fn.Base):
				assert.Equal(t, "rgb(194, 197, 203)", n.Colour, "%s: the same", n.Name)
				counts["same"]++
			case fn.Instructions > fn.Base:
				assert.Less(t, hue, 20.0, "%s: more, red (%s)", n.Name, n.Colour)
				counts["more"]++
			default:
				assert.Greater(t, hue, 100.0, "%s: fewer, green (%s)", n.Name, n.Colour)
				counts["fewer"]++
			}
		}
	}
	assert.Positive(t, counts["more"], "%v", counts)
	assert.Positive(t, counts["fewer"], "%v", counts)
	// A click in either graph zooms both.
	r := b.Rect(`#flame-base .f[data-name="insertionSort"]`)
	b.Click(r.X+r.Width/2, r.Y+r.Height/2)
	assert.Equal(t, "insertionSort", readFlame(t, b).Root)
	var baseRoot string
	b.Eval(`document.querySelector('#flame-base .zroot').dataset.name`, &baseRoot)
	assert.Equal(t, "insertionSort", baseRoot)
	assert.Regexp(t, `^insertionSort function.mjs:\d+ · JS function · new [\d.]+[kM], [\d.]+% of all · base [\d.]+[kM], [\d.]+% of all · change [+-][\d.]+[kM] \([+-][\d.]+%\)$`, readFlame(t, b).Info)
}

// regexpHue reads the hue of an rgb() colour.
func regexpHue(t *testing.T, rgb string) float64 {
	t.Helper()
	var r, g, bl float64
	_, err := fmt.Sscanf(rgb, "rgb(%f, %f, %f)", &r, &g, &bl)
	require.NoError(t, err, rgb)
	mx, mn := math.Max(r, math.Max(g, bl)), math.Min(r, math.Min(g, bl))
	if mx == mn {
		return 0
	}
	var h float64
	switch mx {
	case r:
		h = math.Mod((g-bl)/(mx-mn), 6)
	case g:
		h = (bl-r)/(mx-mn) + 2
	default:
		h = (r-g)/(mx-mn) + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h
}

// bigProfile is a sampling-mode profile of n distinct stacks: 2-12 nested
// interpreter activations of 3,000 JS functions in 300 files, 120
// opcodes, 800 Wasm helpers.
func bigProfile(t testing.TB, n int) *profile.Profile {
	t.Helper()
	rng := rand.New(rand.NewSource(1))
	var total uint64
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeSample, TotalInstructions: 1, SampleEvery: 1000})
	stack := make([]jsprofile.Frame, 0, 64)
	fns := make([]jsprofile.Frame, 3000)
	for i := range fns {
		fns[i] = jsprofile.JSFrame(fmt.Sprintf("fn%d", i), fmt.Sprintf("src/file%d.js", i%300), 1+i%50*10, 1+i%50*10, uint32(0x1000+i*0x100), 0)
	}
	ops := make([]jsprofile.Frame, 120)
	for i := range ops {
		ops[i] = jsprofile.OpcodeFrame(fmt.Sprintf("op%d", i), i)
	}
	// The Wasm frames, made once: n stacks use them millions of times.
	start, invoke, interp := wasmf(1, "_start"), wasmf(2, "invoke"), wasmf(3, "JS_CallInternal")
	helpers := make([]jsprofile.Frame, 800)
	for h := range helpers {
		helpers[h] = wasmf(uint32(100+h), fmt.Sprintf("helper%d", h))
	}
	for i := 0; i < n; i++ {
		stack = append(stack[:0], start, invoke)
		for k := 2 + rng.Intn(10); k > 0; k-- {
			f := fns[rng.Intn(len(fns))]
			f.Line += int64(rng.Intn(10))
			stack = append(stack, interp, f, ops[rng.Intn(len(ops))])
		}
		for k := rng.Intn(4); k > 0; k-- {
			stack = append(stack, helpers[rng.Intn(len(helpers))])
		}
		v := int64(1000 * (1 + rng.Intn(5)))
		total += uint64(v)
		b.Add(stack, v, 0, 0)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	for i, c := range p.Comments {
		if strings.HasPrefix(c, "jsprof.total_wasm_instructions=") {
			p.Comments[i] = fmt.Sprintf("jsprof.total_wasm_instructions=%d", total)
		}
	}
	return p
}

// TestHTMLBigProfile: the page of a profile of hundreds of thousands of
// distinct stacks stays small (its size and its flame graph's nodes are
// bounded) and opens; the times are logged. JSPROF_BIG_STACKS sets
// the number of stacks (default 100,000, 20,000 flame graph nodes five
// times over; 1,000,000 make a 49 MB profile).
func TestHTMLBigProfile(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	if testing.Short() {
		t.Skip("builds a large profile")
	}
	n := 100_000
	if s := os.Getenv("JSPROF_BIG_STACKS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	p := bigProfile(t, n)
	var gz bytes.Buffer
	require.NoError(t, p.Write(&gz))
	// The profile's size uncompressed, for the log: gzip's own count of
	// what it wrote, cheaper than encoding the profile again.
	raw, err := gzip.NewReader(bytes.NewReader(gz.Bytes()))
	require.NoError(t, err)
	rawSize, err := io.Copy(io.Discard, raw)
	require.NoError(t, err)

	start := time.Now()
	parsed, err := profile.Parse(bytes.NewReader(gz.Bytes()))
	require.NoError(t, err)
	jp, err := jsprofile.Read(parsed)
	require.NoError(t, err)
	read := time.Since(start)
	start = time.Now()
	d := report.New(jp)
	tables := time.Since(start)
	start = time.Now()
	flame := NewFlame(jp, FlameOptions{})
	merge := time.Since(start)
	r, err := report.NewReport(d, report.ReportOptions{Source: "big.pb.gz"})
	require.NoError(t, err)
	start = time.Now()
	path, size := writePage(t, func(w *bytes.Buffer) error { return WriteReport(w, r, ReportOptions{Flame: flame}) })
	write := time.Since(start)

	assert.Equal(t, n, len(jp.Sample), "distinct stacks")
	assert.LessOrEqual(t, flame.Nodes, DefaultFlameMaxNodes+DefaultFlameMaxNodes/10)
	assert.Less(t, size, 1_500_000, "the page's size is bounded, whatever the profile's")
	assert.Less(t, len(flame.flameJSON()), 1_000_000)

	b := reporttest.NewBrowser(t, 1280, 800)
	start = time.Now()
	b.Open(path, "", flameReady)
	load := time.Since(start)
	var ms string
	b.Eval(`document.getElementById('flame').dataset.renderMs`, &ms)
	drawn := readFlame(t, b).Nodes
	clickNode(t, b, "Wasm: _start › invoke › JS_CallInternal (3 frames)")
	clickNode(t, b, "invoke")
	assert.Equal(t, "invoke", readFlame(t, b).Root)
	t.Logf("%d stacks: profile %.1f MB (%.1f MB gzipped); read %v, tables %v, flame graph %v (%d nodes), page written %v: %.0f kB (flame data %.0f kB); "+
		"Chromium: loaded and drawn in %v (script %s ms, %d nodes drawn)",
		n, float64(rawSize)/1e6, float64(gz.Len())/1e6, read.Round(time.Millisecond), tables.Round(time.Millisecond), merge.Round(time.Millisecond), flame.Nodes,
		write.Round(time.Millisecond), float64(size)/1e3, float64(len(flame.flameJSON()))/1e3, load.Round(time.Millisecond), ms, drawn)
	if !strings.Contains(ms, ".") {
		t.Errorf("render time %q", ms)
	}
}
