package scalelimits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/jsprof/jsprof/internal/fileio"
)

// The bounds of the factor (function-runner's MIN_SCALE_FACTOR and
// MAX_SCALE_FACTOR), of the files read (Shopify's schemas are under
// 100 kB; a 15 MB one took gqlparser 3.7 s and 450 MB) and of the walk.
const (
	MinFactor      = 1.0
	MaxFactor      = 10.0
	MaxSchemaBytes = 4 << 20
	MaxQueryBytes  = 1 << 20
	MaxSteps       = 20_000_000
)

// Analyzer holds a schema and an input query, parsed, ready to give the
// factor of any number of inputs. A nil *Analyzer gives MinFactor (no
// schema or query given: function-runner's default).
type Analyzer struct {
	schema    *ast.Schema
	root      *ast.Definition // the operation's root type; nil: nothing selected
	selection ast.SelectionSet
	fragments map[string]*ast.FragmentDefinition
}

// Load reads the schema and the query files (regular files only, bounded:
// fileio) and parses them (Parse). Both must be given: function-runner
// ignores one without the other, which would leave a mistake unsaid.
func Load(schemaPath, queryPath string) (*Analyzer, error) {
	if schemaPath == "" || queryPath == "" {
		return nil, errors.New("a schema and an input query go together: the factor is of the schema's fields the query selects; give both")
	}
	schema, err := fileio.ReadRegular(schemaPath, MaxSchemaBytes)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	query, err := fileio.ReadRegular(queryPath, MaxQueryBytes)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return Parse(schemaPath, schema, queryPath, query)
}

// Parse parses a schema and a query, each named (a file) in its errors.
func Parse(schemaName string, schema []byte, queryName string, query []byte) (*Analyzer, error) {
	// Shopify's schemas declare built-in scalars (scalar ID), which the
	// spec's SDL leaves implicit and gqlparser's prelude then declares a
	// second time: the schema's own declaration is kept.
	user, err := parser.ParseSchema(&ast.Source{Name: schemaName, Input: string(schema)})
	if err != nil {
		return nil, fmt.Errorf("schema %w", err)
	}
	doc := validator.PreludeDocument()
	doc.Definitions = slices.DeleteFunc(doc.Definitions, func(d *ast.Definition) bool { return user.Definitions.ForName(d.Name) != nil })
	doc.Merge(user)
	s, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("schema %w", err)
	}
	q, err := parser.ParseQuery(&ast.Source{Name: queryName, Input: string(query)})
	if err != nil {
		return nil, fmt.Errorf("query %w", err)
	}
	if n := len(q.Operations); n != 1 {
		return nil, fmt.Errorf("query %s: %d operations: the scale factor is computed for a query of exactly one (function-runner names none)", queryName, n)
	}
	op := q.Operations[0]
	a := &Analyzer{schema: s, selection: op.SelectionSet, fragments: map[string]*ast.FragmentDefinition{}}
	switch op.Operation {
	case ast.Query:
		if s.Query == nil {
			return nil, fmt.Errorf("schema %s: no query root type", schemaName)
		}
		a.root = s.Query
	case ast.Mutation:
		a.root = s.Mutation
	case ast.Subscription:
		a.root = s.Subscription
	}
	for _, f := range q.Fragments {
		a.fragments[f.Name] = f // the last of a name, as bluejay's cache keeps it
	}
	return a, nil
}

// Factor is the scale factor of the limits of a run on input (JSON).
func (a *Analyzer) Factor(ctx context.Context, input []byte) (float64, error) {
	if a == nil {
		return MinFactor, nil
	}
	d := json.NewDecoder(bytes.NewReader(input))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return 0, fmt.Errorf("scale factor: the input: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return 0, errors.New("scale factor: the input: more than one JSON value")
	}
	return a.factorOf(ctx, v)
}

// walk is one input's walk: the response paths seen, by parent path and
// response key, and each rated path's score per value.
type walk struct {
	a         *Analyzer
	ctx       context.Context
	steps     int
	err       error
	paths     map[pathKey]int
	scores    map[int][]float64
	spreading map[string]bool
}

type pathKey struct {
	parent int
	key    string
}

