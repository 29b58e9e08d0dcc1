package javy

import (
	"fmt"

	"github.com/jsprof/jsprof/wasmcore"
)

// ABI is a Javy plugin interface generation.
type ABI int

const (
	// ABINewer: initialize-runtime, cabi_realloc, compile-src returning
	// [discriminant, ptr, len], invoke(ptr, len, has_name, name_ptr, name_len).
	ABINewer ABI = iota + 1
	// ABIOlder: initialize_runtime, canonical_abi_realloc, compile_src
	// returning [ptr, len], invoke(ptr, len, name_ptr, name_len).
	ABIOlder
	// ABIProviderV2: as ABIOlder without an initialize export, and the top
	// level runs through eval_bytecode(ptr, len).
	ABIProviderV2
)

func (a ABI) String() string {
	switch a {
	case ABINewer:
		return "newer (initialize-runtime, cabi_realloc, compile-src, invoke)"
	case ABIOlder:
		return "older (initialize_runtime, canonical_abi_realloc, compile_src, invoke)"
	case ABIProviderV2:
		return "provider v2 (canonical_abi_realloc, compile_src, eval_bytecode)"
	}
	return "unknown"
}

// Plugin is what a build needs to know of a plugin module.
type Plugin struct {
	ABI ABI
	// Namespace is the module name dynamic modules import the plugin as:
	// the plugin's import_namespace custom section, or the provider's
	// historical default.
	Namespace string
	// Export names of the plugin's entry points; Init is empty for
	// providers that need no initialization.
	Init, Realloc, Compile, Run string
}

// ImportNamespaceSection is the custom section naming a plugin's namespace.
const ImportNamespaceSection = "import_namespace"

// Inspect tells which ABI a plugin module implements.
func Inspect(m *wasmcore.Module) (Plugin, error) {
	has := func(name string) bool { _, ok := m.ExportedFunc(name); return ok }
	var p Plugin
	switch {
	case has("initialize-runtime") && has("cabi_realloc") && has("compile-src") && has("invoke"):
		p = Plugin{ABI: ABINewer, Init: "initialize-runtime", Realloc: "cabi_realloc", Compile: "compile-src", Run: "invoke"}
	case has("canonical_abi_realloc") && has("compile_src") && has("eval_bytecode"):
		p = Plugin{ABI: ABIProviderV2, Realloc: "canonical_abi_realloc", Compile: "compile_src", Run: "eval_bytecode", Namespace: "javy_quickjs_provider_v2"}
	case has("canonical_abi_realloc") && has("compile_src") && has("invoke"):
		p = Plugin{ABI: ABIOlder, Realloc: "canonical_abi_realloc", Compile: "compile_src", Run: "invoke", Namespace: "javy_quickjs_provider_v3"}
		if has("initialize_runtime") {
			p.Init = "initialize_runtime"
		}
	default:
		return Plugin{}, fmt.Errorf("not a Javy plugin: no compile-src/compile_src, invoke and realloc exports")
	}
	for _, c := range m.Customs {
		if c.Name == ImportNamespaceSection {
			p.Namespace = string(c.Data)
		}
	}
	if p.Namespace == "" {
		return Plugin{}, fmt.Errorf("Javy plugin without an %s custom section", ImportNamespaceSection)
	}
	if err := p.checkTypes(m); err != nil {
		return Plugin{}, err
	}
	return p, nil
}

func (p Plugin) checkTypes(m *wasmcore.Module) error {
	want := []struct {
		name            string
		params, results int
	}{
		{p.Realloc, 4, 1},
		{p.Compile, 2, 1},
		{p.Run, 2, 0}, // at least two: the bytecode pointer and length
	}
	for _, w := range want {
		idx, _ := m.ExportedFunc(w.name)
		ft, err := m.FuncTypeOf(idx)
		if err != nil {
			return fmt.Errorf("export %s: %w", w.name, err)
		}
		if w.name == p.Run {
			if len(ft.Params) < 2 || len(ft.Results) != 0 {
				return fmt.Errorf("export %s has type %v -> %v, want (i32, i32, ...) -> ()", w.name, ft.Params, ft.Results)
			}
			continue
		}
		if len(ft.Params) != w.params || len(ft.Results) != w.results {
			return fmt.Errorf("export %s has %d params and %d results, want %d and %d", w.name, len(ft.Params), len(ft.Results), w.params, w.results)
		}
	}
	return nil
}
