package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/jsprof/jsprof/internal/run/extension"
	"github.com/jsprof/jsprof/internal/run/shopify/scalelimits"
)

// fromApp fills what run was not given from the function's extension
// folder (extension.Fill) when the command names a folder, or none and
// the current one is an extension's; nil when the command names a module.
func (f *runFlags) fromApp(fs *flag.FlagSet) (*extension.Extension, error) {
	dir := "."
	if fs.NArg() > 0 {
		if st, err := os.Stat(fs.Arg(0)); err != nil || !st.IsDir() {
			return nil, nil
		}
		dir = fs.Arg(0)
	}
	ext, err := extension.Find(dir)
	if fs.NArg() == 0 && errors.Is(err, extension.ErrNoExtension) {
		return nil, fmt.Errorf("no module given, and this folder is not a function's (%w)", extension.ErrNoExtension)
	} else if err != nil {
		return nil, err
	}
	if len(f.plugins) > 0 {
		ext.Provider.Given = true // the user's, not Shopify CLI's
	}
	r, err := ext.Fill(extension.Run{Plugins: f.plugins, Inputs: f.inputs, Export: f.export, Schema: f.schemaPath, Query: f.queryPath, NamesFields: f.inputCost.MaxPaths > 0})
	f.module, f.plugins, f.inputs, f.export, f.schemaPath, f.queryPath = r.Module, r.Plugins, r.Inputs, r.Export, r.Schema, r.Query
	return ext, err
}

// scaleByExport is each target's analyzer of its scaled limits, for
// inputs that say their export (Shopify CLI's fixtures and run logs); nil
// unless the schema is the function folder's.
func (f *runFlags) scaleByExport() (map[string]*scalelimits.Analyzer, error) {
	if f.app == nil || f.app.Schema == "" || f.schemaPath != f.app.Schema && f.schemaPath != "" {
		return nil, nil
	}
	by := map[string]*scalelimits.Analyzer{}
	for export, query := range f.app.Queries() {
		a, err := scalelimits.Load(f.app.Schema, query)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.app.Handle, err)
		}
		by[export] = a
	}
	return by, nil
}