func (a *Analyzer) factorOf(ctx context.Context, v any) (float64, error) {
	w := &walk{a: a, ctx: ctx, paths: map[pathKey]int{}, scores: map[int][]float64{}, spreading: map[string]bool{}}
	if a.root != nil {
		w.selectionSet(a.selection, a.root, 0, []any{v})
	}
	if w.err != nil {
		return 0, w.err
	}
	factor := MinFactor
	for _, s := range w.scores {
		sum := 0.0
		for _, x := range s {
			sum += x
		}
		factor = rustMax(factor, sum)
	}
	return min(factor, MaxFactor), nil
}

// rustMax is Rust's f64::max: NaN loses.
func rustMax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return max(a, b)
}

// selectionSet walks set, selected on values of type scoped at path.
func (w *walk) selectionSet(set ast.SelectionSet, scoped *ast.Definition, path int, values []any) {
	for _, sel := range set {
		if w.err != nil {
			return
		}
		switch s := sel.(type) {
		case *ast.Field:
			if def := fieldDefinition(scoped, s.Name); def != nil {
				w.field(s, def, path, values)
			}
		case *ast.InlineFragment:
			t := scoped
			if s.TypeCondition != "" {
				t = w.a.schema.Types[s.TypeCondition]
			}
			if t != nil {
				w.selectionSet(s.SelectionSet, t, path, values)
			}
		case *ast.FragmentSpread:
			if w.spreading[s.Name] {
				continue
			}
			if f := w.a.fragments[s.Name]; f != nil && w.a.schema.Types[f.TypeCondition] != nil {
				w.spreading[s.Name] = true
				w.selectionSet(f.SelectionSet, w.a.schema.Types[f.TypeCondition], path, values)
				delete(w.spreading, s.Name)
			}
		}
	}
}

// fieldDefinition is the field name of an object or interface type.
func fieldDefinition(t *ast.Definition, name string) *ast.FieldDefinition {
	if t.Kind != ast.Object && t.Kind != ast.Interface {
		return nil
	}
	return t.Fields.ForName(name)
}

// field walks the field f, defined by def, selected on values at parent.
func (w *walk) field(f *ast.Field, def *ast.FieldDefinition, parent int, values []any) {
	key := f.Alias
	id, ok := w.paths[pathKey{parent, key}]
	if !ok {
		id = len(w.paths) + 1
		w.paths[pathKey{parent, key}] = id
	}
	if w.steps += 1 + len(values); w.steps > MaxSteps {
		w.err = fmt.Errorf("scale factor: the query selects over %d values of the input (fragments spread in fragments?)", MaxSteps)
		return
	}
	if err := w.ctx.Err(); err != nil {
		w.err = err
		return
	}
	rate, rated := rateOf(def)
	var scores []float64
	if rated {
		if scores = w.scores[id]; scores == nil {
			// A path's values are the same however it is reached.
			scores = make([]float64, len(values))
		}
		if len(scores) < len(values) { // cannot be; never a panic
			scores = append(scores, make([]float64, len(values)-len(scores))...)
		}
		w.scores[id] = scores
	}
	var next []any
	for i, v := range values {
		var found any
		present := false
		if obj, ok := v.(map[string]any); ok {
			found, present = obj[key]
		}
		if rated {
			length := 1
			switch x := found.(type) {
			case string:
				length = len(x)
			case []any:
				length = len(x)
			}
			scores[i] = rustMax(scores[i], float64(length)*rate)
		}
		if list, ok := found.([]any); ok {
			next = append(next, list...)
		} else if present {
			next = append(next, found)
		}
	}
	if len(f.SelectionSet) > 0 {
		if t := w.a.schema.Types[def.Type.Name()]; t != nil {
			w.selectionSet(f.SelectionSet, t, id, next)
		}
	}
}

// rateOf is the rate of def's first @scaleLimits, its first rate
// argument, when a Float literal.
func rateOf(def *ast.FieldDefinition) (float64, bool) {
	d := def.Directives.ForName("scaleLimits")
	if d == nil {
		return 0, false
	}
	arg := d.Arguments.ForName("rate")
	if arg == nil || arg.Value == nil || arg.Value.Kind != ast.FloatValue {
		return 0, false
	}
	// Out of range reads as Rust reads it: ±Inf, or 0.
	f, err := strconv.ParseFloat(arg.Value.Raw, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}
