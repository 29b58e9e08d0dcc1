// Package scalelimits computes the scale factor of a Shopify Function's
// limits as function-runner 9.2 computes it (src/scale_limits_analyzer.rs
// and src/bluejay_schema_analyzer.rs, on bluejay-validator 0.3's
// operation Orchestrator, read at v9.2.1, 589c738, the newest release at
// hand; Shopify CLI 4.8 pins 9.2.2): from the function's GraphQL schema,
// its input query and one input. Shopify multiplies its limits (11M instructions,
// 128 kB of input, 20 kB of output) by it; internal/run/shopify owns
// those limits and their scaling (ScaledLimit), this package only the
// factor.
//
// # The factor
//
// The query must hold exactly one operation; its selections are walked
// from the schema's root type of that operation (none for a mutation or
// subscription the schema has no root for), alongside the input's values
// at each level:
//
//   - a field the scoped type (an object or an interface) does not define
//     is skipped with all it selects; the query is not otherwise checked
//     against the schema;
//   - inline fragments and fragment spreads select on the same values as
//     their parent, whatever their type condition says of them; a
//     fragment already being spread is not spread again (cycles); a
//     spread of an unknown fragment, or one whose type is unknown, selects
//     nothing; @skip and @include change nothing;
//   - a field's values are found under its response key (its alias, else
//     its name) in each of the level's values that is an object; a list
//     adds each of its items to the next level (a list of lists adds the
//     inner lists, in which no field is found), any other value found
//     (null too) adds itself;
//   - a field whose definition carries @scaleLimits with a Float literal
//     rate (the first such directive, its first rate argument; an Int
//     literal such as rate: 1 is not a Float and counts for nothing)
//     scores, for each value of its level, length × rate, the length
//     being the field's list length, string length in UTF-8 bytes, or 1
//     (anything else, or nothing found); a response path selected twice
//     (the same field twice, or through fragments) keeps the larger score
//     per value, never less than 0;
//   - a path's scores are summed over the level's values, and the factor
//     is the largest sum, at least 1 and at most 10.
//
// Aliases make different paths: { a: lines b: lines } scores once per
// alias and keeps the larger, not the sum. Function-runner sums a path's
// scores in its hash map's order, which varies from run to run; this
// package sums them in the values' order, so a sum can differ from one of
// its runs in the last bit of a float64 (the limit then by one
// instruction), never more.
//
// # Bounded work
//
// A schema is read up to MaxSchemaBytes, a query up to MaxQueryBytes,
// both parsed with github.com/vektah/gqlparser/v2 (the schema also
// validated: an invalid one is an error, as function-runner refuses it;
// a built-in type it declares itself, as Shopify's schemas declare
// scalar ID, is taken in place of gqlparser's own declaration;
// the query is only parsed, as function-runner only parses it; nesting
// deeper than gqlparser's 1,000 levels is an error). The walk counts the
// values it looks at and stops with an error past MaxSteps (fragments
// spread in fragments can select exponentially many times; function-
// runner has no such bound). Factor reads the input JSON with
// encoding/json.
//
// It depends on gqlparser and internal/fileio only, and knows nothing of
// runs: the profiler asks it for a factor per input.
package scalelimits
