package shopify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/wasmcore"
)

// Family is a line of providers, named by its namespace prefix.
type Family int

const (
	// JavyQuickJS: javy_quickjs_provider_vN, Javy's own default plugins
	// (2023–2024); WASI stdin/stdout, JSON.
	JavyQuickJS Family = iota + 1
	// ShopifyFunctionsJavy: shopify_functions_javy_vN, Shopify's Javy
	// plugins; MessagePack from v2, in-memory I/O from v3.
	ShopifyFunctionsJavy
	// WasmAPI: shopify_function_vN, the Wasm API providers for functions
	// not written in JS (Rust, Zig, ...); MessagePack, in-memory from v2.
	WasmAPI
	// ShopifyV1: the shopify_v1 import module of Javy builds of 2021–2022,
	// implemented by the host (V1Host), not by a provider module.
	ShopifyV1
)

// prefix is the namespace of f without its version number.
func (f Family) prefix() string {
	switch f {
	case JavyQuickJS:
		return "javy_quickjs_provider_v"
	case ShopifyFunctionsJavy:
		return "shopify_functions_javy_v"
	case WasmAPI:
		return "shopify_function_v"
	case ShopifyV1:
		return "shopify_v"
	}
	return ""
}

func (f Family) String() string {
	if p := f.prefix(); p != "" {
		return strings.TrimSuffix(p, "_v")
	}
	return fmt.Sprintf("family(%d)", int(f))
}

// IO is how a function exchanges its input, output and logs.
type IO int

const (
	// WASI: input on stdin, output on stdout, logs on stderr.
	WASI IO = iota + 1
	// InMemory: through the provider's memory, with no WASI at all: the
	// provider's initialize(input_len) -> offset before the export runs and
	// finalize() -> offset of the results after (Prepare, Finish).
	InMemory
	// HostABI: through host functions the function imports (V1Host).
	HostABI
)

func (k IO) String() string {
	switch k {
	case WASI:
		return "WASI"
	case InMemory:
		return "in memory"
	case HostABI:
		return "host ABI"
	}
	return fmt.Sprintf("io(%d)", int(k))
}

// Provider is what a namespace a function imports says about how to run it.
type Provider struct {
	// Namespace is the import module name, e.g. "shopify_functions_javy_v3";
	// it is also the provider's file name in function-runner's providers/
	// folder (NAME.wasm).
	Namespace string
	Family    Family
	Version   int
	// Codec is the default codec, the one function-runner infers.
	Codec Codec
	IO    IO
}

// HasJS reports whether the provider runs JS (a QuickJS provider), which is
// what jsprof can see into.
func (p Provider) HasJS() bool { return p.Family != WasmAPI }

// NeedsModule reports whether a provider module must be instantiated under
// Namespace; the shopify_v1 ABI is served by the host instead.
func (p Provider) NeedsModule() bool { return p.Family != ShopifyV1 }

// Lookup returns what a namespace says, for the namespaces function-runner
// links (and the older shopify_v1 host ABI). It follows function-runner's
// rules by prefix and version number (engine.rs uses_msgpack_provider,
// validated_module.rs is_mem_io_provider), so a later version of a known
// line is recognised too.
func Lookup(namespace string) (Provider, bool) {
	for _, f := range []Family{JavyQuickJS, ShopifyFunctionsJavy, WasmAPI, ShopifyV1} {
		rest, ok := strings.CutPrefix(namespace, f.prefix())
		if !ok {
			continue
		}
		v, err := strconv.Atoi(rest)
		if err != nil || v < 1 || strconv.Itoa(v) != rest {
			return Provider{}, false
		}
		p := Provider{Namespace: namespace, Family: f, Version: v, Codec: JSON, IO: WASI}
		switch f {
		case ShopifyFunctionsJavy:
			if v >= 2 {
				p.Codec = MessagePack
			}
			if v >= 3 {
				p.IO = InMemory
			}
		case WasmAPI:
			p.Codec = MessagePack
			if v >= 2 {
				p.IO = InMemory
			}
		case ShopifyV1:
			if v != 1 {
				return Provider{}, false
			}
			p.Codec, p.IO = MessagePack, HostABI
		}
		return p, true
	}
	return Provider{}, false
}

