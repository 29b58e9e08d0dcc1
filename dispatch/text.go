package dispatch

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for people: the dispatch, the engine, the
// Javy shape, then the candidates with their evidence.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	mod := r.Module
	p("module: %d functions (%d imported), %d bytes of code, %d data segments", mod.Functions, mod.ImportedFunctions, mod.CodeBytes, mod.DataSegments)
	var extras []string
	if mod.NameSection {
		extras = append(extras, "name section")
	}
	if mod.DWARF {
		extras = append(extras, "DWARF")
	}
	if len(extras) > 0 {
		p(", %s", strings.Join(extras, ", "))
	}
	p("\n\n")

	if d := r.Dispatch; d != nil {
		name := d.FunctionName
		if name == "" {
			name = "unnamed"
		}
		p("dispatch: function %d (%s), br_table at %#x, %d opcodes, %d handlers, confidence %.2f\n",
			d.FunctionIndex, name, d.BrTableOffset, d.OpcodeCount, d.DistinctHandlers, d.Confidence)
		s := d.Selector
		switch s.Kind {
		case "lookup":
			p("  selector: table[opcode - %d] - %d, %d-byte entries at %#x", s.TableBias, s.Bias, s.TableWidth, s.TableAddress)
			if s.RangeGuard > 0 {
				p(", index below %d", s.RangeGuard)
			}
			p("\n")
		default:
			p("  selector: opcode - %d\n", s.Bias)
		}
		p("  expression: %s\n", s.Expr)
		p("  opcode loads at %s\n", hexList(s.ByteLoads))
		switch d.PC.Kind {
		case "local":
			p("  pc: local %d", d.PC.Local)
		case "memory":
			p("  pc: in memory at local %d + %d", d.PC.BaseLocal, d.PC.Offset)
		default:
			p("  pc: not found")
		}
		if len(d.PC.Strides) > 0 {
			p(", advanced by %s", joinInts(d.PC.Strides))
		}
		p("; %d operand reads\n", d.PC.OperandReads)
		if d.LoopOffset != 0 {
			p("  dispatch loop at %#x\n", d.LoopOffset)
		}
		if len(d.OtherBrTables) > 0 {
			p("  other br_tables on the same opcode: %s\n", hexList(d.OtherBrTables))
		}
		if bp := d.BytecodePointer; bp != nil {
			p("  bytecode pointer: pc = %s", bp.Expr)
			if bp.ClassIDOffset != nil {
				p(", after checking the 16-bit field at +%d == %d", *bp.ClassIDOffset, *bp.ClassID)
			}
			p("\n")
		}
	} else {
		p("dispatch: none\n")
	}
	p("  %s\n\n", r.Reason)

	e := r.Engine
	p("engine: %s", e.Family)
	switch e.Match {
	case MatchExact, MatchAligned, MatchDWARF:
		p(" (%s match", e.Match)
		if e.Match == MatchAligned {
			p(", similarity %.3f", e.Similarity)
		}
		p(")")
	case MatchNames:
		p(" (name section only)")
	}
	p("\n")
	if len(e.Releases) > 0 {
		p("  releases: %s\n", strings.Join(e.Releases, ", "))
	}
	for _, t := range e.Tables {
		shipped := "no release"
		if len(t.ShippedIn) > 0 {
			shipped = strings.Join(t.ShippedIn, ", ")
		}
		p("  table %s: %s, first in commit %.12s of %s, %d opcodes (%s)\n", t.ID, t.Engine, t.FirstCommit, t.FirstDate, t.OpCount, shipped)
	}
	if e.OpcodeInfo != nil {
		p("  opcode_info[] at %#x, %d records of %d bytes\n", e.OpcodeInfo.Address, e.OpcodeInfo.Records, e.OpcodeInfo.Stride)
	}
	if e.OpcodeCount > 0 {
		p("  %d opcodes, names from %s\n", e.OpcodeCount, e.OpcodeNamesSource)
	}
	for _, u := range e.UncertainOpcodes {
		name := u.Name
		if name == "" {
			name = "?"
		}
		p("  uncertain opcode %d (%s): %s\n", u.Opcode, name, u.Reason)
	}
	for _, ev := range e.Evidence {
		p("  - %s\n", ev)
	}
	p("\n")

	j := r.Javy
	p("javy: %s", j.Kind)
	if j.PluginABI != "" {
		p(", %s plugin ABI", j.PluginABI)
	}
	if j.ImportNamespace != "" {
		p(", namespace %q", j.ImportNamespace)
	}
	if j.BytecodeSegment != nil {
		p(", bytecode in data segment %d", *j.BytecodeSegment)
	}
	if len(j.JSExports) > 0 {
		p(", JS exports %s", strings.Join(j.JSExports, ", "))
	}
	p("\n")
	for _, ev := range j.Evidence {
		p("  - %s\n", ev)
	}
	p("\n")

	p("candidates (%d", len(r.Candidates))
	if r.OmittedCandidates > 0 {
		p(", %d more omitted", r.OmittedCandidates)
	}
	p("):\n")
	for _, c := range r.Candidates {
		name := c.FunctionName
		if name == "" {
			name = "unnamed"
		}
		p("  %.2f  function %d (%s), br_table at %#x, %d entries, selector %s", c.Confidence, c.FunctionIndex, name, c.BrTableOffset, c.Entries, c.Selector)
		if c.Selector != "other" {
			p(", %d opcodes, %d handlers", c.OpcodeCount, c.DistinctHandlers)
		}
		p("\n")
		for _, ev := range c.Evidence {
			p("        %s\n", ev)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func hexList(xs []uint32) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%#x", x))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func joinInts[T any](xs []T) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}
