package wasmcore

import (
	"bytes"
	"fmt"
	"math"
)

// Two static Javy modules built from different JS with one plugin differ in
// two places only: the passive data segment that holds the program's
// bytecode, and the constants giving its length in the function that copies
// it into memory (`i32.const 0; i32.const LEN; memory.init SEG`). Everything
// a runtime compiles — a megabyte of interpreter code — is the same, yet
// the module's bytes differ, and a compilation cache keyed by them compiles
// the interpreter again for every program.
//
// DetachSegment takes the program out of the code: the segment is emptied,
// the copy reads the bytes from where the host put them
// (`global.get BASE; global.get LEN; memory.copy`) and every `i32.const LEN`
// of the copying functions becomes `global.get LEN`. The result is the same
// module for every program of a plugin; the host grows the instance's
// memory, writes the bytes there and sets the two exported globals before
// the module runs. Each replacement is one instruction for one, of the same
// cost under every cost model, so instruction counts do not change.

// Names of what DetachSegment adds to a module.
const (
	// DetachedSection is the custom section recording which passive
	// segment was detached (its index as an unsigned LEB128): analyses that
	// look for the segment a module copies find it there.
	DetachedSection = "jsprof.detached_segment"
	// DetachedBaseExport and DetachedLenExport are the exported mutable
	// i32 globals the host sets: where it wrote the bytes, and how many.
	DetachedBaseExport = "jsprof.detached_base"
	DetachedLenExport  = "jsprof.detached_len"
)

// DetachedSegment is what DetachSegment took out of a module.
type DetachedSegment struct {
	Index uint32 // the passive data segment
	Bytes []byte // its contents, to be written to memory before the module runs
}

// DetachSegment detaches passive data segment seg (see above). It refuses,
// leaving the module as it was, unless every memory.init of the segment
// copies all of it from offset 0 with constant operands, in a module with
// one memory: the shape Javy's code generator writes.
func (m *Module) DetachSegment(seg uint32) (*DetachedSegment, error) {
	if int(seg) >= len(m.Data) {
		return nil, fmt.Errorf("wasmcore: detach: no data segment %d (%d segments)", seg, len(m.Data))
	}
	if _, ok := m.customSection(DetachedSection); ok {
		return nil, fmt.Errorf("wasmcore: detach: a segment is detached already")
	}
	d := &m.Data[seg]
	switch {
	case d.Mode != DataPassive:
		return nil, fmt.Errorf("wasmcore: detach: data segment %d is not passive", seg)
	case len(d.Init) < 2 || len(d.Init) > math.MaxInt32:
		// A length of 0 or 1 is too common a constant to stand for the
		// segment's.
		return nil, fmt.Errorf("wasmcore: detach: data segment %d has %d bytes", seg, len(d.Init))
	case m.numMemories() != 1:
		return nil, fmt.Errorf("wasmcore: detach: the module has %d memories, not one", m.numMemories())
	}
	length := int32(len(d.Init))
	nglobals := m.NumImportedGlobals() + uint32(len(m.Globals))
	base, lenGlobal := nglobals, nglobals+1

	bodies := map[int][]byte{}
	for i := range m.Functions {
		body := m.Functions[i].Body
		// memory.init's two opcode bytes: most bodies have none.
		if !bytes.Contains(body, []byte{0xFC, 0x08}) {
			continue
		}
		fi := m.NumImportedFuncs() + uint32(i)
		instrs, err := DecodeInstructions(body)
		if err != nil {
			return nil, fmt.Errorf("wasmcore: detach: function %d: %w", fi, err)
		}
		var edits []BodyEdit
		for k, in := range instrs {
			if in.Op != OpMemoryInit || in.Index != seg {
				continue
			}
			if k < 2 || instrs[k-2].Op != OpI32Const || instrs[k-2].I32 != 0 || instrs[k-1].Op != OpI32Const || instrs[k-1].I32 != length {
				return nil, fmt.Errorf("wasmcore: detach: memory.init of data segment %d at offset %#x of function %d does not copy all of it with constant operands", seg, m.Functions[i].BodyOffset+in.Offset, fi)
			}
			src := instrs[k-2]
			edits = append(edits,
				BodyEdit{At: src.Offset, Remove: src.Len, Insert: AppendInstr(nil, Instr{Op: OpGlobalGet, Index: base})},
				BodyEdit{At: in.Offset, Remove: in.Len, Insert: AppendInstr(nil, Instr{Op: OpMemoryCopy, Index: in.Index2, Index2: in.Index2})})
		}
		if len(edits) == 0 {
			continue
		}
		// Every constant equal to the length becomes the global, which
		// holds the same value: the body no longer depends on the program.
		// (The source operand, 0, is not one of them: length > 1.)
		for _, in := range instrs {
			if in.Op == OpI32Const && in.I32 == length {
				edits = append(edits, BodyEdit{At: in.Offset, Remove: in.Len, Insert: AppendInstr(nil, Instr{Op: OpGlobalGet, Index: lenGlobal})})
			}
		}
		out, err := EditBody(body, edits)
		if err != nil {
			return nil, fmt.Errorf("wasmcore: detach: function %d: %w", fi, err)
		}
		bodies[i] = out
	}
	if len(bodies) == 0 {
		return nil, fmt.Errorf("wasmcore: detach: no function copies data segment %d", seg)
	}

	detached := &DetachedSegment{Index: seg, Bytes: d.Init}
	for i, b := range bodies {
		m.Functions[i].Body = b
	}
	d.Init = nil
	for _, name := range []string{DetachedBaseExport, DetachedLenExport} {
		g := m.AddGlobal(Global{Type: GlobalType{Type: ValI32, Mutable: true}, Init: ConstI32(0)})
		m.Exports = append(m.Exports, Export{Name: name, Kind: ExternGlobal, Index: g})
	}
	m.Customs = append(m.Customs, CustomSection{Name: DetachedSection, Data: appendU32(nil, seg), After: m.lastSection()})
	return detached, nil
}

// DetachedSegmentIndex returns the segment DetachSegment detached from the
// module, if any.
func (m *Module) DetachedSegmentIndex() (uint32, bool) {
	b, ok := m.customSection(DetachedSection)
	if !ok {
		return 0, false
	}
	r := &reader{b: b, end: len(b)}
	seg, err := r.u32()
	if err != nil || r.pos != len(b) || int(seg) >= len(m.Data) || m.Data[seg].Mode != DataPassive {
		return 0, false
	}
	return seg, true
}

// numMemories counts imported and defined memories.
func (m *Module) numMemories() int {
	n := len(m.Memories)
	for _, imp := range m.Imports {
		if imp.Kind == ExternMemory {
			n++
		}
	}
	return n
}

// customSection returns the data of the first custom section called name.
func (m *Module) customSection(name string) ([]byte, bool) {
	for _, c := range m.Customs {
		if c.Name == name {
			return c.Data, true
		}
	}
	return nil, false
}

// lastSection is the id of the last known section the module has, for a
// custom section to follow.
func (m *Module) lastSection() SectionID {
	switch {
	case len(m.Data) > 0:
		return SectionData
	case len(m.Functions) > 0:
		return SectionCode
	}
	return SectionExport
}
