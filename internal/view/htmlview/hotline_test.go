package htmlview

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/internal/view/report"
)

// TestHottestLinePassesTheEntry: the first screen's hottest line (total)
// is not the entry line that runs nearly everything (issue 39: a Shopify
// Function's run(userFunction?.default), 99.1%), but the first line that
// does not pass nearly all of its cost on to a line of another function;
// the entry is named beside it.
func TestHottestLinePassesTheEntry(t *testing.T) {
	t.Parallel()
	line := func(fn string, n int, total uint64) report.LineStats {
		return report.LineStats{Function: fn, File: "index.js", Line: n, TotalWasmInstructions: total}
	}
	tests := []struct {
		name        string
		lines       []report.LineStats
		want, entry string
	}{
		{"the entry, run, then the user's loop", []report.LineStats{line("<eval>", 90, 991), line("run", 40, 960), line("cartLinesDiscountsGenerateRun", 12, 600), line("run", 38, 300)},
			"index.js:40", "index.js:90"},
		{"two lines of one function stay", []report.LineStats{line("<eval>", 79, 500), line("<eval>", 80, 480), line("makeInput", 44, 300)},
			"index.js:79", ""},
		{"no line passes all on", []report.LineStats{line("<eval>", 12, 180), line("render", 21, 100)},
			"index.js:12", ""},
		{"zero totals first are skipped", []report.LineStats{line("<eval>", 1, 0), line("f", 2, 0)}, "", ""},
		{"every line passes on: the last", []report.LineStats{line("<eval>", 1, 100), line("f", 2, 99), line("g", 3, 98)},
			"index.js:3", "index.js:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hot, through := hottestLine(tt.lines)
			got := ""
			if hot != nil {
				got = hot.Label()
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.entry, through)
		})
	}
}
