package htmlview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestReportWasmHTML: the report page lists the Wasm functions, then the
// view's buckets, each with what reached it; a profile without Wasm
// frames has no such table.
func TestReportWasmHTML(t *testing.T) {
	d, err := report.FromProfile(reporttest.WasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, reporttest.WasmStacks(), 0))
	require.NoError(t, err)
	r, err := report.NewReport(d, report.ReportOptions{Top: 3})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	html := page.String()
	assert.Equal(t, 3+len(d.WasmBuckets), strings.Count(html, `<tr class="wasm-function" `))
	assert.Contains(t, html, `<tr class="wasm-function" data-name="FindShape" data-kind="wasm"><td class="name">FindShape</td><td title="120">120</td>`)
	assert.Contains(t, html, `<span title="100 Wasm instructions">op:get_field</span>, <span title="20 Wasm instructions">JSON.parse (native)</span></td>`)
	assert.Contains(t, html, `… 6 more Wasm functions`)
	assert.Contains(t, html, `data-name="(interpreter loop)" data-kind="interpreter"`)

	r, err = report.NewReport(readFixture(t, "fib-base.pb.gz"), report.ReportOptions{})
	require.NoError(t, err)
	page.Reset()
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	assert.NotContains(t, page.String(), `id="wasm"`)
}

// TestPhasesHTML: the report page shows an exact profile's phases, in the
// run's order, those with instructions only.
func TestPhasesHTML(t *testing.T) {
	d, err := report.FromProfile(reporttest.WasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeExact}, reporttest.PhaseStacks(), 0))
	require.NoError(t, err)
	r, err := report.NewReport(d, report.ReportOptions{By: report.BySummary})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	assert.Equal(t, 4, strings.Count(page.String(), `<tr class="phase" `))
	assert.Contains(t, page.String(), `<tr class="phase" data-name="input decoding"><td class="name">input decoding</td><td title="60">60</td><td>12.0%</td>`)
}

// TestInputCostHTML: with jsprof run --input-cost's measurements the page
// has a section per input, a row per path with what its removal saved
// and the output without it, and what the figures do not say; without
// them, none.
func TestInputCostHTML(t *testing.T) {
	d, err := report.FromProfile(reporttest.WasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeExact}, reporttest.PhaseStacks(), 0))
	require.NoError(t, err)
	r, err := report.NewReport(d, report.ReportOptions{By: report.BySummary})
	require.NoError(t, err)
	cost := []report.InputCost{{Input: "cart.json", Decoding: 60, Total: 500, Limit: 11_000_000, TopLevel: 58, Paths: []report.PathCost{
		{Path: "cart", TopLevel: true, Saved: 58, OfDecoding: 58.0 / 60, Output: report.OutputFailed},
		{Path: "cart.lines[].tags", Saved: 20, OfDecoding: 20.0 / 60, Bytes: 31, Output: report.OutputUnchanged, Query: "src/run.graphql:9: tags"},
	}}}
	var page bytes.Buffer
	require.NoError(t, WriteReport(&page, r, ReportOptions{InputCost: cost}))
	html := page.String()
	assert.Contains(t, html, `<h2 id="input-cost">What each field of cart.json costs to decode</h2>`)
	assert.Equal(t, 2, strings.Count(html, `<tr class="input-path" `))
	assert.Contains(t, html, `<tr class="input-path" data-path="cart.lines[].tags" data-output="unchanged"><td class="name">cart.lines[].tags <span class="meta">(src/run.graphql:9: tags)</span></td><td title="20">20</td><td>33.3%</td>`)
	assert.Contains(t, html, "Removals are not additive: the top-level paths save 58 together, against 60 of input decoding.")

	page.Reset()
	require.NoError(t, WriteReport(&page, r, ReportOptions{}))
	assert.NotContains(t, page.String(), `id="input-cost"`)
}
