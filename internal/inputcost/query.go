package inputcost

import "strings"

// QueryFields is an Options.Query from an input query's fields: each
// field's path in the query (its response keys, alias or name, joined by
// dots: cart.lines.merchandise.product.tags) to what names it for its
// author (src/run.graphql:14: tags). An input's JSON keys are the
// query's response keys, and its arrays are the query's list fields, so
// a path's query field is its keys, its [] left out.
func QueryFields(fields map[string]string) func(Path) string {
	return func(p Path) string {
		var keys []string
		for _, s := range p {
			if s != each {
				keys = append(keys, s)
			}
		}
		return fields[strings.Join(keys, ".")]
	}
}
