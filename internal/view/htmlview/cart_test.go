package htmlview_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/htmlview"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// cartModule builds fixtures/js/cart.js with the pinned QuickJS-NG Javy
// plugin (cartModuleWith).
func cartModule(t *testing.T, cache wazero.CompilationCache) (module, src []byte) {
	return cartModuleWith(t, cache, "javy-plugin-1.7.0")
}

// cartModuleWith builds fixtures/js/cart.js with a Javy plugin of
// fixtures/engines into a static module that, as the Javy CLI's do,
// carries its JS Brotli-compressed in a javy_source section (and, as
// jsprof build's do, the name of its file). It compiles through cache
// (fixtures.CompilationCache: a test that keeps one for its builds and
// runs compiles each module once).
func cartModuleWith(t *testing.T, cache wazero.CompilationCache, engine string) (module, src []byte) {
	t.Helper()
	ctx := context.Background()
	wasm := fixtures.EngineBytes(t, engine)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	plugin, err := javy.Inspect(m)
	require.NoError(t, err)
	src, err = os.ReadFile(fixtures.Path("js", "cart.js"))
	require.NoError(t, err)
	bc, err := javy.Compile(ctx, plugin, wasm, src, cache)
	require.NoError(t, err)
	static, err := javy.BuildStatic(ctx, wasm, plugin, bc, cache)
	require.NoError(t, err)
	var compressed bytes.Buffer
	w := brotli.NewWriterLevel(&compressed, brotli.BestCompression)
	_, err = w.Write(src)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	module = wasmcore.AppendCustomSection(static, javy.JavySourceSection, compressed.Bytes())
	return javy.NameSource(module, "cart.js"), src
}

// hotSpots are the first screen's cards: their data-name and box.
type hotSpots struct {
	Line, Native, LineText string
	LineBottom             float64
	NativeBottom           float64
	FlameNative            float64 // bottom of the graph's first native frame
}

