package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// discountCart writes a cart discount's input of n lines, as a Shopify
// input query's response (compact JSON, the query's order): each line's
// id, quantity, cost and merchandise, whose product has a title and,
// unless noTags, tags.
func discountCart(t *testing.T, dir string, n int, noTags bool) string {
	t.Helper()
	type product struct {
		Title string   `json:"title"`
		Tags  []string `json:"tags,omitempty"`
	}
	type line struct {
		ID       string         `json:"id"`
		Quantity int            `json:"quantity"`
		Cost     map[string]any `json:"cost"`
		Merch    struct {
			Typename string  `json:"__typename"`
			ID       string  `json:"id"`
			Product  product `json:"product"`
		} `json:"merchandise"`
	}
	lines := make([]line, n)
	for i := range lines {
		l := &lines[i]
		l.ID, l.Quantity = fmt.Sprintf("gid://shopify/CartLine/%d", i+1), i%3+1
		l.Cost = map[string]any{"amountPerQuantity": map[string]string{"amount": fmt.Sprintf("%d.00", 10+i), "currencyCode": "CAD"}}
		l.Merch.Typename, l.Merch.ID = "ProductVariant", fmt.Sprintf("gid://shopify/ProductVariant/%d", i+1)
		l.Merch.Product = product{Title: fmt.Sprintf("Product %d", i)}
		if !noTags {
			l.Merch.Product.Tags = []string{"summer", "sale", fmt.Sprintf("collection-%d", i)}
		}
	}
	b, err := json.Marshal(map[string]any{"cart": map[string]any{"lines": lines}})
	require.NoError(t, err)
	path := filepath.Join(dir, fmt.Sprintf("cart-%d-tags-%v.json", n, !noTags))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// decoding is a report's input-decoding phase.
func (r runReport) decoding() uint64 {
	for _, p := range r.Phases {
		if p.Name == jsprofile.PhaseInput {
			return p.WasmInstructions
		}
	}
	return 0
}

// pathCost is the row of path in c (fails the test when it has none).
func pathCost(t *testing.T, c report.InputCost, path string) report.PathCost {
	t.Helper()
	for _, p := range c.Paths {
		if p.Path == path {
			return p
		}
	}
	require.Failf(t, "no row", "%s has no row for %s", c.Input, path)
	return report.PathCost{}
}

// discountQuery is discountCart's input query.
const discountQuery = `query RunInput {
  cart {
    lines {
      id
      quantity
      cost { amountPerQuantity { amount currencyCode } }
      merchandise {
        __typename
        ... on ProductVariant { id product { title tags } }
      }
    }
  }
}
`

// TestInputCost (issue 41): on a cart discount that reads its lines'
// quantities and ids only, built static and dynamic for the JSON
// provider (Javy.IO and JSON.parse) and the MessagePack ones
// (ShopifyFunction.readInput), --input-cost reports the products' tags
// with what decoding them costs and "unchanged"; the fields it reads as
// "changed", or "function failed" for the cart itself; and the same
// input with the tags removed by hand decodes in exactly the reported
// figure fewer instructions. The text table says the figures are not
// additive, names each path's line of the input query (--query-path),
// and the several-input table has each input's costliest path.
func TestInputCost(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	shopifyJS := filepath.Join("testdata", "shopify", "cart_discount.js")
	javyIO := filepath.Join("testdata", "shopify", "cart_discount_io.js")
	inputs := t.TempDir()
	full, noTags := discountCart(t, inputs, 12, false), discountCart(t, t.TempDir(), 12, true)
	tests := []struct {
		provider, js string
		static       bool
	}{
		{"javy_quickjs_provider_v1", javyIO, false},
		{"javy_quickjs_provider_v1", javyIO, true},
		{"shopify_functions_javy_v3", shopifyJS, false},
		{"shopify_functions_javy_v3", shopifyJS, true},
		{"shopify_functions_javy_v4", shopifyJS, false},
		{"shopify_functions_javy_v4", shopifyJS, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/static=%v", tt.provider, tt.static), func(t *testing.T) {
			t.Parallel()
			module := buildFunction(t, tt.provider, tt.js)
			if tt.static {
				module = buildStatic(t, tt.provider, tt.js)
			}
			doc := filepath.Join(t.TempDir(), "report.json")
			got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", full, "--input-cost", "--report-json", doc, module)
			require.Equal(t, 0, got.code, got.stderr)
			rep := readRunReport(t, doc)
			require.Len(t, rep.InputCost, 1)
			c := rep.InputCost[0]
			require.Empty(t, c.Error)
			assert.Equal(t, rep.decoding(), c.Decoding, "the decoding phase the profile of the same run reports")
			assert.Positive(t, c.Decoding)

			tags := pathCost(t, c, "cart.lines[].merchandise.product.tags")
			assert.Equal(t, report.OutputUnchanged, tags.Output, "the discount never reads a product's tags")
			assert.Positive(t, tags.Saved)
			assert.InDelta(t, float64(tags.Saved)/float64(c.Decoding), tags.OfDecoding, 1e-9)
			assert.InDelta(t, float64(tags.Saved)/11e6, tags.OfLimit, 1e-9)
			assert.Equal(t, report.OutputChanged, pathCost(t, c, "cart.lines[].quantity").Output, "the discount counts the items")
			assert.Equal(t, report.OutputChanged, pathCost(t, c, "cart.lines[].id").Output, "the discount targets the lines by id")
			assert.Equal(t, report.OutputFailed, pathCost(t, c, "cart").Output, "without the cart the function throws")
			for i := 1; i < len(c.Paths); i++ {
				assert.GreaterOrEqual(t, c.Paths[i-1].Saved, c.Paths[i].Saved, "the costliest first")
			}

			// By hand: the same input without the tags decodes in
			// exactly tags.Saved fewer instructions.
			fullBytes, err := os.ReadFile(full)
			require.NoError(t, err)
			noTagsBytes, err := os.ReadFile(noTags)
			require.NoError(t, err)
			assert.Equal(t, uint64(len(fullBytes)-len(noTagsBytes)), tags.Bytes)
			byHand := filepath.Join(t.TempDir(), "report.json")
			got = jsprof(t, "", "run", "-q", "--plugin", dir, "--input", noTags, "--report-json", byHand, module)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, int64(c.Decoding)-int64(readRunReport(t, byHand).decoding()), tags.Saved, "removed by hand, the input decodes in what --input-cost said it saves")
		})
	}

	t.Run("text and several inputs", func(t *testing.T) {
		t.Parallel()
		module := buildFunction(t, "shopify_functions_javy_v4", shopifyJS)
		query := filepath.Join(t.TempDir(), "run.graphql")
		require.NoError(t, os.WriteFile(query, []byte(discountQuery), 0o644))
		got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", full, "--input-cost=6", "--query-path", query, module)
		require.Equal(t, 0, got.code, got.stderr)
		assert.Regexp(t, `(?m)^cart\.lines\[\]\.merchandise\s+\S+\s+\S+%\s+\S+%\s+\S+\s+\S+\s+unchanged  \(query: `+regexp.QuoteMeta(query)+`:7: merchandise\)$`, got.stderr, "the query's line of the field")
		assert.Contains(t, got.stderr, "jsprof: input cost of "+full+": input decoding ")
		assert.Contains(t, got.stderr, "removals are not additive: the top-level paths (cart) save ")
		assert.Contains(t, got.stderr, `"unchanged" is about this input only`)
		assert.Regexp(t, `Not measured: \d+ paths under 1% of the input's bytes; [1-9]\d* over it left out`, got.stderr, "=6 leaves paths out, and says so")

		discountCart(t, inputs, 3, false)
		doc, page := filepath.Join(t.TempDir(), "report.json"), filepath.Join(t.TempDir(), "report.html")
		got = jsprof(t, "", "run", "--plugin", dir, "--input", inputs, "--input-cost=4", "--report-json", doc, "--html", page, module)
		require.Equal(t, 0, got.code, got.stderr)
		html := readFileText(t, page)
		assert.Equal(t, 2, strings.Count(html, `<h2 id="input-cost`), "the page has a section per input")
		assert.Contains(t, html, `<h2 id="input-cost-1">`, "each with an id of its own")
		assert.Equal(t, 8, strings.Count(html, `<tr class="input-path" `))
		rows := regexp.MustCompile(`(?m)^\S+cart-\d+-tags-true\.json\s.*\s(cart\S*) \((\S+)\)$`).FindAllStringSubmatch(got.stderr, -1)
		require.Len(t, rows, 2, got.stderr)
		assert.Contains(t, got.stderr, "costliest path the output did not need here (decoding it saves)")
		rep := readRunReport(t, doc)
		require.Len(t, rep.Inputs, 2)
		require.Len(t, rep.InputCost, 2)
		for i, in := range rep.Inputs {
			c := rep.InputCost[i]
			assert.Equal(t, in.Input, c.Input)
			require.Len(t, c.Paths, 4)
			assert.Equal(t, report.OutputFailed, c.Paths[0].Output, "the cart, costliest")
			var want report.PathCost // the costliest the output did not need
			for _, p := range c.Paths {
				if p.Output == report.OutputUnchanged && want.Path == "" {
					want = p
				}
			}
			require.NotEmpty(t, want.Path)
			assert.Equal(t, want.Path, in.CostliestPath)
			assert.Equal(t, want.Saved, in.CostliestSaved)
		}
	})

	t.Run("needs", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"run", "--input-cost", "fn.wasm"},
			{"run", "--input-cost", "--mode", "sample", "--input", full, "fn.wasm"},
			{"run", "--input-cost=0", "--input", full, "fn.wasm"},
		} {
			got := jsprof(t, "", args...)
			assert.Equal(t, 2, got.code, "%v: %s", args, got.stderr)
			assert.Contains(t, got.stderr, "input-cost", args)
		}
		// A query alone names --input-cost's fields; without it, it is for
		// the scaled limits, which need the schema too.
		got := jsprof(t, "", "run", "--query-path", "run.graphql", "--input", full, "fn.wasm")
		assert.Equal(t, 2, got.code, got.stderr)
		assert.Contains(t, got.stderr, "a schema and an input query go together")
	})
}
