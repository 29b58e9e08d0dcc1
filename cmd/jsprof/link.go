package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/internal/shopify"
	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// linking is what a module needs beside itself, found by its own imports:
// nothing (a static module), a Javy plugin (a dynamic module), or a
// Shopify Functions provider with its I/O.
type linking struct {
	plugin   *runner.Plugin
	provider *shopify.Resolved
}

// hostModules are import namespaces jsprof serves itself or stubs: they
// name no plugin.
var hostModules = map[string]bool{"wasi_snapshot_preview1": true, "wasi_unstable": true, "env": true}

// link finds what main imports among the --plugin paths, each a plugin
// file or a folder of providers laid out as function-runner's providers/
// (NAMESPACE.wasm). A plugin that declares another namespace than the one
// imported is an error naming both.
func link(main *wasmcore.Module, paths []string) (linking, error) {
	for _, im := range main.Imports {
		// The instrumented plugin exports the meter's state as jsprof.*
		// globals; a module importing them could stop its checkpoints
		// (and with them --timeout) or forge its counts.
		if im.Module == meter.HostModule || strings.HasPrefix(im.Name, meter.HostModule+".") {
			return linking{}, fmt.Errorf("the module imports %s.%s: only jsprof's own instrumentation may use jsprof's names", im.Module, im.Name)
		}
	}
	p, err := shopify.Identify(main.Imports)
	switch {
	case err == nil:
		return linkProvider(main, p, paths)
	case !errors.Is(err, shopify.ErrNoProvider):
		return linking{}, err
	}
	var namespaces []string
	seen := map[string]bool{}
	for _, im := range main.Imports {
		if !hostModules[im.Module] && !seen[im.Module] {
			seen[im.Module] = true
			namespaces = append(namespaces, im.Module)
		}
	}
	switch {
	case len(namespaces) == 0:
		return linking{}, nil
	case len(namespaces) > 1:
		return linking{}, fmt.Errorf("the module imports %s: jsprof links one plugin", strings.Join(namespaces, ", "))
	case len(paths) == 0:
		return linking{}, fmt.Errorf("the module imports %s: give its plugin with --plugin", namespaces[0])
	}
	ns := namespaces[0]
	var undeclared []*loadedPlugin
	var mismatches []string
	for _, path := range paths {
		file := path
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			if ns != filepath.Base(ns) || ns == "." || ns == ".." {
				continue // an untrusted name never becomes a path
			}
			if file = filepath.Join(path, ns+".wasm"); !exists(file) {
				continue
			}
		}
		pl, err := loadPlugin(file)
		if err != nil {
			return linking{}, err
		}
		declared, how := shopify.DeclaredNamespace(pl.module, file)
		switch {
		case declared == ns:
			return pluginLinking(main, ns, file, pl)
		case declared == "":
			undeclared = append(undeclared, pl)
		default:
			mismatches = append(mismatches, fmt.Sprintf("plugin %s is %s (by %s)", file, declared, how))
		}
	}
	// Older plugins declare nothing: one given for one namespace is it.
	if len(undeclared) == 1 && len(mismatches) == 0 {
		return pluginLinking(main, ns, undeclared[0].path, undeclared[0])
	}
	if len(mismatches) > 0 {
		return linking{}, fmt.Errorf("the module imports %s, but %s", ns, strings.Join(mismatches, "; "))
	}
	return linking{}, fmt.Errorf("the module imports %s, which no --plugin declares (%s)", ns, strings.Join(paths, ", "))
}

func pluginLinking(main *wasmcore.Module, ns, file string, pl *loadedPlugin) (linking, error) {
	if err := shopify.CheckProvider(main, ns, file, pl.module); err != nil {
		return linking{}, err
	}
	return linking{plugin: &runner.Plugin{Name: file, Wasm: pl.wasm, Namespace: ns}}, nil
}

// linkProvider resolves a Shopify Function's provider among paths.
func linkProvider(main *wasmcore.Module, p shopify.Provider, paths []string) (linking, error) {
	if !p.NeedsModule() {
		r, err := shopify.Resolve(main, "")
		return linking{provider: &r}, err
	}
	if len(paths) == 0 {
		return linking{}, fmt.Errorf("the function imports provider %s: give its file, or a folder of providers (function-runner's providers/), with --plugin", p.Namespace)
	}
	var errs []string
	for _, path := range paths {
		r, err := shopify.Resolve(main, path)
		if err == nil {
			return linking{provider: &r}, nil
		}
		errs = append(errs, err.Error())
	}
	return linking{}, errors.New(strings.Join(errs, "; "))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
