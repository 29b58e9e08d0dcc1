package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestFunctionSummaryUnits: the summary says what function-runner's
// Benchmark Results say, in its units: instructions as humanize_instructions
// prints them, linear memory in whole KB (bytes/1024), sizes as
// humanize_size prints them (binary units, two decimals).
func TestFunctionSummaryUnits(t *testing.T) {
	instructions := []struct {
		n    uint64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1K"}, {1001, "1.001K"}, {172_809, "172.809K"}, {999_999, "999.999K"},
		{1_200_000, "1.2M"}, {11_000_000, "11M"}, {11_000_001, "11.000001M"}, {1_000_000_000, "1B"},
	}
	for _, tt := range instructions {
		assert.Equal(t, tt.want, HumanInstructions(tt.n), "%d instructions", tt.n)
	}
	sizes := []struct {
		n    uint64
		want string
	}{
		{0, "0B"}, {142, "142B"}, {1023, "1023B"}, {1024, "1.00KB"},
		{1152, "1.12KB"}, // 1.125: a tie, rounded to even as Rust's {:.2}
		{20_000, "19.53KB"}, {128_000, "125.00KB"}, {1 << 20, "1.00MB"}, {3 << 29, "1.50GB"},
	}
	for _, tt := range sizes {
		assert.Equal(t, tt.want, HumanSize(tt.n), "%d bytes", tt.n)
	}

	tests := []struct {
		name         string
		instructions uint64
		costModel    string
		info         jsprofile.RunInfo
		want         string
	}{
		{"counted", 172_809, "fuel",
			jsprofile.RunInfo{Export: "_start", Provider: "shopify_functions_javy_v4", Codec: "messagepack", MemoryBytes: 1_376_256, InputBytes: 142, OutputBytes: 94, StartupInstructions: 731, FinishInstructions: 59},
			"jsprof: _start (shopify_functions_javy_v4, messagepack): Instructions: 172.809K (fuel) of 11M; Linear Memory Usage: 1344KB; Input Size: 142B of 125.00KB; Output Size: 94B of 19.53KB\n" +
				"jsprof: not counted, as function-runner does not: 731 instructions before the call (provider set-up, input), 59 after it (output)\n"},
		{"over every limit", 12_345_678, "all",
			jsprofile.RunInfo{Export: "run", Provider: "shopify_function_v2", Codec: "messagepack", MemoryBytes: 1 << 20, InputBytes: 200_000, OutputBytes: 20_001},
			"jsprof: run (shopify_function_v2, messagepack): Instructions: 12.345678M (all) of 11M — OVER THE LIMIT; Linear Memory Usage: 1024KB; Input Size: 195.31KB of 125.00KB — OVER THE LIMIT; Output Size: 19.53KB of 19.53KB — OVER THE LIMIT\n"},
		{"not counted", 0, "",
			jsprofile.RunInfo{Export: "_start", Provider: "javy_quickjs_provider_v1", Codec: "json", MemoryBytes: 1_310_720, InputBytes: 182, OutputBytes: 108},
			"jsprof: _start (javy_quickjs_provider_v1, json): Instructions: not counted (--mode off); Linear Memory Usage: 1280KB; Input Size: 182B of 125.00KB; Output Size: 108B of 19.53KB\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut strings.Builder
			WriteFunctionSummary(&errOut, tt.instructions, tt.costModel, tt.info, "--mode off", nil)
			assert.Equal(t, tt.want, errOut.String())
		})
	}
}

// TestScaledLimits: limits scaled by @scaleLimits read "of 11M × 2.5 =
// 27.5M" in the summary, in what --fail-over-limit says and in the
// several-input table, whose share is then of each input's own limit;
// unscaled limits read as before (the negative control).
func TestScaledLimits(t *testing.T) {
	t.Parallel()
	scaled := shopify.Limits(2.5, 200_000, 100)
	scaled.InstructionsOver = true
	info := jsprofile.RunInfo{Export: "_start", Provider: "shopify_functions_javy_v4", Codec: "messagepack", MemoryBytes: 1 << 20, InputBytes: 200_000, OutputBytes: 100, Limits: scaled}
	var out strings.Builder
	WriteFunctionSummary(&out, 30_000_000, "fuel", info, "", nil)
	assert.Equal(t, "jsprof: _start (shopify_functions_javy_v4, messagepack): Instructions: 30M (fuel) of 11M × 2.5 = 27.5M — OVER THE LIMIT; Linear Memory Usage: 1024KB; "+
		"Input Size: 195.31KB of 125.00KB × 2.5 = 312.50KB; Output Size: 100B of 19.53KB × 2.5 = 48.83KB\n", out.String())
	assert.Equal(t, "over the limit: Instructions 30M of 11M × 2.5 = 27.5M", OverLimit(30_000_000, info))
	plain := shopify.Limits(1, 200_000, 100)
	assert.False(t, plain.Scaled())
	info.Limits = plain
	out.Reset()
	WriteFunctionSummary(&out, 30_000_000, "fuel", info, "", nil)
	assert.Contains(t, out.String(), "Instructions: 30M (fuel) of 11M — OVER THE LIMIT; ")
	assert.Contains(t, out.String(), "Input Size: 195.31KB of 125.00KB — OVER THE LIMIT; ")

	out.Reset()
	WriteInputsTable(&out, []InputRun{
		{Input: "big.json", TotalWasmInstructions: 13_750_000, Limits: scaled},
		{Input: "small.json", TotalWasmInstructions: 5_500_000, Limits: plain},
	}, nil)
	assert.Equal(t, "input       instructions  of limit  limit                memory      input     output  exit  over the limit\n"+
		"big.json          13.75M     50.0%  11M × 2.5 = 27.5M       0KB         0B         0B     0  instructions\n"+
		"small.json          5.5M     50.0%  11M                     0KB         0B         0B     0  input\n", out.String())
	out.Reset()
	WriteInputsTable(&out, []InputRun{{Input: "small.json", TotalWasmInstructions: 5_500_000, Limits: plain}}, nil)
	assert.Equal(t, "input       instructions   of 11M    memory      input     output  exit  over the limit\n"+
		"small.json          5.5M    50.0%       0KB         0B         0B     0  input\n", out.String())
}
