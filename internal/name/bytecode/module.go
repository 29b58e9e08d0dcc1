package bytecode

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/wasmcore"
)

// ProgramFromModule finds the program's serialized bytecode in a Javy
// module and parses it: for a static module, the passive data segment that
// _start copies (dispatch.Report.Javy.BytecodeSegment), with the engine of
// the same module. It returns nil, nil when the module carries no bytecode
// (a plugin, an older Javy module, a plain program). A dynamic module holds
// the bytecode but not the engine: use ProgramFromModules with its plugin.
func ProgramFromModule(m *wasmcore.Module, r *dispatch.Report) (*Program, error) {
	return ProgramFromModules(m, r, m, r)
}

// ProgramFromModules parses the bytecode carried by main (a static or
// dynamic Javy module, as mainReport describes it) for the engine in
// engine (the same module when static, the plugin when dynamic). It
// returns nil, nil when main carries no bytecode segment.
func ProgramFromModules(main *wasmcore.Module, mainReport *dispatch.Report, engine *wasmcore.Module, engineReport *dispatch.Report) (*Program, error) {
	if main == nil || mainReport == nil || mainReport.Javy.BytecodeSegment == nil {
		return nil, nil
	}
	if seg := *mainReport.Javy.BytecodeSegment; seg < 0 || seg >= len(main.Data) {
		return nil, fmt.Errorf("bytecode: bytecode segment %d: the module has %d data segments", seg, len(main.Data))
	}
	spec, err := EngineSpecForModule(engine, engineReport)
	if err != nil {
		return nil, err
	}
	return ProgramWithSpec(main, mainReport, spec)
}

// ProgramWithSpec is ProgramFromModules with the engine's spec given
// (EngineSpecForModule's): a caller that keeps the spec of an engine it
// has seen parses each program without reading the engine again.
func ProgramWithSpec(main *wasmcore.Module, mainReport *dispatch.Report, spec EngineSpec) (*Program, error) {
	if main == nil || mainReport == nil || mainReport.Javy.BytecodeSegment == nil {
		return nil, nil
	}
	seg := *mainReport.Javy.BytecodeSegment
	if seg < 0 || seg >= len(main.Data) {
		return nil, fmt.Errorf("bytecode: bytecode segment %d: the module has %d data segments", seg, len(main.Data))
	}
	prog, err := Parse(main.Data[seg].Init, spec)
	if err != nil {
		return nil, fmt.Errorf("bytecode: data segment %d: %w", seg, err)
	}
	return prog, nil
}

// EngineSpecForModule is EngineSpecFor plus the engine's builtin atoms,
// read from the module that holds the engine (AtomsFromModule).
func EngineSpecForModule(m *wasmcore.Module, r *dispatch.Report) (EngineSpec, error) {
	spec, err := EngineSpecFor(r)
	if err != nil {
		return spec, err
	}
	if m != nil {
		spec.Atoms = AtomsFromModule(m)
		spec.RQuickJS = RQuickJSFromModule(m)
	}
	return spec, nil
}

// rquickjsCrate starts the path of rquickjs's core crate in the source
// locations a Rust build keeps for panics ("…/rquickjs-core-0.6.1/src/…").
const rquickjsCrate = "rquickjs-core-"

// RQuickJSFromModule returns the version of the rquickjs crate the module
// was built with, from the crate paths of its panic locations; "" when it
// names none. rquickjs 0.4-0.6 patch Bellard QuickJS's serialization
// (a column and a pc → column table), which the version byte does not
// show. A Rust build keeps those paths unless built with
// -Zlocation-detail=none; an engine written in C has none.
func RQuickJSFromModule(m *wasmcore.Module) string {
	found := ""
	for _, d := range m.Data {
		b := d.Init
		for {
			i := bytes.Index(b, []byte(rquickjsCrate))
			if i < 0 {
				break
			}
			b = b[i+len(rquickjsCrate):]
			n := 0
			for n < len(b) && n < 16 && (b[n] == '.' || b[n] >= '0' && b[n] <= '9') {
				n++
			}
			if v := string(b[:n]); n > 0 && n < len(b) && b[n] == '/' {
				if found != "" && found != v {
					return "" // two versions: say nothing rather than pick one
				}
				found = v
			}
		}
	}
	return found
}

// atomInitPrefix starts QuickJS's js_atom_init[]: the strings of the
// builtin atoms (quickjs-atom.h), NUL-separated, from atom 1 on.
const atomInitPrefix = "null\x00false\x00true\x00if\x00else\x00return\x00var\x00this\x00"

// maxBuiltinAtoms bounds the builtin atoms read (QuickJS has about 230).
const maxBuiltinAtoms = 1024

// AtomsFromModule reads the engine's builtin atom strings from its data
// segments: js_atom_init[], one NUL-terminated string per atom from atom 1
// (null) to the last well-known symbol (Symbol.asyncIterator, or
// Symbol.operatorSet with CONFIG_BIGNUM). The result is indexed by atom
// value, index 0 (JS_ATOM_NULL) being "", so its length is JS_ATOM_END. It
// returns nil when the strings are not found exactly once.
func AtomsFromModule(m *wasmcore.Module) []string {
	var found []byte
	prefix := []byte(atomInitPrefix)
	for _, c := range dataChunks(m) {
		i := bytes.Index(c, prefix)
		if i < 0 {
			continue
		}
		if found != nil || bytes.Contains(c[i+1:], prefix) {
			return nil // ambiguous
		}
		found = c[i:]
	}
	if found == nil {
		return nil
	}
	atoms := []string{""}
	lastSymbol := -1
	for len(found) > 0 && len(atoms) < maxBuiltinAtoms {
		end := bytes.IndexByte(found, 0)
		if end < 0 {
			break
		}
		s := string(found[:end])
		isSym := strings.HasPrefix(s, "Symbol.")
		if lastSymbol >= 0 && !isSym {
			break // the well-known symbols are the last builtin atoms
		}
		atoms = append(atoms, s)
		if isSym {
			lastSymbol = len(atoms) - 1
		}
		found = found[end+1:]
	}
	if lastSymbol < 0 {
		return nil
	}
	return atoms[:lastSymbol+1]
}

// maxChunkGap merges data segments closer than this into one chunk (a
// snapshotter splits memory at runs of zero bytes).
const maxChunkGap = 64

// dataChunks returns the initial memory the active data segments (with
// constant offsets) describe, as runs of adjacent bytes
// (wasmcore.NewMemoryImage); segments closer than maxChunkGap are joined,
// the gap zero-filled.
func dataChunks(m *wasmcore.Module) [][]byte {
	var out [][]byte
	for _, c := range wasmcore.NewMemoryImage(m.Data, maxChunkGap-1, 0, 0).Chunks {
		out = append(out, c.Data)
	}
	return out
}
