package report_test

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

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
	"github.com/jsprof/jsprof/wasmcore"
)

// cartModule builds fixtures/js/cart.js with the pinned QuickJS-NG Javy
// plugin into a static module that, as the Javy CLI's do, carries its JS
// Brotli-compressed in a javy_source section (and, as jsprof build's do,
// the name of its file).
func cartModule(t *testing.T) (module, src []byte) {
	t.Helper()
	ctx := context.Background()
	wasm := fixtures.EngineBytes(t, "javy-plugin-1.7.0")
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	plugin, err := javy.Inspect(m)
	require.NoError(t, err)
	src, err = os.ReadFile(fixtures.Path("js", "cart.js"))
	require.NoError(t, err)
	bc, err := javy.Compile(ctx, plugin, wasm, src, fixtures.CompilationCache(t))
	require.NoError(t, err)
	static, err := javy.BuildStatic(ctx, wasm, plugin, bc, fixtures.CompilationCache(t))
	require.NoError(t, err)
	var compressed bytes.Buffer
	w := brotli.NewWriterLevel(&compressed, brotli.BestCompression)
	_, err = w.Write(src)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	module = wasmcore.AppendCustomSection(static, report.JavySourceSection, compressed.Bytes())
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
	if testing.Short() {
		t.Skip("builds and profiles cart.js")
	}
	module, src := cartModule(t)
	source, err := report.ModuleSource(module, "cart.wasm")
	require.NoError(t, err, "the javy_source section reads back")
	assert.Equal(t, "cart.js", source.Name, "named by jsprof.source")
	assert.Equal(t, string(src), string(source.Text))
	srcLines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	b := report.NewBrowser(t, 1280, 800)

	for _, mode := range []profiler.Mode{profiler.Exact, profiler.Sample} {
		t.Run(string(mode), func(t *testing.T) {
			var stdout bytes.Buffer
			out, res, err := profiler.Profile(context.Background(), module,
				runner.Options{Name: "cart.wasm", Stdout: &stdout, Cache: fixtures.CompilationCache(t), Deterministic: true},
				profiler.Options{Mode: mode, SampleEvery: 50_000})
			require.NoError(t, err)
			require.Nil(t, res.Trap)
			want, err := os.ReadFile(fixtures.Path("js", "cart.expected"))
			require.NoError(t, err)
			assert.Equal(t, string(want), stdout.String())
			jp, err := jsprofile.Read(out.Profile)
			require.NoError(t, err)
			tables := report.New(jp)
			flame := report.NewFlame(jp, report.FlameOptions{})
			r, err := report.NewReport(tables, report.ReportOptions{Source: "cart-" + string(mode) + ".pb.gz"})
			require.NoError(t, err)
			var page bytes.Buffer
			require.NoError(t, r.WriteHTMLWith(&page, report.HTMLOptions{Flame: flame, Sources: []report.SourceFile{source}}))
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
			assert.LessOrEqual(t, hot.FlameNative, 800.0, "and in the flame graph, on the first screen")

			named := false
			for _, n := range flame.Natives {
				named = named || n.Named
			}
			t.Logf("hottest line %s (%.1f%%), heaviest native %s (named natives: %v)", hot.Line, 100*hottest.Share, hot.Native, named)
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
			}
			b.Eval(`(function () { var h = document.querySelector('.source .sl.hottest');
				return {Lines: document.querySelectorAll('.source .sl').length, Hottest: h.dataset.line, Instr: h.dataset.instr}; })()`, &view)
			assert.Equal(t, len(srcLines), view.Lines)
			assert.Equal(t, fmt.Sprint(hottest.Line), view.Hottest)
			var lineInstr uint64
			for _, l := range tables.Lines {
				if l.File == hottest.File && l.Line == hottest.Line {
					lineInstr += l.WasmInstructions
				}
			}
			assert.Equal(t, fmt.Sprint(lineInstr), view.Instr)

			if report.Update() {
				shots(t, b, mode, path)
			}
		})
	}
}

// shots takes the documentation's screenshots: the first screen of the
// exact-mode report and its source view; the sampling-mode flame graph,
// zoomed into the cart function.
func shots(t *testing.T, b *report.Browser, mode profiler.Mode, path string) {
	if mode == profiler.Exact {
		report.SavePNG(t, report.DocsImage("report-html.png"), b.Screenshot(false))
		b.Eval(`(function () { var h = document.querySelector('.source .sl.hottest'); window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 380); })()`, nil)
		report.SavePNG(t, report.DocsImage("report-source.png"), b.Screenshot(false))
		return
	}
	r := b.Rect(`#flame .f[data-name="run"]`)
	b.Click(r.X+r.Width/2, r.Y+r.Height/2)
	b.Eval(`window.scrollTo(0, document.getElementById('flame-graph').getBoundingClientRect().top + window.scrollY - 10)`, nil)
	report.SavePNG(t, report.DocsImage("report-flame.png"), b.Screenshot(false))
}
