package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestPhases: an exact profile's phase frames become the tables' phases,
// in the run's order whatever the stacks' order, those with instructions
// only; the summary view shows them (the HTML page too: htmlview's
// TestPhasesHTML), and they add up to the total.
func TestPhases(t *testing.T) {
	d := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeExact}, reporttest.PhaseStacks(), 0)
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
	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Contains(t, text.String(), "phase                         wasm instr  share\nengine start-up                      100  20.0%\ninput decoding                        60  12.0%\nJS program                           300  60.0%\nengine, between and after JS          40   8.0%\n")

	none := wasmTables(t, jsprofile.Meta{Mode: jsprofile.ModeSample, SampleEvery: 10}, reporttest.WasmStacks(), 0)
	assert.Empty(t, none.Phases, "sample profiles have none")
}