// ErrNoProvider is returned by Identify and Resolve for a module that
// imports no provider namespace: a plain WASI program or a static Javy
// module, which runs without one.
var ErrNoProvider = errors.New("the module imports no Shopify Functions provider")

// wasiModule is the import module name of WASI preview 1.
const wasiModule = "wasi_snapshot_preview1"

// Identify returns the provider a function's imports name. A module that
// imports two providers cannot be linked (function-runner links one), and
// one that imports WASI alongside an in-memory provider is refused with
// function-runner's explanation; one that imports none gets ErrNoProvider.
func Identify(imports []wasmcore.Import) (Provider, error) {
	var found []Provider
	seen := map[string]bool{}
	usesWASI := false
	for _, im := range imports {
		if seen[im.Module] {
			continue
		}
		seen[im.Module] = true
		usesWASI = usesWASI || im.Module == wasiModule
		if p, ok := Lookup(im.Module); ok {
			found = append(found, p)
		}
	}
	switch {
	case len(found) == 0:
		return Provider{}, ErrNoProvider
	case len(found) > 1:
		return Provider{}, fmt.Errorf("the module imports two providers, %s and %s; a function links exactly one", found[0].Namespace, found[1].Namespace)
	}
	p := found[0]
	if p.IO == InMemory && usesWASI {
		return Provider{}, fmt.Errorf("the module imports %s, whose I/O is in memory, and WASI (%s), which that provider does not allow: build it without WASI (for Rust, the wasm32-unknown-unknown target)", p.Namespace, wasiModule)
	}
	return p, nil
}

// ImportNamespaceSection is the custom section in which a Javy plugin
// records the namespace modules import it as.
const ImportNamespaceSection = "import_namespace"

// DeclaredNamespace returns the namespace a provider module declares and how:
// its import_namespace custom section, else its file name (NAME.wasm) when
// that is a known namespace. Older providers (javy_quickjs_provider_v1 and
// _v2) have no section, and nothing else in them tells v1 from v2, so
// without a telling file name the result is "" and the caller must take the
// namespace from the function's imports.
func DeclaredNamespace(provider *wasmcore.Module, file string) (namespace, source string) {
	for _, c := range provider.Customs {
		if c.Name == ImportNamespaceSection {
			return string(c.Data), "its " + ImportNamespaceSection + " section"
		}
	}
	if file == "" {
		return "", ""
	}
	if name := strings.TrimSuffix(filepath.Base(file), ".wasm"); name != "" {
		if _, ok := Lookup(name); ok {
			return name, "its file name"
		}
	}
	return "", ""
}

// CheckProvider verifies that the provider module read from file can serve
// what function imports from namespace: the namespace the provider declares
// (DeclaredNamespace) must be that one, and it must export every function,
// with the same type, and memory the function imports from it.
func CheckProvider(function *wasmcore.Module, namespace, file string, provider *wasmcore.Module) error {
	if declared, source := DeclaredNamespace(provider, file); declared != "" && declared != namespace {
		return fmt.Errorf("provider %s is %s (by %s), but the function imports %s", file, declared, source, namespace)
	}
	exports := map[string]wasmcore.Export{}
	for _, e := range provider.Exports {
		exports[e.Name] = e
	}
	for _, im := range function.Imports {
		if im.Module != namespace {
			continue
		}
		e, ok := exports[im.Name]
		if !ok || e.Kind != im.Kind {
			return fmt.Errorf("provider %s (%s) exports no %s %s, which the function imports from it", file, namespace, im.Kind, im.Name)
		}
		if im.Kind != wasmcore.ExternFunc {
			continue
		}
		if int(im.Func) >= len(function.Types) {
			return fmt.Errorf("the function's import %s.%s has type index %d, out of range", im.Module, im.Name, im.Func)
		}
		want := function.Types[im.Func]
		got, err := provider.FuncTypeOf(e.Index)
		if err != nil {
			return fmt.Errorf("provider %s: export %s: %w", file, e.Name, err)
		}
		if !got.Equal(want) {
			return fmt.Errorf("provider %s (%s) exports %s as %v, but the function imports it as %v", file, namespace, im.Name, got, want)
		}
	}
	return nil
}

