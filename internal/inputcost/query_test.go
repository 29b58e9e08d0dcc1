package inputcost

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runGraphQL is an input query as Shopify's discount templates write
// them: variables, arguments (with braces and strings in them), an
// inline fragment, an alias, a directive, comments.
const runGraphQL = `# The function's input.
query RunInput($tags: [String!]) {
  cart {
    lines {
      id
      quantity # how many
      merchandise {
        __typename
        ... on ProductVariant {
          id
          product {
            title
            tags
            onSale: hasAnyTag(tags: ["sale", "}"]) @include(if: true)
          }
        }
      }
    }
  }
  discount {
    metafield(namespace: "$app:discount", key: """function-configuration""") { value }
  }
}
`

// TestReadQuery: each field's path of response keys names its line and
// the field as written; QueryFields finds a JSON path's, [] left out.
func TestReadQuery(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run.graphql")
	require.NoError(t, os.WriteFile(path, []byte(runGraphQL), 0o644))
	fields, err := ReadQuery(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"cart":                                  path + ":3: cart",
		"cart.lines":                            path + ":4: lines",
		"cart.lines.id":                         path + ":5: id",
		"cart.lines.quantity":                   path + ":6: quantity",
		"cart.lines.merchandise":                path + ":7: merchandise",
		"cart.lines.merchandise.__typename":     path + ":8: __typename",
		"cart.lines.merchandise.id":             path + ":10: id",
		"cart.lines.merchandise.product":        path + ":11: product",
		"cart.lines.merchandise.product.title":  path + ":12: title",
		"cart.lines.merchandise.product.tags":   path + ":13: tags",
		"cart.lines.merchandise.product.onSale": path + ":14: onSale: hasAnyTag",
		"discount":                              path + ":20: discount",
		"discount.metafield":                    path + ":21: metafield",
		"discount.metafield.value":              path + ":21: value",
	}, fields)
	q := QueryFields(fields)
	assert.Equal(t, path+":13: tags", q(Path{"cart", "lines", each, "merchandise", "product", "tags"}))

	_, err = ReadQuery(filepath.Join(t.TempDir(), "none.graphql"))
	assert.ErrorContains(t, err, "--query-path")
	_, err = parseQuery([]byte("{ a { ( } }"), "q")
	assert.ErrorContains(t, err, `line 1: "(" where a field was expected`)
}

// FuzzQuery: any bytes read as a query end, never panic, and name
// paths of names only.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{runGraphQL, `{a{b}}`, `query { ... on X { y } ...F z: w(a: "\"") }`, `"""`, `{{{{`, "{ a(\n) @d(x: 1) { b } }"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, err := parseQuery(b, "q.graphql")
		if err != nil {
			return
		}
		for path := range fields {
			require.NotEmpty(t, path)
		}
	})
}