// TestHTMLCart: the report of a cart discount function, the program a
// person profiles, shows on its first screen (1280×800) its hottest line,
// with its source, and its heaviest native, in both modes.
func TestHTMLCart(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	if testing.Short() {
		t.Skip("builds and profiles cart.js")
	}
	cache := fixtures.CompilationCache(t)
	module, src := cartModule(t, cache)
	source, err := javy.ModuleSource(module, "cart.wasm")
	require.NoError(t, err, "the javy_source section reads back")
	assert.Equal(t, "cart.js", source.Name, "named by jsprof.source")
	assert.Equal(t, string(src), string(source.Text))
	srcLines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	b := reporttest.NewBrowser(t, 1280, 800)

	for _, mode := range []profiler.Mode{profiler.Exact, profiler.Sample} {
		t.Run(string(mode), func(t *testing.T) {
			jp := profileCart(t, cache, module, mode)
			tables := report.New(jp)
			flame := htmlview.NewFlame(jp, htmlview.FlameOptions{})
			r, err := report.NewReport(tables, report.ReportOptions{Source: "cart-" + string(mode) + ".pb.gz"})
			require.NoError(t, err)
			var page bytes.Buffer
			require.NoError(t, htmlview.WriteReport(&page, r, htmlview.ReportOptions{Flame: flame, Sources: []javy.SourceFile{source}}))
			reporttest.SelfContained(t, page.String())
			path := filepath.Join(t.TempDir(), "cart.html")
			require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))
			b.Open(path, "", "document.getElementById('flame').dataset.ready")

			var hot hotSpots
			b.Eval(`(function () {
				var l = document.getElementById('hot-line'), n = document.getElementById('hot-native'),
					fn = document.querySelector('#flame .f[data-kind="n"]');
				return {Line: l.dataset.name, LineText: (l.querySelector('code') || {textContent: ''}).textContent, Native: n.dataset.name,
					LineBottom: l.getBoundingClientRect().bottom, NativeBottom: n.getBoundingClientRect().bottom,
					FlameNative: fn ? fn.getBoundingClientRect().bottom : 1e9};
			})()`, &hot)
			hottest := tables.Lines[0]
			require.Equal(t, "cart.js", hottest.File)
			assert.Equal(t, fmt.Sprintf("cart.js:%d", hottest.Line), hot.Line, "the hottest line")
			shown := strings.TrimSuffix(hot.LineText, "…")
			assert.NotEmpty(t, shown)
			assert.True(t, strings.HasPrefix(strings.TrimSpace(srcLines[hottest.Line-1]), shown), "with its source: %q", hot.LineText)
			assert.LessOrEqual(t, hot.LineBottom, 800.0, "the hottest line on the first screen")
			assert.LessOrEqual(t, hot.NativeBottom, 800.0, "the heaviest native on the first screen")
			// The Wasm frames above <eval> are one row, so the graph's
			// first native is well within the first screen.
			assert.LessOrEqual(t, hot.FlameNative, 720.0, "and in the flame graph, on the first screen")

			named := false
			for _, n := range flame.Natives {
				named = named || n.Named
			}
			t.Logf("hottest line %s (%.1f%%), heaviest native %s (named natives: %v); the graph's first native ends at y=%.0f",
				hot.Line, 100*hottest.Share, hot.Native, named, hot.FlameNative)
			if !named {
				// Natives are not named yet: the heaviest native is the
				// bucket of them all.
				assert.Equal(t, jsprofile.BucketNative, hot.Native)
			} else {
				// NATIVE NAMES — enabled by itself once natives are named
				// (a frame named like "JSON.stringify" exists): cart.js's
				// heaviest native is its JSON.stringify or JSON.parse, a
				// row and a flame graph frame of its own.
				assert.Contains(t, []string{"JSON.stringify", "JSON.parse"}, hot.Native)
				var rows []string
				b.Eval(`Array.from(document.querySelectorAll('tr.native[data-named="true"]')).map(function (r) { return r.dataset.name; })`, &rows)
				assert.Contains(t, rows, hot.Native)
			}

			// The source view: every line of cart.js, the hottest marked,
			// with the cost of the line.
			var view struct {
				Lines   int
				Hottest string
				Instr   string
				Total   string
			}
			b.Eval(`(function () { var h = document.querySelector('.source .sl.hottest');
				return {Lines: document.querySelectorAll('.source .sl').length, Hottest: h.dataset.line, Instr: h.dataset.instr, Total: h.dataset.total}; })()`, &view)
			assert.Equal(t, len(srcLines), view.Lines)
			assert.Equal(t, fmt.Sprint(hottest.Line), view.Hottest)
			var lineInstr uint64
			for _, l := range tables.Lines {
				if l.File == hottest.File && l.Line == hottest.Line {
					lineInstr += l.SelfWasmInstructions
				}
			}
			assert.Equal(t, fmt.Sprint(lineInstr), view.Instr)
			assert.Equal(t, fmt.Sprint(tables.SourceLineTotals[report.SourceLine{File: hottest.File, Line: hottest.Line}]), view.Total)

			if reporttest.Update() {
				shots(t, b, mode, path)
			}
		})
	}
}

// shots takes the documentation's screenshots: the first screen of the
// exact-mode report and its source view; the sampling-mode flame graph,
// zoomed into the cart function.
func shots(t *testing.T, b *reporttest.Browser, mode profiler.Mode, path string) {
	if mode == profiler.Exact {
		reporttest.SavePNG(t, reporttest.DocsImage("report-html.png"), b.Screenshot(false))
		b.Eval(`(function () { var h = document.querySelector('.source .sl.hottest'); window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 380); })()`, nil)
		reporttest.SavePNG(t, reporttest.DocsImage("report-source.png"), b.Screenshot(false))
		return
	}
	r := b.Rect(`#flame .f[data-name="run"]`)
	b.Click(r.X+r.Width/2, r.Y+r.Height/2)
	b.Eval(`window.scrollTo(0, document.getElementById('flame-graph').getBoundingClientRect().top + window.scrollY - 10)`, nil)
	reporttest.SavePNG(t, reporttest.DocsImage("report-flame.png"), b.Screenshot(false))
}

