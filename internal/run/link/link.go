package link

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// Linking is what a module needs beside itself, found by its own imports:
// nothing (a static module), a Javy plugin (a dynamic module), or a
// Shopify Functions provider with its I/O.
type Linking struct {
	Plugin   *runner.Plugin
	Provider *shopify.Resolved
}

// hostModule reports whether an import namespace is one jsprof serves
// itself or stubs: it names no plugin.
func hostModule(ns string) bool {
	switch ns {
	case "wasi_snapshot_preview1", "wasi_unstable", "env":
		return true
	}
	return false
}

// Link finds what main imports among the --plugin paths, each a plugin
// file or a folder of providers laid out as function-runner's providers/
// (NAMESPACE.wasm). A plugin that declares another namespace than the one
// imported is an error naming both.
func Link(main *wasmcore.Module, paths []string) (Linking, error) {
	for _, im := range main.Imports {
		// The instrumented plugin exports the meter's state as jsprof.*
		// globals; a module importing them could stop its checkpoints
		// (and with them --timeout) or forge its counts.
		if im.Module == meter.HostModule || strings.HasPrefix(im.Name, meter.HostModule+".") {
			return Linking{}, fmt.Errorf("the module imports %s.%s: only jsprof's own instrumentation may use jsprof's names", im.Module, im.Name)
		}
	}
	p, err := shopify.Identify(main.Imports)
	switch {
	case err == nil:
		return linkProvider(main, p, paths)
	case !errors.Is(err, shopify.ErrNoProvider):
		return Linking{}, err
	}
	var namespaces []string
	seen := map[string]bool{}
	for _, im := range main.Imports {
		if !hostModule(im.Module) && !seen[im.Module] {
			seen[im.Module] = true
			namespaces = append(namespaces, im.Module)
		}
	}
	switch {
	case len(namespaces) == 0:
		return Linking{}, nil
	case len(namespaces) > 1:
		return Linking{}, fmt.Errorf("the module imports %s: jsprof links one plugin", strings.Join(namespaces, ", "))
	case len(paths) == 0:
		return Linking{}, fmt.Errorf("the module imports %s: give its plugin with --plugin", namespaces[0])
	}
	ns := namespaces[0]
	var undeclared []*Plugin
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
		pl, err := LoadPlugin(file)
		if err != nil {
			return Linking{}, err
		}
		declared, how := shopify.DeclaredNamespace(pl.Module, file)
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
		return pluginLinking(main, ns, undeclared[0].Path, undeclared[0])
	}
	if len(mismatches) > 0 {
		return Linking{}, fmt.Errorf("the module imports %s, but %s", ns, strings.Join(mismatches, "; "))
	}
	return Linking{}, fmt.Errorf("the module imports %s, which no --plugin declares (%s)", ns, strings.Join(paths, ", "))
}

func pluginLinking(main *wasmcore.Module, ns, file string, pl *Plugin) (Linking, error) {
	if err := shopify.CheckProvider(main, ns, file, pl.Module); err != nil {
		return Linking{}, err
	}
	return Linking{Plugin: &runner.Plugin{Name: file, Wasm: pl.Wasm, Namespace: ns}}, nil
}

// linkProvider resolves a Shopify Function's provider among paths.
func linkProvider(main *wasmcore.Module, p shopify.Provider, paths []string) (Linking, error) {
	if !p.NeedsModule() {
		r, err := shopify.Resolve(main, "")
		return Linking{Provider: &r}, err
	}
	if len(paths) == 0 {
		return Linking{}, fmt.Errorf("the function imports provider %s: give its file, or a folder of providers (function-runner's providers/), with --plugin", p.Namespace)
	}
	var errs []string
	for _, path := range paths {
		r, err := shopify.Resolve(main, path)
		if err == nil {
			return Linking{Provider: &r}, nil
		}
		errs = append(errs, err.Error())
	}
	return Linking{}, errors.New(strings.Join(errs, "; "))
}

// pluginTakes says what --plugin takes, after an error of what it was
// given.
const pluginTakes = "--plugin takes the .wasm of the Javy plugin or Shopify provider the module imports, or a folder of providers"

// CheckPlugins checks the --plugin paths before anything is read or run,
// whatever the module links: each must be a folder (of providers) or a
// Wasm module. A missing path, or a file of anything else (the program's
// JS given for its plugin), is an error naming it and what --plugin
// takes, not a plugin left unused in silence.
func CheckPlugins(paths []string) error {
	for _, path := range paths {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("--plugin %s: no such file or directory; %s", path, pluginTakes)
		case err != nil:
			return fmt.Errorf("--plugin %w", err)
		case st.IsDir():
			continue
		}
		f, err := fileio.OpenRegular(path)
		if err != nil {
			return fmt.Errorf("--plugin %w", err)
		}
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		f.Close()
		switch {
		case wasmcore.HasMagic(head[:n]):
		case javy.IsSourceFile(path):
			return fmt.Errorf("--plugin %s is JavaScript, not a plugin: %s (the JS goes to jsprof build --plugin PLUGIN.wasm %s)", path, pluginTakes, path)
		default:
			return fmt.Errorf("--plugin %s is not a Wasm module: %s", path, pluginTakes)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ReadModule reads and decodes a module: its imports say what it links,
// and a malformed file is reported with wasmcore's offsets before wazero
// sees it.
func ReadModule(path string) ([]byte, *wasmcore.Module, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	// The module is given the bytes, which nothing writes to: decoding
	// copies none of them.
	m, err := wasmcore.DecodeOwned(wasm)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return wasm, m, nil
}

// Plugin is a Javy plugin or Shopify Functions provider read from a file.
type Plugin struct {
	Path   string
	Wasm   []byte
	Module *wasmcore.Module
	Info   javy.Plugin
}

// LoadPlugin reads, decodes and inspects a plugin; errors name the file.
func LoadPlugin(path string) (*Plugin, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	info, err := javy.Inspect(m)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	// A provider without an import_namespace section is told by its file
	// name where that is a known one (javy_quickjs_provider_v1.wasm), as
	// function-runner links its bundled providers.
	if ns, _ := shopify.DeclaredNamespace(m, path); ns != "" {
		info.Namespace = ns
	}
	return &Plugin{Path: path, Wasm: wasm, Module: m, Info: info}, nil
}
