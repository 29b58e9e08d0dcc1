package javy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/wasmcore"
)

// Export is one function of the program that a module exports, as
// `javy build -C wit=WORLD -C wit-world=NAME` makes it from a WIT world
// declaring `export NAME: func();`: Wasm is the module's export (the WIT
// name, kebab-case), JS the program's exported function it calls (its
// camelCase form, Javy's codegen exports.rs).
type Export struct {
	Wasm, JS string
}

// ExportsNamed returns the exports for the kebab-case names given
// (`jsprof build --export`, a Shopify Function toml's targets' exports),
// in order. A name must be kebab-case (lowercase letters, digits and
// single hyphens between words), as Shopify CLI requires of a toml's
// exports and a WIT identifier is; each name is given once.
func ExportsNamed(names []string) ([]Export, error) {
	var out []Export
	seen := map[string]bool{}
	for _, name := range names {
		if !isKebab(name) {
			return nil, fmt.Errorf("export %q: not kebab-case (lowercase letters, digits and single hyphens between words, e.g. cart-lines-discounts-generate-run)", name)
		}
		if seen[name] {
			return nil, fmt.Errorf("export %q: given twice", name)
		}
		seen[name] = true
		out = append(out, Export{Wasm: name, JS: Camel(name)})
	}
	return out, nil
}

// Camel is the JS name of a kebab-case export, as Javy derives it
// (convert_case's Kebab to Camel: the first word lowercase, the others
// capitalized): cart-lines-discounts-generate-run is
// cartLinesDiscountsGenerateRun.
func Camel(kebab string) string {
	var b strings.Builder
	for _, w := range strings.Split(kebab, "-") {
		if w == "" {
			continue
		}
		w = strings.ToLower(w)
		if b.Len() > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

func isKebab(name string) bool {
	if name == "" || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return name[0] < '0' || name[0] > '9' // a WIT identifier's words start with a letter
}

// invokeExport is the plugin export that runs a named function of a
// program: every ABI's (the oldest provider's runs its top level through
// eval_bytecode, its functions through invoke).
const invokeExport = "invoke"

// checkExports refuses exports the program cannot have: Javy refuses a
// world's export whose camelCase name the JS module does not export. The
// check here is weaker — the name must appear among the bytecode's atoms,
// where every export's name is — so a program that names the function
// without exporting it builds, and its export fails when called.
func checkExports(bytecode []byte, exports []Export) error {
	for _, e := range exports {
		if !bytes.Contains(bytecode, []byte(e.JS)) {
			return fmt.Errorf("export %s: the JS module does not export %s", e.Wasm, e.JS)
		}
	}
	return nil
}

// addExports adds one function per export and exports it
// under its kebab-case name, as Javy's codegen (lib.rs's
// generate_exports) does: each copies the bytecode from its passive
// segment (bytecode) into memory the plugin allocates and drops the
// segment, copies the JS name from a passive segment of its own likewise,
// then calls the plugin's invoke with the bytecode and the name
// (invoke(ptr, len, 1, name_ptr, name_len); an older plugin's invoke has
// no has-name flag). Javy's invoke runs the module's top level, then the
// named function. The name segments follow the module's other segments.
func addExports(m *wasmcore.Module, realloc, invoke uint32, invokeParams int, bytecode uint32, bytecodeLen int, exports []Export) error {
	if len(exports) == 0 {
		return nil
	}
	if invokeParams != 4 && invokeParams != 5 {
		return fmt.Errorf("the plugin's invoke takes %d parameters, want 5 (or an older plugin's 4) to call an export", invokeParams)
	}
	for _, e := range exports {
		m.Data = append(m.Data, wasmcore.DataSegment{Mode: wasmcore.DataPassive, Init: []byte(e.JS)})
		name := uint32(len(m.Data) - 1)
		n, nameLen := int32(bytecodeLen), int32(len(e.JS))
		code := append(copyToPlugin(realloc, bytecode, n, 0), wasmcore.Instr{Op: wasmcore.OpDataDrop, Index: bytecode})
		code = append(code, copyToPlugin(realloc, name, nameLen, 1)...)
		code = append(code, wasmcore.Instr{Op: wasmcore.OpDataDrop, Index: name})
		code = append(code, wasmcore.Instr{Op: wasmcore.OpLocalGet, Index: 0}, wasmcore.Instr{Op: wasmcore.OpI32Const, I32: n})
		if invokeParams == 5 {
			code = append(code, wasmcore.Instr{Op: wasmcore.OpI32Const, I32: 1})
		}
		code = append(code,
			wasmcore.Instr{Op: wasmcore.OpLocalGet, Index: 1},
			wasmcore.Instr{Op: wasmcore.OpI32Const, I32: nameLen},
			wasmcore.Instr{Op: wasmcore.OpCall, Index: invoke})
		f := m.AddFunction(function(m, code, 2))
		m.Exports = append(m.Exports, wasmcore.Export{Name: e.Wasm, Kind: wasmcore.ExternFunc, Index: f})
	}
	count := uint32(len(m.Data))
	m.DataCount = &count
	return nil
}