// FindProvider returns the path of namespace's provider in dir, laid out as
// function-runner bundles them (providers/NAME.wasm).
func FindProvider(dir, namespace string) (string, error) {
	// The namespace comes from an untrusted module: only known names may
	// become a path, so that "../x" cannot.
	if _, ok := Lookup(namespace); !ok {
		return "", fmt.Errorf("%q is not a provider namespace", namespace)
	}
	path := filepath.Join(dir, namespace+".wasm")
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("no provider %s in %s (want %s.wasm, as in function-runner's providers/)", namespace, dir, namespace)
		}
		return "", fmt.Errorf("provider %s: %w", namespace, err)
	}
	return path, nil
}

// Resolved is a function's provider, found and checked.
type Resolved struct {
	Provider
	// Path and Wasm are the provider module's file and bytes; empty when
	// the provider needs no module (the shopify_v1 host ABI), or when the
	// function is its own provider (Self).
	Path string
	Wasm []byte
	// Self says the function is a static build of an in-memory provider:
	// it exports the provider's initialize and finalize itself
	// (SelfProvided), and is run through them.
	Self bool
}

// SelfProvided reports whether a module that imports no provider is a
// static build of an in-memory one (jsprof build or javy build without
// -C dynamic, on shopify_functions_javy_v3 or _v4): it exports the
// provider's initialize(len) -> offset and finalize() -> offset itself.
// function-runner cannot run such a module (it links no provider, and the
// engine traps without its input); jsprof runs it through those exports.
func SelfProvided(m *wasmcore.Module) bool {
	has := func(name string, want wasmcore.FuncType) bool {
		idx, ok := m.ExportedFunc(name)
		if !ok {
			return false
		}
		ft, err := m.FuncTypeOf(idx)
		return err == nil && ft.Equal(want)
	}
	i32 := []wasmcore.ValType{wasmcore.ValI32}
	return has(initializeExport, wasmcore.FuncType{Params: i32, Results: i32}) && has(finalizeExport, wasmcore.FuncType{Results: i32})
}

// SelfProvidedRun is how a SelfProvided module runs: in memory, in
// MessagePack, as the in-memory providers are.
func SelfProvidedRun() Resolved {
	return Resolved{Provider: Provider{Codec: MessagePack, IO: InMemory}, Self: true}
}

// Resolve identifies the provider function imports and, when it needs a
// module, loads it from path — a provider file, or a folder of providers in
// function-runner's layout — and checks it (CheckProvider). A module
// importing no provider gets ErrNoProvider.
func Resolve(function *wasmcore.Module, path string) (Resolved, error) {
	p, err := Identify(function.Imports)
	if err != nil {
		return Resolved{}, err
	}
	r := Resolved{Provider: p}
	if !p.NeedsModule() {
		return r, nil
	}
	if path == "" {
		return Resolved{}, fmt.Errorf("the function imports provider %s: give its file, or a folder of providers (function-runner's providers/)", p.Namespace)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if path, err = FindProvider(path, p.Namespace); err != nil {
			return Resolved{}, err
		}
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return Resolved{}, fmt.Errorf("reading provider: %w", err)
	}
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return Resolved{}, fmt.Errorf("provider %s: %w", path, err)
	}
	if err := CheckProvider(function, p.Namespace, path, m); err != nil {
		return Resolved{}, err
	}
	r.Path, r.Wasm = path, wasm
	return r, nil
}