// profileCart profiles a cart module in a mode, deterministically,
// compiling through cache, and checks its output.
func profileCart(t *testing.T, cache wazero.CompilationCache, module []byte, mode profiler.Mode) *jsprofile.Profile {
	t.Helper()
	var stdout bytes.Buffer
	out, res, err := profiler.Profile(context.Background(), module,
		runner.Options{Name: "cart.wasm", Stdout: &stdout, Cache: cache, Deterministic: true},
		profiler.Options{Mode: mode, SampleEvery: 50_000})
	require.NoError(t, err)
	require.Nil(t, res.Trap)
	want, err := os.ReadFile(fixtures.Path("js", "cart.expected"))
	require.NoError(t, err)
	assert.Equal(t, string(want), stdout.String())
	jp, err := jsprofile.Read(out.Profile)
	require.NoError(t, err)
	return jp
}

// TestHTMLCartDiff: cart.js on the two Javy plugins, Bellard QuickJS of
// 2024 (its Wasm functions named) against QuickJS-NG (stripped: its Wasm
// functions are wasm-function[N], numbered otherwise): the exact profiles'
// flame graphs line up, since the Wasm frames the two engines do not
// share are folded, and the page shows both runs' graphs side by side.
func TestHTMLCartDiff(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	if testing.Short() {
		t.Skip("builds and profiles cart.js on two engines")
	}
	const oldPlugin, newPlugin = "javy-plugin-1.1.0", "javy-plugin-1.7.0"
	cache := fixtures.CompilationCache(t)
	oldModule, _ := cartModuleWith(t, cache, oldPlugin)
	newModule, _ := cartModuleWith(t, cache, newPlugin)
	base, nw := profileCart(t, cache, oldModule, profiler.Exact), profileCart(t, cache, newModule, profiler.Exact)
	require.Positive(t, base.Meta.WasmStacks, "exact profiles with Wasm frames")
	require.Positive(t, nw.Meta.WasmStacks)

	flame := htmlview.NewFlameDiff(base, nw, htmlview.FlameOptions{})
	var inNew, found, inBase, kept int
	var walk func(n *htmlview.FlameNode)
	walk = func(n *htmlview.FlameNode) {
		if n.InNew {
			inNew++
			if n.InBase {
				found++
			}
		}
		if n.InBase {
			inBase++
			if n.InNew {
				kept++
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(flame.Root)
	t.Logf("%d nodes: of new's %d, %d in the base (%.1f%%); of the base's %d, %d in new", flame.Nodes, inNew, found, 100*float64(found)/float64(inNew), inBase, kept)
	assert.GreaterOrEqual(t, float64(found), 0.9*float64(inNew), "new's stacks are found in the base")
	assert.GreaterOrEqual(t, float64(kept), 0.9*float64(inBase), "and the base's in new")

	df := diff.New(report.New(base), report.New(nw), "cart-"+oldPlugin+".pb.gz", "cart-"+newPlugin+".pb.gz")
	var page bytes.Buffer
	require.NoError(t, htmlview.WriteDiff(&page, df, htmlview.DiffOptions{Top: 12, Flame: flame}))
	reporttest.SelfContained(t, page.String())
	path := filepath.Join(t.TempDir(), "diff.html")
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))
	b := reporttest.NewBrowser(t, 1280, 800)
	b.Open(path, "", "document.getElementById('flame').dataset.ready")
	// Under each phase, the folded Wasm frames, then <eval> in both.
	var firstRows [2][]string
	b.Eval(`['#flame-base', '#flame'].map(function (g) { return Array.from(document.querySelectorAll(g + ' .f')).filter(function (f) { return parseFloat(f.style.top) <= 3 * 18; })
		.map(function (f) { return f.dataset.name; }).filter(function (n, i, a) { return a.indexOf(n) === i; }); })`, &firstRows)
	for i, side := range []string{"base", "new"} {
		assert.Contains(t, firstRows[i], htmlview.FoldedWasmName, side)
		assert.Contains(t, firstRows[i], "<eval>", side)
		assert.Contains(t, firstRows[i], "phase: JS program", side)
	}
	if reporttest.Update() {
		b.Eval(`window.scrollTo(0, document.getElementById('flame-graph').getBoundingClientRect().top + window.scrollY - 10)`, nil)
		reporttest.SavePNG(t, reporttest.DocsImage("diff-html.png"), b.Screenshot(false))
	}
}
