package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWriteInputCost: the table's rows in the order given (the costliest
// first), each with what removing it saved and the output without it,
// then what the figures do not say: not additive (the top-level sum
// beside the decoding total), "unchanged" for this input only, and the
// paths not measured. A failed input is its one line.
func TestWriteInputCost(t *testing.T) {
	t.Parallel()
	c := InputCost{Input: "cart.json", Decoding: 1_200_000, Total: 2_000_000, Limit: 11_000_000, InputBytes: 4096, TopLevel: 1_150_000,
		Small: 3, MinShare: 0.01, LeftOut: 2,
		Paths: []PathCost{
			{Path: "cart", TopLevel: true, Saved: 1_150_000, TotalSaved: 1_900_000, OfDecoding: 0.958, OfLimit: 0.105, Bytes: 4000, Output: OutputFailed},
			{Path: "cart.lines[].merchandise.product.tags", Saved: 300_000, TotalSaved: 301_000, OfDecoding: 0.25, OfLimit: 0.027, Bytes: 900, Output: OutputUnchanged, Query: "src/run.graphql:12: tags"},
			{Path: "cart.lines[].quantity", Saved: -5, Bytes: 90, Output: OutputChanged},
		}}
	var b strings.Builder
	WriteInputCost(&b, []InputCost{c, {Input: "bad.json", Error: "bad.json: not a JSON document"}})
	out := b.String()
	t.Log(out)
	assert.Contains(t, out, "jsprof: input cost of cart.json: input decoding 1.2M of 2M instructions (60.0%; 10.9% of the 11M limit), 4.00KB of JSON input\n")
	assert.Regexp(t, `(?m)^cart\s+1\.15M\s+95\.8%\s+10\.5%\s+3\.91KB\s+1\.9M\s+function failed$`, out)
	assert.Regexp(t, `(?m)^cart\.lines\[\]\.merchandise\.product\.tags\s+300K\s+25\.0%\s+2\.7%\s+900B\s+301K\s+unchanged  \(query: src/run\.graphql:12: tags\)$`, out)
	assert.Regexp(t, `(?m)^cart\.lines\[\]\.quantity\s+-5\s.*changed$`, out, "a removal that cost instructions says so")
	assert.Less(t, strings.Index(out, "\ncart "), strings.Index(out, "\ncart.lines[].merchandise"), "in the order given")
	assert.Contains(t, out, "removals are not additive: the top-level paths (cart) save 1.15M together, against 1.2M of input decoding.")
	assert.Contains(t, out, `"unchanged" is about this input only`)
	assert.Contains(t, out, "Not measured: 3 paths under 1% of the input's bytes; 2 over it left out")
	assert.Contains(t, out, "jsprof: input cost of bad.json: bad.json: not a JSON document\n")

	// Negative control: all measured, nothing said left out.
	b.Reset()
	c.Small, c.LeftOut = 0, 0
	WriteInputCost(&b, []InputCost{c})
	assert.NotContains(t, b.String(), "Not measured")
}

// TestWithCostliest: each input's row gets, by input, its costliest path
// whose removal left the output unchanged (never one that changed it,
// however costly); an input without one (or no costs at all) is left as
// it was.
func TestWithCostliest(t *testing.T) {
	t.Parallel()
	facts := []InputRun{{Input: "a.json"}, {Input: "b.json"}, {Input: "c.json"}}
	costs := []InputCost{
		{Input: "b.json", Paths: []PathCost{{Path: "cart", Saved: 20, Output: OutputFailed}, {Path: "cart.lines[].id", Saved: 12, Output: OutputChanged},
			{Path: "cart.lines[].tags", Saved: 9, Output: OutputUnchanged}, {Path: "cart.lines[].title", Saved: 3, Output: OutputUnchanged}}},
		{Input: "c.json", Error: "not JSON"},
	}
	got := WithCostliest(facts, costs)
	assert.Equal(t, []InputRun{{Input: "a.json"}, {Input: "b.json", CostliestPath: "cart.lines[].tags", CostliestSaved: 9}, {Input: "c.json"}}, got)
	assert.Empty(t, facts[1].CostliestPath, "facts are not changed")
	assert.Equal(t, facts, WithCostliest(facts, nil))
}
