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
// folder (internal/run/extension) when the command names a folder, or
// none and the current one is an extension's: the module it builds, the
// provider Shopify CLI builds it with, its fixtures as inputs, the export
// of a function with one target, and the target's schema and input query
// (--schema-path, --query-path) for its scaled limits. It returns nil when the command
// names a module.
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
	}
	if err != nil {
		return nil, err
	}
	f.module = ext.Module
	if len(f.plugins) == 0 && ext.Provider.Path != "" {
		f.plugins = append(f.plugins, ext.Provider.Path)
	}
	if len(f.inputs) == 0 && ext.Fixtures != "" {
		f.inputs = append(f.inputs, ext.Fixtures)
	}
	if f.export == "" && len(ext.Targets) == 1 {
		f.export = ext.Targets[0].Export
	}
	if t, ok := ext.Target(f.export); ok && f.schemaPath+f.queryPath == "" && t.InputQuery != "" {
		if ext.Schema != "" {
			f.schemaPath, f.queryPath = ext.Schema, t.InputQuery // the limit production applies
		} else if f.inputCost.MaxPaths > 0 {
			f.queryPath = t.InputQuery // --input-cost's field names
		}
	}
	if len(f.inputs) == 0 && len(ext.Targets) > 1 {
		return nil, fmt.Errorf("%s has %d targets and no tests/fixtures: give inputs with --input (Shopify CLI's fixtures or run logs carry their target's export; a plain input needs -e EXPORT)", ext.Handle, len(ext.Targets))
	}
	return ext, nil
}

// scaleByExport is each target's analyzer of its scaled limits (its input
// query against the function's schema), for inputs that say their export
// (Shopify CLI's fixtures and run logs); nil when the command line gives
// the schema and query, or the folder has no schema.
func (f *runFlags) scaleByExport() (map[string]*scalelimits.Analyzer, error) {
	if f.app == nil || f.app.Schema == "" || f.schemaPath != f.app.Schema && f.schemaPath != "" {
		return nil, nil
	}
	by := map[string]*scalelimits.Analyzer{}
	for _, t := range f.app.Targets {
		if t.Export == "" || t.InputQuery == "" {
			continue
		}
		a, err := scalelimits.Load(f.app.Schema, t.InputQuery)
		if err != nil {
			return nil, fmt.Errorf("%s: target %s: %w", f.app.Handle, t.Name, err)
		}
		by[t.Export] = a
	}
	return by, nil
}
