package stacks

import (
	"fmt"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Identity names measured functions and the lines of their pcs
// (package naming's Namer is the real one).
type Identity interface {
	// Function returns a function's display name, file, and first line
	// and column (1-based; 0 when unknown).
	Function(f costs.FunctionCost) (name, file string, line, column int)
	// Line returns the source line and column of a pc of f, 0 when
	// unknown.
	Line(f costs.FunctionCost, pc uint32) (line, column int)
}

// AddressIdentity names functions by their bytecode address, with no lines:
// what is known before a function is matched to its source.
type AddressIdentity struct{}

// Function names f bytecode@0xADDR.
func (AddressIdentity) Function(f costs.FunctionCost) (string, string, int, int) {
	return fmt.Sprintf("bytecode@%#x", f.Address), "", 0, 0
}

// Line knows no lines.
func (AddressIdentity) Line(costs.FunctionCost, uint32) (int, int) { return 0, 0 }

// RenameFile shows functions of file from as file to: Javy compiles every
// program as "function.mjs", while the user knows, and pprof can find,
// their own file.
func RenameFile(id Identity, from, to string) Identity {
	return renamed{id, from, to}
}

type renamed struct {
	Identity
	from, to string
}

// NativeName forwards to the renamed identity's natives, if it names any.
func (r renamed) NativeName(tableIndex uint32, magic int16) string {
	return nativeName(r.Identity, tableIndex, magic)
}

// CallName forwards to the renamed identity's call-site names.
func (r renamed) CallName(f costs.FunctionCost, pc uint32) string {
	return forwardCallName(r.Identity, f, pc)
}

func (r renamed) Function(f costs.FunctionCost) (string, string, int, int) {
	name, file, line, col := r.Identity.Function(f)
	if file == r.from {
		file = r.to
	}
	return name, file, line, col
}

// OpcodeNamer names opcode values, as the dispatch analysis named them;
// it may be shorter than 256.
type OpcodeNamer []string

// Name returns the opcode's name: jsprofile.CallSetupName for the call
// setup, op_N when unknown.
func (n OpcodeNamer) Name(op int) string {
	if op == jsprofile.CallSetup {
		return jsprofile.CallSetupName
	}
	if op >= 0 && op < len(n) && n[op] != "" {
		return n[op]
	}
	return fmt.Sprintf("op_%d", op)
}

// NativeNamer names a native function by what its function object holds:
// its C function's table index and its magic (package natives' Catalogue
// does, through internal/profiler); "" when it cannot.
type NativeNamer func(tableIndex uint32, magic int16) string

// WithNatives returns id naming natives with names too.
func WithNatives(id Identity, names NativeNamer) Identity {
	return withNatives{Identity: id, names: names}
}

type withNatives struct {
	Identity
	names NativeNamer
}

func (w withNatives) NativeName(tableIndex uint32, magic int16) string {
	return w.names(tableIndex, magic)
}

// CallName forwards to the wrapped identity's call-site names.
func (w withNatives) CallName(f costs.FunctionCost, pc uint32) string {
	return forwardCallName(w.Identity, f, pc)
}

// nativeName names a native through id when it names natives (WithNatives),
// else, as when id has no name for it, by its table index: never a guess.
func nativeName(id Identity, tableIndex uint32, magic int16) string {
	if name := declaredNative(id, tableIndex, magic); name != "" {
		return name
	}
	return fmt.Sprintf("native@table[%d]", tableIndex)
}

// declaredNative is id's name for the native, "" when it names none (no
// function list of the engine declares it).
func declaredNative(id Identity, tableIndex uint32, magic int16) string {
	if n, ok := id.(interface {
		NativeName(uint32, int16) string
	}); ok {
		return n.NativeName(tableIndex, magic)
	}
	return ""
}

// callNamer is id's way of naming what a call site called
// (naming.Namer.CallName), nil if it has none.
func callNamer(id Identity) func(costs.FunctionCost, uint32) string {
	if n, ok := id.(interface {
		CallName(costs.FunctionCost, uint32) string
	}); ok {
		return n.CallName
	}
	return nil
}

// forwardCallName is id's name for what a call site called, "" when it
// names none.
func forwardCallName(id Identity, f costs.FunctionCost, pc uint32) string {
	if n := callNamer(id); n != nil {
		return n(f, pc)
	}
	return ""
}
