package jsframes

import (
	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/jsframes/meter"
)

// Identity names measured functions and the lines of their pcs.
type Identity interface {
	// Function returns a function's display name, file and first line.
	Function(f meter.FunctionCost) (name, file string, line int)
	// Line returns the source line of a pc of f, 0 when unknown.
	Line(f meter.FunctionCost, pc uint32) int
}

// AddressIdentity names functions by their bytecode address, with no lines:
// what is known before a function is matched to its source.
type AddressIdentity struct{}

func (AddressIdentity) Function(f meter.FunctionCost) (string, string, int) { return AddressName(f) }
func (AddressIdentity) Line(meter.FunctionCost, uint32) int                 { return 0 }

// ExactProfile turns the meter's exact results into a profile: per function
// and pc, the stack JS frame (at the pc's line) → opcode frame with the
// pc's instructions and executions; per function, its calls on the JS
// frame alone; per bucket, its instructions.
func ExactProfile(res *meter.Results, meta ProfileMeta, ops OpcodeNamer, id Identity) (*profile.Profile, error) {
	if id == nil {
		id = AddressIdentity{}
	}
	meta.Mode = "exact"
	meta.TotalInstructions = res.TotalInstructions
	b := NewProfileBuilder(meta)
	for _, f := range res.Functions {
		name, file, line := id.Function(f)
		at := func(pc uint32) Frame {
			l := id.Line(f, pc)
			if l == 0 {
				l = line
			}
			return JSFrame(name, file, line, l, f.Address, pc)
		}
		b.Add([]Frame{at(0)}, 0, 0, int64(f.Calls))
		b.Add([]Frame{at(0), OpcodeFrame(ops.Name(meter.CallSetup), meter.CallSetup)}, int64(f.CallSetupInstructions), 0, 0)
		if f.PCs == nil { // slots by opcode: no pcs, no lines
			for _, o := range f.Opcodes {
				if o.Opcode != meter.CallSetup {
					b.Add([]Frame{at(0), OpcodeFrame(ops.Name(o.Opcode), o.Opcode)}, int64(o.Instructions), int64(o.Executions), 0)
				}
			}
			continue
		}
		for _, pc := range f.PCs {
			b.Add([]Frame{at(pc.PC), OpcodeFrame(ops.Name(pc.Opcode), pc.Opcode)}, int64(pc.Instructions), int64(pc.Executions), 0)
		}
	}
	for _, bk := range res.Buckets {
		b.Add([]Frame{BucketFrame(bk.Name)}, int64(bk.Instructions), 0, 0)
	}
	return b.Profile()
}

// Identity adapts the namer to Identity: display names and lines from the
// matched serialized function, or from the engine's memory.
func (n *Namer) Identity() Identity { return namerIdentity{n} }

type namerIdentity struct{ n *Namer }

func (i namerIdentity) Function(f meter.FunctionCost) (string, string, int) {
	info := i.n.Name(f)
	return info.Name, info.File, info.Line
}

func (i namerIdentity) Line(f meter.FunctionCost, pc uint32) int {
	line, _, ok := i.n.LineOf(f, pc)
	if !ok {
		return 0
	}
	return line
}

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

func (r renamed) Function(f meter.FunctionCost) (string, string, int) {
	name, file, line := r.Identity.Function(f)
	if file == r.from {
		file = r.to
	}
	return name, file, line
}
