package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/jsprof/jsprof/internal/printable"
)

// What a function's output was on an input without a path (PathCost.Output).
const (
	OutputUnchanged = "unchanged"
	OutputChanged   = "changed"
	OutputFailed    = "function failed"
)

// InputCost is what each field path of one input costs a Shopify
// Function to decode (jsprof run --input-cost; package inputcost measures
// it): each path's figure is what a run on the same input without that
// path (from every element of an array) saved in the input-decoding
// phase. Removals are not additive: each is measured alone.
type InputCost struct {
	Input string `json:"input"` // the path as given
	// Decoding and Total are the run's on the whole input: its
	// input-decoding phase and all its instructions.
	Decoding   uint64 `json:"input_decoding_wasm_instructions"`
	Total      uint64 `json:"total_wasm_instructions"`
	Limit      uint64 `json:"instruction_limit"`
	InputBytes uint64 `json:"input_bytes"` // the JSON input's
	// Paths are the paths measured, the costliest first.
	Paths []PathCost `json:"paths"`
	// TopLevel sums the savings of the top-level paths, each removed
	// alone: set beside Decoding, it shows how far removals are from
	// adding up.
	TopLevel int64 `json:"top_level_sum_wasm_instructions"`
	// Small counts the paths under MinShare of the input's bytes, not
	// measured; LeftOut those over it left out by the cap on runs.
	Small    int     `json:"paths_under_min_share"`
	MinShare float64 `json:"min_share_of_input_bytes"`
	LeftOut  int     `json:"paths_left_out"`
	// Error is why the input was not measured ("" when it was); Failed
	// says the function failed on the whole input already.
	Error  string `json:"error,omitempty"`
	Failed bool   `json:"function_failed,omitempty"`
}

// PathCost is one path of an input (cart.lines[].merchandise.product.tags:
// [] is every element of an array) and what its removal saved.
type PathCost struct {
	Path     string `json:"path"`
	TopLevel bool   `json:"top_level"`
	Bytes    uint64 `json:"bytes"` // what its removal takes out of the JSON input
	// Saved is the input-decoding phase's instructions saved without
	// the path; TotalSaved the whole run's.
	Saved      int64   `json:"input_decoding_saved"`
	TotalSaved int64   `json:"total_saved"`
	OfDecoding float64 `json:"share_of_input_decoding"` // Saved against Decoding, 0-1
	OfLimit    float64 `json:"share_of_limit"`          // Saved against the instruction limit, 0-1
	// Output is the function's output on the input without the path
	// against its output on the whole input: OutputUnchanged,
	// OutputChanged or OutputFailed. It is about this input only.
	Output string `json:"output"`
	// Query is the input query's field the path comes from (file:line
	// and the field), when the query is known.
	Query string `json:"query_field,omitempty"`
	Error string `json:"error,omitempty"` // the run without it could not be made
}

// WithCostliest is facts with, in each input's CostliestPath and
// CostliestSaved, its costliest path of costs (by input) whose removal
// left the output unchanged.
func WithCostliest(facts []InputRun, costs []InputCost) []InputRun {
	if len(costs) == 0 {
		return facts
	}
	by := map[string]*InputCost{}
	for i := range costs {
		by[costs[i].Input] = &costs[i]
	}
	out := make([]InputRun, len(facts))
	for i, f := range facts {
		if c := by[f.Input]; c != nil {
			for _, p := range c.Paths {
				if p.Output == OutputUnchanged && p.Error == "" && (f.CostliestPath == "" || p.Saved > f.CostliestSaved) {
					f.CostliestPath, f.CostliestSaved = p.Path, p.Saved
				}
			}
		}
		out[i] = f
	}
	return out
}

// HumanSaving is HumanInstructions of what a removal saved, with a minus
// for what it cost instead.
func HumanSaving(n int64) string {
	if n < 0 {
		return "-" + HumanInstructions(uint64(-n))
	}
	return HumanInstructions(uint64(n))
}

// WriteInputCost writes, on w (stderr), the table of each input of
// costs: its paths, the costliest first, with what the figures mean and
// do not.
func WriteInputCost(w io.Writer, costs []InputCost) {
	for _, c := range costs {
		writeInputCost(w, c)
	}
}

func writeInputCost(w io.Writer, c InputCost) {
	name := printable.Name(c.Input)
	if c.Error != "" {
		fmt.Fprintf(w, "jsprof: input cost of %s: %s\n", name, printable.String(c.Error))
		return
	}
	fmt.Fprintf(w, "jsprof: input cost of %s: input decoding %s of %s instructions (%.1f%%; %.1f%% of the %s limit), %s of JSON input\n",
		name, HumanInstructions(c.Decoding), HumanInstructions(c.Total), percent(c.Decoding, c.Total),
		percent(c.Decoding, c.Limit), HumanInstructions(c.Limit), HumanSize(c.InputBytes))
	if c.Failed {
		fmt.Fprintf(w, "jsprof: the function failed on the whole input: every row compares failures\n")
	}
	width := len("path")
	for _, p := range c.Paths {
		width = max(width, len(printable.String(p.Path)))
	}
	fmt.Fprintf(w, "%-*s  %9s  %11s  %7s  %9s  %10s  %s\n", width, "path", "saves", "of decoding", "of "+HumanInstructions(c.Limit), "bytes", "run saves", "output without it")
	for _, p := range c.Paths {
		out := p.Output
		if p.Error != "" {
			out = printable.String(p.Error)
		}
		if p.Query != "" {
			out += "  (query: " + printable.String(p.Query) + ")"
		}
		fmt.Fprintf(w, "%-*s  %9s  %10.1f%%  %6.1f%%  %9s  %10s  %s\n", width, printable.String(p.Path), HumanSaving(p.Saved),
			p.OfDecoding*100, p.OfLimit*100, HumanSize(p.Bytes), HumanSaving(p.TotalSaved), out)
	}
	var top []string
	for _, p := range c.Paths {
		if p.TopLevel {
			top = append(top, printable.String(p.Path))
		}
	}
	fmt.Fprintf(w, "Each row is what one run without that path (from every element of []) saved, measured; removals are not additive: the top-level paths (%s) save %s together, against %s of input decoding.\n",
		strings.Join(top, ", "), HumanSaving(c.TopLevel), HumanInstructions(c.Decoding))
	fmt.Fprintf(w, "\"unchanged\" is about this input only: the function may still read that field on another input.\n")
	if c.Small > 0 || c.LeftOut > 0 {
		fmt.Fprintf(w, "Not measured: %d paths under %.0f%% of the input's bytes; %d over it left out to keep the runs bounded.\n", c.Small, c.MinShare*100, c.LeftOut)
	}
}

// percent is n of d in percent (0 when d is 0).
func percent(n, d uint64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d) * 100
}
