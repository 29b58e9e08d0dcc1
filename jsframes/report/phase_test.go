package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestPhases: an exact profile's phase frames become the tables' phases,
// in the run's order whatever the stacks' order, those with instructions
// only; the summary view, its JSON and the HTML page show them, and they
// add up to the total.
func TestPhases(t *testing.T) {
	phase := jsprofile.PhaseFrame
	fn := jsprofile.JSFrame("main", "index.js", 1, 2, 0x100, 4)
	op := jsprofile.OpcodeFrame("get_field", 65)
	stacks := []wasmStack{
		{[]jsprofile.Frame{phase(jsprofile.PhaseJS), fn, op}, 300},
		{[]jsprofile.Frame{phase(jsprofile.PhaseEngine), jsprofile.BucketFrame(jsprofile.BucketOutside), wStart}, 40},
		{[]jsprofile.Frame{phase(jsprofile.PhaseStartup), jsprofile.BucketFrame(jsprofile.BucketOutside), wStart, wMain}, 100},
		{[]jsprofile.Frame{phase(jsprofile.PhaseInput), fn, jsprofile.CalledNativeFrame("ShopifyFunction.readInput")}, 60},
		{[]jsprofile.Frame{phase(jsprofile.PhaseOutput), fn}, 0},
	}
	d := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeExact}, stacks, 0)
	assert.Equal(t, []BucketCost{
		{Name: jsprofile.PhaseStartup, WasmInstructions: 100},
		{Name: jsprofile.PhaseInput, WasmInstructions: 60},
		{Name: jsprofile.PhaseJS, WasmInstructions: 300},
		{Name: jsprofile.PhaseEngine, WasmInstructions: 40},
	}, d.Phases)
	var sum uint64
	for _, p := range d.Phases {
		sum += p.WasmInstructions
	}
	assert.Equal(t, d.TotalWasmInstructions, sum)

	r, err := NewReport(d, ReportOptions{By: BySummary})
	require.NoError(t, err)
	var text, page bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Contains(t, text.String(), "phase                         wasm instr  share\nengine start-up                      100  20.0%\ninput decoding                        60  12.0%\nJS program                           300  60.0%\nengine, between and after JS          40   8.0%\n")
	require.NoError(t, r.WriteHTML(&page))
	assert.Equal(t, 4, strings.Count(page.String(), `<tr class="phase" `))
	assert.Contains(t, page.String(), `<tr class="phase" data-name="input decoding"><td class="name">input decoding</td><td title="60">60</td><td>12.0%</td>`)

	none := wasmProfile(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, wasmStacks(), 0)
	assert.Empty(t, none.Phases, "sample profiles have none")
}
