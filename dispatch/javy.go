package dispatch

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/jsprof/jsprof/wasmcore"
)

// abiExports are the export names of Javy's plugin and module ABIs.
var abiExports = map[string]bool{
	"_start": true, "_initialize": true, "memory": true, "cabi_realloc": true,
	"canonical_abi_realloc": true, "canonical_abi_free": true,
	"initialize-runtime": true, "initialize_runtime": true,
	"compile-src": true, "compile_src": true, "invoke": true, "eval_bytecode": true,
	"shopify_main": true,
}

// detectJavy classifies the module's Javy shape.
func (an *analyzer) detectJavy() {
	m := an.m
	rep := an.rep
	j := Javy{Kind: JavyNone, Evidence: []string{}}
	ev := func(format string, args ...any) { j.Evidence = append(j.Evidence, fmt.Sprintf(format, args...)) }
	exp := map[string]bool{}
	for _, e := range m.Exports {
		exp[e.Name] = true
	}
	hasInterp := rep.Dispatch != nil || rep.Engine.Match != MatchNone
	ns := string(customSection(m, "import_namespace"))

	// Dynamic module: invoke and memory come from a plugin.
	importedFrom := map[string]map[string]bool{}
	for _, imp := range m.Imports {
		if importedFrom[imp.Module] == nil {
			importedFrom[imp.Module] = map[string]bool{}
		}
		importedFrom[imp.Module][imp.Name] = true
	}
	var dynNS string
	for mod, names := range importedFrom {
		if (names["invoke"] || names["eval_bytecode"]) && (names["cabi_realloc"] || names["canonical_abi_realloc"] || names["memory"]) {
			if dynNS == "" || mod < dynNS {
				dynNS = mod
			}
		}
	}

	startSeg := ProgramSegment(m)
	switch {
	case exp["_start"] && startSeg >= 0 && hasInterp && !exp["shopify_main"]:
		j.Kind = JavyStatic
		if _, detached := m.DetachedSegmentIndex(); detached {
			ev("the program's bytecode, passive data segment %d, is detached by jsprof and put back when the module runs", startSeg)
		} else {
			ev("_start copies passive data segment %d (the program's bytecode) with memory.init into a module that holds the interpreter", startSeg)
		}
	case exp["compile-src"] || exp["compile_src"]:
		j.Kind = JavyPlugin
		j.ImportNamespace = ns
		switch {
		case exp["initialize-runtime"] || exp["compile-src"] || exp["cabi_realloc"]:
			j.PluginABI = "newer"
			ev("exports initialize-runtime/compile-src/cabi_realloc: the newer plugin ABI")
		case exp["initialize_runtime"]:
			j.PluginABI = "older"
			ev("exports initialize_runtime/compile_src/canonical_abi_realloc: the older plugin ABI")
		default:
			j.PluginABI = "oldest"
			ev("exports compile_src without initialize_runtime: the oldest plugin ABI")
			if j.ImportNamespace == "" {
				j.ImportNamespace = "javy_quickjs_provider_v2"
				ev("no import_namespace section: the namespace is javy_quickjs_provider_v2")
			}
		}
		if exp["eval_bytecode"] {
			ev("exports eval_bytecode")
		}
		if ns != "" {
			ev("custom section import_namespace: %q", ns)
		}
	case dynNS != "" && rep.Dispatch == nil:
		j.Kind = JavyDynamic
		j.ImportNamespace = dynNS
		ev("imports invoke and memory/realloc from %q: a dynamic module, run with the plugin preloaded under that name", dynNS)
	case (exp["_start"] || exp["shopify_main"]) && hasInterp && (exp["shopify_main"] || an.mentionsJavy()):
		j.Kind = JavyOlder
		if exp["shopify_main"] {
			ev("exports shopify_main")
		} else {
			ev("QuickJS with _start and Javy's strings, without a passive bytecode segment")
		}
	case hasInterp:
		ev("QuickJS without Javy's exports or imports")
	}
	if j.Kind == JavyStatic || j.Kind == JavyDynamic {
		if startSeg >= 0 {
			seg := startSeg
			j.BytecodeSegment = &seg
		}
		for _, e := range m.Exports {
			if e.Kind == wasmcore.ExternFunc && !abiExports[e.Name] {
				j.JSExports = append(j.JSExports, e.Name)
			}
		}
		sort.Strings(j.JSExports)
	}
	rep.Javy = j
}

// ProgramSegment returns the passive data segment holding a Javy module's
// program: the one _start (or a function it calls) copies with
// memory.init, or the one jsprof detached from the module
// (wasmcore.DetachSegment); -1 if none. It reads two levels of calls, not
// the whole module: cheap enough to decide how to prepare a module before
// analysing it.
func ProgramSegment(m *wasmcore.Module) int {
	if seg, ok := m.DetachedSegmentIndex(); ok {
		return int(seg)
	}
	start, ok := m.ExportedFunc("_start")
	if !ok {
		return -1
	}
	seen := map[uint32]bool{}
	queue := []uint32{start}
	for depth := 0; depth < 2 && len(queue) > 0; depth++ {
		var next []uint32
		for _, fi := range queue {
			if seen[fi] {
				continue
			}
			seen[fi] = true
			f := m.Function(fi)
			if f == nil {
				continue
			}
			ir := wasmcore.NewInstrReader(f.Body)
			for {
				in, ok, err := ir.Next()
				if err != nil || !ok {
					break
				}
				switch in.Op {
				case wasmcore.OpMemoryInit:
					if int(in.Index) < len(m.Data) && m.Data[in.Index].Mode == wasmcore.DataPassive {
						return int(in.Index)
					}
				case wasmcore.OpCall:
					next = append(next, in.Index)
				}
			}
		}
		queue = next
	}
	return -1
}

// mentionsJavy reports whether the data or the producers section mention
// Javy.
func (an *analyzer) mentionsJavy() bool {
	if p := customSection(an.m, "producers"); p != nil && bytes.Contains(bytes.ToLower(p), []byte("javy")) {
		return true
	}
	for _, d := range an.m.Data {
		if bytes.Contains(d.Init, []byte("javy")) || bytes.Contains(d.Init, []byte("Javy")) {
			return true
		}
	}
	return false
}
