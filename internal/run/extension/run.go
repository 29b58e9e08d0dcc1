package extension

import "fmt"

// Run is what a run of a function is given: by the command line, and,
// from Fill, by its folder where the command line says nothing.
type Run struct {
	Module        string
	Plugins       []string // --plugin
	Inputs        []string // --input
	Export        string   // -e
	Schema, Query string   // --schema-path, --query-path
	// NamesFields: the input query is wanted to name the input's fields
	// (--input-cost), with no schema as well as with one.
	NamesFields bool
}

// Fill is r with what it lacks taken from the folder: the module it
// builds, the provider Shopify CLI builds it with, its fixtures as inputs,
// the export of a function with one target, and that target's schema and
// input query (the limits production applies to it). A function of
// several targets needs inputs that say their export: its fixtures, or
// those given.
func (e *Extension) Fill(r Run) (Run, error) {
	r.Module = e.Module
	if len(r.Plugins) == 0 && e.Provider.Path != "" && !e.Provider.Given {
		r.Plugins = []string{e.Provider.Path}
	}
	if len(r.Inputs) == 0 && e.Fixtures != "" {
		r.Inputs = []string{e.Fixtures}
	}
	if r.Export == "" && len(e.Targets) == 1 {
		r.Export = e.Targets[0].Export
	}
	if t, ok := e.Target(r.Export); ok && r.Schema+r.Query == "" && t.InputQuery != "" {
		switch {
		case e.Schema != "":
			r.Schema, r.Query = e.Schema, t.InputQuery
		case r.NamesFields:
			r.Query = t.InputQuery
		}
	}
	if len(r.Inputs) == 0 && len(e.Targets) > 1 {
		return r, fmt.Errorf("%s has %d targets and no tests/fixtures: give inputs with --input (Shopify CLI's fixtures or run logs carry their target's export; a plain input needs -e EXPORT)", e.Handle, len(e.Targets))
	}
	return r, nil
}

// Queries are the input queries of the targets that have an export, by
// export: each target's scaled limits, for inputs that say their export.
func (e *Extension) Queries() map[string]string {
	q := map[string]string{}
	for _, t := range e.Targets {
		if t.Export != "" && t.InputQuery != "" {
			q[t.Export] = t.InputQuery
		}
	}
	return q
}
