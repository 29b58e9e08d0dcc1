package htmlview

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// render loads page in headless Chromium, with no network, and returns
// the DOM it built and a screenshot, both from one load of the page.
func render(t *testing.T, page []byte) (dom string, shot image.Image) {
	t.Helper()
	bin := reporttest.Chromium(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(path, page, 0o644))
	shotPath := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,1800",
		"--dump-dom", "--screenshot="+shotPath, "file://"+path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	f, err := os.Open(shotPath)
	require.NoError(t, err, "chromium: %s", stderr.String())
	defer f.Close()
	shot, err = png.Decode(f)
	require.NoError(t, err)
	return stdout.String(), shot
}

// pixels counts the pixels of one colour (within a small tolerance).
func pixels(img image.Image, r, g, b uint8) int {
	n := 0
	near := func(a uint32, want uint8) bool {
		d := int(a>>8) - int(want)
		return d > -6 && d < 6
	}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr, r) && near(cg, g) && near(cb, b) {
				n++
			}
		}
	}
	return n
}

// rows returns the data-name of every <tr> of class class in dom.
func rows(dom, class string) []string {
	re := regexp.MustCompile(`<tr class="` + regexp.QuoteMeta(class) + `" data-name="([^"]*)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(dom, -1) {
		out = append(out, unescape(m[1]))
	}
	return out
}

func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&quot;", `"`).Replace(s)
}

// has checks that dom contains s, without printing the whole page.
func has(t *testing.T, dom, s string, msgAndArgs ...any) {
	t.Helper()
	if !strings.Contains(dom, s) {
		assert.Fail(t, fmt.Sprintf("the rendered page lacks %q", s), msgAndArgs...)
	}
}

// readFixture reads a fixture profile's tables (reporttest.ProfilePath).
func readFixture(t *testing.T, name string) *report.Tables {
	t.Helper()
	d, err := report.ReadFile(reporttest.ProfilePath(t, name))
	require.NoError(t, err)
	return d
}

// fixtureDiff compares the fixture profiles, fib.js on two engines.
func fixtureDiff(t *testing.T) *diff.Diff {
	t.Helper()
	return diff.New(readFixture(t, "fib-base.pb.gz"), readFixture(t, "fib-new.pb.gz"), "fib-base.pb.gz", "fib-new.pb.gz")
}

func TestHTMLReport(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	d := readFixture(t, "fib-base.pb.gz")
	r, err := report.NewReport(d, report.ReportOptions{Source: "fib-base.pb.gz"})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	reporttest.SelfContained(t, page.String())

	dom, shot := render(t, page.Bytes())
	has(t, dom, "<title>jsprof report: fib-base.pb.gz</title>")
	var ops, fns, lines []string
	for _, o := range d.Opcodes {
		ops = append(ops, o.Name)
	}
	for _, f := range d.Functions {
		fns = append(fns, f.Name)
	}
	assert.Equal(t, ops, rows(dom, "opcode"), "every opcode, by cost")
	assert.Equal(t, []string{"(native functions)", "(outside JS)"}, rows(dom, "bucket"))
	assert.Equal(t, fns, rows(dom, "function"))
	assert.Equal(t, []string{"fib", "<eval>", "fibLoop"}, fns)
	for _, l := range d.Lines {
		lines = append(lines, l.Label())
	}
	assert.Len(t, regexp.MustCompile(`<tr class="line" `).FindAllString(dom, -1), len(lines))
	// The first opcode row: call1, its name uncertain, 5.91M of 16.25M.
	assert.Regexp(t, `<tr class="opcode" data-name="call1" data-opcode="36"><td class="name">call1<span class="uncertain"[^>]*>\?</span></td><td title="21,892">21.9k</td><td title="5,911,000">5.91M</td><td>270.0</td><td>36.4%</td><td class="bars"><div class="bar" style="width: 100.00%;?"></div>`, dom)
	has(t, dom, "16,250,072")
	has(t, dom, `<details class="function-opcodes" data-name="fib" open="">`)
	has(t, dom, "name uncertain (opcode names source: aligned")
	// The bars are drawn: the opcode, function and line bars in blue.
	assert.Greater(t, pixels(shot, 0x3b, 0x6f, 0xd8), 5000, "blue cost bars on the screenshot")
}

func TestHTMLReportOneFunction(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	r, err := report.NewReport(readFixture(t, "fib-base.pb.gz"), report.ReportOptions{Function: "fibLoop", Top: 3})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	dom, _ := render(t, page.Bytes())
	assert.Equal(t, []string{"get_loc", "add", "inc_loc"}, rows(dom, "opcode"))
	has(t, dom, "… 2 more opcodes")
	assert.Equal(t, []string{"fibLoop"}, rows(dom, "function"))
	assert.Empty(t, rows(dom, "bucket"))
	has(t, dom, "Only the JS functions named <b>fibLoop</b>")
}

func TestHTMLDiff(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	df := fixtureDiff(t)
	var page bytes.Buffer
	require.NoError(t, WriteDiff(&page, df, DiffOptions{}))
	reporttest.SelfContained(t, page.String())

	dom, shot := render(t, page.Bytes())
	has(t, dom, "<title>jsprof diff: fib-base.pb.gz → fib-new.pb.gz</title>")
	var ops []string
	for _, o := range df.Opcodes {
		ops = append(ops, o.Name)
	}
	assert.Equal(t, ops, rows(dom, "opcode-change"), "every opcode of either engine, largest change first")
	assert.Equal(t, []string{"fib", "fibLoop", "<eval>"}, rows(dom, "function-change"))
	assert.Equal(t, []string{"(native functions)", "(outside JS)"}, rows(dom, "bucket-change"))
	has(t, dom, `<tr class="opcode-change" data-name="get_loc" data-in="base">`)
	has(t, dom, `<tr class="opcode-change" data-name="push_const8" data-in="new">`)
	has(t, dom, `<td class="down" title="-1,269,720">-1.27M</td>`, "call1's change")
	has(t, dom, `<td class="up" title="+262,716">+262.7k</td>`, "get_var's change")
	has(t, dom, fmt.Sprintf(`title="%s">%s</td>`, "-941,730", "-941.7k"), "the total change")
	summary := regexp.MustCompile(`(?s)<p class="summary" id="summary">(.*?)</p>`).FindStringSubmatch(dom)
	require.Len(t, summary, 2)
	assert.Equal(t, df.Summary, unescape(summary[1]))
	// Decreases in green, increases in red.
	assert.Greater(t, pixels(shot, 0x2e, 0x9e, 0x5b), 1000, "green bars for fewer instructions")
	assert.Greater(t, pixels(shot, 0xd6, 0x45, 0x45), 300, "red bars for more")
}

func TestHTMLDiffTop(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	var page bytes.Buffer
	require.NoError(t, WriteDiff(&page, fixtureDiff(t), DiffOptions{Top: 2}))
	dom, _ := render(t, page.Bytes())
	assert.Equal(t, []string{"call1", "(call setup)"}, rows(dom, "opcode-change"))
	has(t, dom, `… 17 more opcodes</td><td class="up" title="+239,889">+239.9k</td>`)
	assert.Equal(t, []string{"fib", "fibLoop"}, rows(dom, "function-change"))
	has(t, dom, `… 1 more functions</td><td class="down" title="-160">-160</td>`)
	assert.Equal(t, []string{"(native functions)", "(outside JS)"}, rows(dom, "bucket-change"), "buckets are never cut")
}

// TestHTMLCountsByMode: sampling mode counts no opcode executions and no
// calls, so its page leaves them out (no column of zeros, no "0 calls"
// on a card or in a tooltip); exact mode's page has them.
func TestHTMLCountsByMode(t *testing.T) {
	var src strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&src, "line%d();\n", i)
	}
	tests := []struct {
		mode    string
		stacks  []stackSpec
		counted bool
		card    string // the costliest opcode's card
	}{
		{jsprofile.ModeExact, smallStacks(), true, "10 executions, 10.0 instructions each"},
		{jsprofile.ModeSample, appStacks(), false, "42.0k Wasm instructions (sampled)"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			p := buildProfile(t, tt.mode, tt.stacks)
			r, err := report.NewReport(report.New(p), report.ReportOptions{Source: "app.pb.gz"})
			require.NoError(t, err)
			var page bytes.Buffer
			require.NoError(t, WriteReport(&page, r, ReportOptions{Flame: NewFlame(p, FlameOptions{}),
				Sources: []javy.SourceFile{{Name: "app.js", Text: []byte(src.String()), From: "--source app.js"}}}))
			html := page.String()
			assert.Equal(t, tt.counted, r.Data().Counted())
			for _, s := range []string{"<th>executions</th>", "<th>calls</th>", "<th>instr/exec</th>", " JS calls, "} {
				assert.Equal(t, tt.counted, strings.Contains(html, s), "%s", s)
			}
			// The source lines' tooltips.
			assert.Equal(t, tt.counted, regexp.MustCompile(`title="[^"]*with what it called, [\d,]+ opcode executions"`).MatchString(html))
			assert.Regexp(t, `id="hot-opcode"[^\n]*<span class="sub">`+regexp.QuoteMeta(tt.card)+`</span>`, html)
			if !tt.counted {
				for _, zero := range []string{"0 calls", "0 executions", "0 opcode executions", "- instructions each"} {
					assert.NotContains(t, html, zero)
				}
				assert.Contains(t, html, "sample mode (it counts no opcode executions or calls: --mode exact does)")
			}
		})
	}
}
