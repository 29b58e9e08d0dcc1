package scalelimits

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
)

// repeat is a JSON list of n copies of item.
func repeat(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
}

// frFixture reads function-runner's tests/fixtures/schema/schema.graphql
// or tests/fixtures/query/query.graphql (v9.2.1, commit
// 589c7382a4d8de4ea215964de6761041231bd2f5), kept as they are in
// fixtures/shopify/scalelimits.
func frFixture(t testing.TB, name string) string {
	b, err := os.ReadFile(fixtures.Path("shopify", "scalelimits", name))
	require.NoError(t, err)
	return string(b)
}

// TestFunctionRunnerCases are function-runner's own scale-limit test
// cases, transcribed (schema, query, input, expected factor or error)
// from Shopify/function-runner v9.2.1 (commit 589c7382a4d8de4ea215964de6761041231bd2f5;
// the analyzer is unchanged since 7c65864): the tests of
// src/bluejay_schema_analyzer.rs, and the inputs of the scale-limit tests
// of tests/integration_tests.rs with the fixtures above (their expected
// limits, 22M and 250.00KB for 400 lines, are the factor 2 times 11M and
// 128,000 bytes).
func TestFunctionRunnerCases(t *testing.T) {
	t.Parallel()
	const directive = "directive @scaleLimits(rate: Float!) on FIELD_DEFINITION\n"
	frSchema, frQuery := frFixture(t, "schema.graphql"), frFixture(t, "query.graphql")
	tests := []struct {
		name, schema, query, input string
		want                       float64
		wantErr                    string
	}{
		{"test_analyze_schema_definition",
			directive + "type Query { field: String @scaleLimits(rate: 0.005) }", "{ field }", `{"field": "value"}`, 1.0, ""},
		{"test_analyze_schema_with_array_length_scaling",
			directive + "type Query { cartLines: [String] @scaleLimits(rate: 0.005) }", "{ cartLines }", `{"cartLines": ` + repeat(`"moeowomeow"`, 500) + `}`, 2.5, ""},
		{"test_analyze_schema_with_array_length_scaling_to_max_scale_factor",
			directive + "type Query { cartLines: [String] @scaleLimits(rate: 0.005) }", "{ cartLines }", `{"cartLines": ` + repeat(`"item"`, 1_000_000) + `}`, 10.0, ""},
		{"test_invalid_schema",
			directive + "type Query {\n field: String @scaleLimits(rate: 0.005)  // Invalid comment\n}", "query { field }", `{"field": "value"}`, 0, "schema schema.graphql:3"},
		{"test_invalid_query",
			directive + "type Query { field: String @scaleLimits(rate: 0.005) }", "query { field ", `{"field": "value"}`, 0, "query query.graphql:1"},
		{"test_no_double_counting_for_duplicate_fields_with_array",
			directive + "type Query { field: [String] @scaleLimits(rate: 0.005) }", "{ field field }", `{"field": ` + repeat(`"value"`, 200) + `}`, 1.0, ""},
		{"test_scale_factor_with_nested_array",
			directive + "type Query { field: [MyObject] }\ntype MyObject { field: [String] @scaleLimits(rate: 0.005) }", "{ field { field } }",
			`{"field": ` + repeat(`{"field": `+repeat(`"value"`, 200)+`}`, 2) + `}`, 2.0, ""},
		{"test_scale_limits_analyzer_use_defaults_when_query_and_schema_not_provided (1 line)",
			frSchema, frQuery, `{"cart": {"lines": [{"quantity": 2}]}}`, 1.0, ""},
		{"test_scale_limits_analyzer_with_scaled_limits",
			frSchema, frQuery, `{"cart": {"lines": ` + repeat(`{"quantity": 2}`, 400) + `}}`, 2.0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := Parse("schema.graphql", []byte(tt.schema), "query.graphql", []byte(tt.query))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			got, err := a.Factor(context.Background(), []byte(tt.input))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestNoAnalyzer: without a schema and a query, function-runner's
// default factor.
func TestNoAnalyzer(t *testing.T) {
	t.Parallel()
	var a *Analyzer
	got, err := a.Factor(context.Background(), []byte(`{"cart": {"lines": []}}`))
	require.NoError(t, err)
	assert.Equal(t, MinFactor, got)
}

// TestWalk pins the walk's rules (doc.go) on cases function-runner's
// tests do not cover, each worked out from its code: lines is rated
// 0.01, so 300 lines score 3.
func TestWalk(t *testing.T) {
	t.Parallel()
	const schema = `directive @scaleLimits(rate: Float!) on FIELD_DEFINITION
type Query { cart: Cart, carts: [Cart], grid: [[Cart]], node: Node, thing: Thing, note: String @scaleLimits(rate: 0.5) }
type Mutation { cart: Cart }
type Cart implements Node { id: ID, lines: [CartLine!]! @scaleLimits(rate: 0.01), count: Int @scaleLimits(rate: 2.5), tiny: [Int] @scaleLimits(rate: -1.0), huge: [Int] @scaleLimits(rate: 1e400) }
type CartLine { quantity: Int!, attrs: [String] @scaleLimits(rate: 0.25) }
interface Node { id: ID }
union Thing = Cart
`
	lines := func(n int) string { return repeat(`{"quantity": 1}`, n) }
	cart := func(n int) string { return `{"cart": {"lines": ` + lines(n) + `}}` }
	tests := []struct {
		name, query, input string
		want               float64
	}{
		{"a rated list", "{ cart { lines { quantity } } }", cart(300), 3},
		{"under 1 is 1", "{ cart { lines { quantity } } }", cart(50), 1},
		{"no selection of the rated field", "{ cart { id } }", cart(300), 1},
		{"an alias is looked up by the alias", "{ cart { l: lines { quantity } } }", `{"cart": {"l": ` + lines(300) + `, "lines": []}}`, 3},
		{"the field's name is not the alias's key", "{ cart { l: lines } }", `{"cart": {"lines": ` + lines(300) + `}}`, 1},
		{"two aliases: the larger, not the sum", "{ cart { a: lines b: lines } }", `{"cart": {"a": ` + lines(300) + `, "b": ` + lines(250) + `}}`, 3},
		{"a fragment spread selects on the same values", "{ cart { ...F } } fragment F on Cart { lines { quantity } }", cart(300), 3},
		{"a fragment's type condition is not checked", "{ cart { ... on Mutation { cart { id } } ...F } } fragment F on Cart { lines }", cart(300), 3},
		{"a fragment and the field: the same path, counted once", "{ cart { lines ...F } } fragment F on Cart { lines }", cart(300), 3},
		{"a fragment spreading itself", "{ cart { ...F } } fragment F on Cart { lines ...F }", cart(300), 3},
		{"an unknown fragment selects nothing", "{ cart { ...G } } fragment F on Cart { lines }", cart(300), 1},
		{"a fragment on an unknown type selects nothing", "{ cart { ...F } } fragment F on Nope { lines }", cart(300), 1},
		{"the last fragment of a name", "{ cart { ...F } } fragment F on Cart { id } fragment F on Cart { lines }", cart(300), 3},
		{"an inline fragment without a type", "{ cart { ... { lines } } }", cart(300), 3},
		{"an interface's field through an inline fragment", "{ node { ... on Cart { lines } } }", `{"node": {"lines": ` + lines(300) + `}}`, 3},
		{"a union selects no field itself", "{ thing { __typename ... on Cart { lines } } }", `{"thing": {"lines": ` + lines(300) + `}}`, 3},
		{"@skip changes nothing", "query($s: Boolean!) { cart { lines @skip(if: $s) } }", cart(300), 3},
		{"an unknown field is skipped with its selection", "{ nope { lines } cart { id } }", `{"nope": {"lines": ` + lines(300) + `}}`, 1},
		{"a missing field scores 1 × rate", "{ cart { count } }", `{"cart": {}}`, 2.5},
		{"null scores 1 × rate", "{ cart { count } }", `{"cart": {"count": null}}`, 2.5},
		{"a number scores 1 × rate", "{ cart { count } }", `{"cart": {"count": 12}}`, 2.5},
		{"a string scores its UTF-8 bytes × rate", "{ note }", `{"note": "héllo"}`, 3},
		{"per item of a list, summed", "{ carts { lines } }", `{"carts": [{"lines": ` + lines(200) + `}, {"lines": ` + lines(200) + `}]}`, 4},
		{"a missing field in each item scores 1 × rate each", "{ carts { count } }", `{"carts": [{}, {}, null, 7]}`, 10},
		{"the factor is at most 10", "{ carts { count } }", `{"carts": [{}, {}, {}, {}, {}]}`, 10},
		{"a list of lists: no field in the inner lists", "{ grid { lines } }", `{"grid": [[{"lines": ` + lines(300) + `}], [], [{}]]}`, 1},
		{"a list of lists: 1 × rate per inner list", "{ grid { count } }", `{"grid": [[{"count": 1}], []]}`, 5},
		{"nested rates: the larger path", "{ cart { lines { attrs } } }", `{"cart": {"lines": [{"quantity": 1, "attrs": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]}]}}`, 3},
		{"a negative rate scores 0", "{ cart { tiny } }", `{"cart": {"tiny": [1, 2, 3]}}`, 1},
		{"an infinite rate: 10", "{ cart { huge } }", `{"cart": {"huge": [1]}}`, 10},
		{"an infinite rate on an empty list: NaN loses", "{ cart { huge } }", `{"cart": {"huge": []}}`, 1},
		{"a mutation's root", "mutation { cart { lines } }", cart(300), 3},
		{"the last of duplicate keys", "{ cart { lines } }", `{"cart": {"lines": ` + lines(300) + `, "lines": []}}`, 1},
		{"the input is not an object", "{ cart { lines } }", `[1, 2]`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := Parse("schema.graphql", []byte(schema), "query.graphql", []byte(tt.query))
			require.NoError(t, err)
			got, err := a.Factor(context.Background(), []byte(tt.input))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestRateMustBeFloat: rate: 1 is an Int literal, which function-runner
// ignores; rate: 1.0 is a Float. Each is the other's negative control.
func TestRateMustBeFloat(t *testing.T) {
	t.Parallel()
	for rate, want := range map[string]float64{"1": 1, "1.0": 3, "1e0": 3} {
		schema := "directive @scaleLimits(rate: Float!) on FIELD_DEFINITION\ntype Query { lines: [Int] @scaleLimits(rate: " + rate + ") }"
		a, err := Parse("s", []byte(schema), "q", []byte("{ lines }"))
		require.NoError(t, err)
		got, err := a.Factor(context.Background(), []byte(`{"lines": [1, 2, 3]}`))
		require.NoError(t, err)
		assert.Equal(t, want, got, "rate: %s", rate)
	}
}

// TestErrors: what function-runner refuses, refused with the file named.
func TestErrors(t *testing.T) {
	t.Parallel()
	const schema = "type Query { a: Int }"
	tests := []struct{ name, schema, query, input, want string }{
		{"two operations", schema, "query A { a } query B { a }", `{}`, "query q: 2 operations"},
		{"no operation", schema, "fragment F on Query { a }", `{}`, "query q: 0 operations"},
		{"an undefined directive", "type Query { a: Int @scaleLimits(rate: 0.5) }", "{ a }", `{}`, "schema s"},
		{"no query type", "type Cart { a: Int }", "{ a }", `{}`, "schema s: no query root type"},
		{"too deep", schema, strings.Repeat("{ a ", 2000) + strings.Repeat("}", 2000), `{}`, "nesting depth"},
		{"an input that is not JSON", schema, "{ a }", `{"a": `, "scale factor: the input"},
		{"two inputs", schema, "{ a }", `{} {}`, "more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := Parse("s", []byte(tt.schema), "q", []byte(tt.query))
			if err == nil {
				_, err = a.Factor(context.Background(), []byte(tt.input))
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestExponentialFragments: fragments spreading others twice, 40 deep,
// select 2^40 times; the walk stops at MaxSteps with an error.
func TestExponentialFragments(t *testing.T) {
	t.Parallel()
	var q strings.Builder
	q.WriteString("{ ...F0 }\n")
	for i := range 40 {
		fmt.Fprintf(&q, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	q.WriteString("fragment F40 on Query { a }\n")
	a, err := Parse("s", []byte("type Query { a: Int }"), "q", []byte(q.String()))
	require.NoError(t, err)
	_, err = a.Factor(context.Background(), []byte(`{"a": 1}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "over 20000000 values")
	// Negative control: 10 deep is 1,024 selections, well within.
	q.Reset()
	q.WriteString("{ ...F0 }\nfragment F10 on Query { a }\n")
	for i := range 10 {
		fmt.Fprintf(&q, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	a, err = Parse("s", []byte("type Query { a: Int }"), "q", []byte(q.String()))
	require.NoError(t, err)
	_, err = a.Factor(context.Background(), []byte(`{"a": 1}`))
	require.NoError(t, err)
}

// TestLoad reads files: regular ones only, named in errors.
func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	schema, query := fixtures.Path("shopify", "scalelimits", "schema.graphql"), fixtures.Path("shopify", "scalelimits", "query.graphql")
	a, err := Load(schema, query)
	require.NoError(t, err)
	got, err := a.Factor(context.Background(), []byte(`{"cart": {"lines": `+repeat(`{"quantity": 2}`, 400)+`}}`))
	require.NoError(t, err)
	assert.Equal(t, 2.0, got)
	_, err = Load(filepath.Join(dir, "missing.graphql"), query)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.graphql")
	_, err = Load(schema, dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "query")
	_, err = Load(schema, "")
	assert.ErrorContains(t, err, "a schema and an input query go together")
	huge := filepath.Join(dir, "huge.graphql")
	require.NoError(t, os.WriteFile(huge, make([]byte, MaxSchemaBytes+1), 0o600))
	_, err = Load(huge, query)
	assert.ErrorContains(t, err, "huge.graphql")
}

// FuzzFactor: any schema, query and input give a factor in [1, 10] or
// an error, never a panic or a hang.
func FuzzFactor(f *testing.F) {
	f.Add(frFixture(f, "schema.graphql"), frFixture(f, "query.graphql"), `{"cart": {"lines": [{"quantity": 2}]}}`)
	f.Add("directive @scaleLimits(rate: Float!) on FIELD_DEFINITION\ntype Query { f: [Q] @scaleLimits(rate: 0.5) } type Q { f: [Q] @scaleLimits(rate: 2.0) }",
		"{ f { f { ...X } } } fragment X on Q { a: f { f } ...X }", `{"f": [{"f": [{"a": [[1]], "f": "xx"}]}]}`)
	f.Fuzz(func(t *testing.T, schema, query, input string) {
		a, err := Parse("s", []byte(schema), "q", []byte(query))
		if err != nil {
			return
		}
		got, err := a.Factor(context.Background(), []byte(input))
		if err != nil {
			return
		}
		if got < MinFactor || got > MaxFactor || !json.Valid([]byte(input)) {
			t.Fatalf("factor %v of a valid input %q", got, input)
		}
	})
}

// TestShopifySchemaShape: Shopify's schemas (schema.graphql of every
// example of Shopify/function-examples, 19ccafc) declare built-in
// scalars (scalar ID) and directives (@oneOf), which gqlparser's prelude
// also declares; they load, and a cart of 201 lines scales by 1.005, its
// limit then 11,055,000. The schema below is their shape, cut down.
func TestShopifySchemaShape(t *testing.T) {
	t.Parallel()
	const schema = `schema { query: Input }
directive @oneOf on INPUT_OBJECT
directive @scaleLimits(rate: Float!) on FIELD_DEFINITION
scalar ID
scalar Decimal
type Input { cart: Cart!, discountNode: DiscountNode! }
type Cart { lines: [CartLine!]! @scaleLimits(rate: 0.005) }
type CartLine { id: ID!, quantity: Int!, merchandise: Merchandise! }
union Merchandise = ProductVariant | CustomProduct
type ProductVariant { id: ID! }
type CustomProduct { title: String! }
type DiscountNode { metafield(namespace: String, key: String!): Metafield }
type Metafield { value: String! }
input Selector @oneOf { id: ID, handle: String }
`
	const query = `query RunInput {
  cart { lines { quantity merchandise { __typename ... on ProductVariant { id } } } }
  discountNode { metafield(namespace: "$app:volume-discount", key: "function-configuration") { value } }
}`
	a, err := Parse("schema.graphql", []byte(schema), "run.graphql", []byte(query))
	require.NoError(t, err)
	line := `{"quantity":1,"merchandise":{"__typename":"ProductVariant","id":"gid://shopify/ProductVariant/1"}}`
	for lines, want := range map[int]float64{200: 1, 201: 1.0050000000000001, 400: 2} {
		got, err := a.Factor(context.Background(), []byte(`{"cart":{"lines":`+repeat(line, lines)+`},"discountNode":{"metafield":{"value":"{}"}}}`))
		require.NoError(t, err)
		assert.Equal(t, want, got, "%d lines", lines)
	}
}
