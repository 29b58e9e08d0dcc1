package bytecode

import (
	"errors"
	"sort"
)

// QuickJS's pc → line encoding (both families): each entry is one byte
// op; op 0 is followed by a LEB128 pc delta and a zigzag LEB128 line
// delta; any other op packs both: pc delta (op-1)/5, line delta
// (op-1)%5 - 1. QuickJS-NG follows every entry with a zigzag LEB128 column
// delta. The engine's lookup (find_line_num) applies the entries whose pc
// is at most the pc looked up, starting from the function's own line (and
// column): an entry holds from its pc on.
const (
	pc2lineBase    = -1
	pc2lineRange   = 5
	pc2lineOpFirst = 1
)

// pcValue is one entry of a pc → value table.
type pcValue struct {
	pc  uint32
	val int
}

var errPC2Line = errors.New("truncated or malformed pc → line table")

// decodePC2Line decodes a Bellard-style table (lines, or columns in the
// patched variant) starting from start at pc 0. Entries at the same pc
// keep the last value, as the engine's lookup does.
func decodePC2Line(tab []byte, start int) ([]pcValue, error) {
	out := make([]pcValue, 1, len(tab)+1)
	out[0] = pcValue{0, start}
	pc, v := uint32(0), start
	for i := 0; i < len(tab); {
		dpc, dv, next, err := pc2lineStep(tab, i)
		if err != nil {
			return nil, err
		}
		i, pc, v = next, pc+dpc, v+dv
		out = appendPCValue(out, pcValue{pc, v})
	}
	return out, nil
}

// pc2lineStep decodes the entry at tab[i:]: one byte packing small pc and
// value deltas, or 0 then both as LEB128 (the value zigzag-encoded).
func pc2lineStep(tab []byte, i int) (dpc uint32, dv int, next int, err error) {
	op := tab[i]
	i++
	if op != 0 {
		o := int(op) - pc2lineOpFirst
		return uint32(o / pc2lineRange), o%pc2lineRange + pc2lineBase, i, nil
	}
	d, n, ok := getLEB(tab[i:])
	if !ok {
		return 0, 0, 0, errPC2Line
	}
	i += n
	z, n, ok := getLEB(tab[i:])
	if !ok {
		return 0, 0, 0, errPC2Line
	}
	return d, int(unzigzag(z)), i + n, nil
}

func appendPCValue(out []pcValue, e pcValue) []pcValue {
	if n := len(out); n > 0 && out[n-1].pc == e.pc {
		out[n-1] = e
		return out
	}
	return append(out, e)
}

// decodePC2LineNG decodes QuickJS-NG's table, whose entries carry a
// column delta after the line delta.
func decodePC2LineNG(tab []byte, line, col int) ([]PCLine, error) {
	out := make([]PCLine, 1, len(tab)/2+1)
	out[0] = PCLine{PC: 0, Line: line, Column: col}
	pc := uint32(0)
	for i := 0; i < len(tab); {
		dpc, dl, next, err := pc2lineStep(tab, i)
		if err != nil {
			return nil, err
		}
		i, pc, line = next, pc+dpc, line+dl
		dc, n, ok := getLEB(tab[i:])
		if !ok {
			return nil, errPC2Line
		}
		i += n
		col += int(unzigzag(dc))
		e := PCLine{PC: pc, Line: line, Column: col}
		if k := len(out); out[k-1].PC == pc {
			out[k-1] = e
		} else {
			out = append(out, e)
		}
	}
	return out, nil
}

// mergeLineColumn joins separate line and column tables into one,
// adding colAdd to every column.
func mergeLineColumn(lines, cols []pcValue, line0, col0, colAdd int) []PCLine {
	out := make([]PCLine, 0, len(lines)+len(cols))
	i, j := 0, 0
	line, col := line0, col0
	for i < len(lines) || j < len(cols) {
		var pc uint32
		switch {
		case j >= len(cols) || (i < len(lines) && lines[i].pc <= cols[j].pc):
			pc = lines[i].pc
		default:
			pc = cols[j].pc
		}
		for i < len(lines) && lines[i].pc == pc {
			line = lines[i].val
			i++
		}
		for j < len(cols) && cols[j].pc == pc {
			col = cols[j].val
			j++
		}
		out = append(out, PCLine{PC: pc, Line: line, Column: col + colAdd})
	}
	return out
}

// LineAt returns the table's position for pc (the last entry at or
// before it).
func LineAt(tab []PCLine, pc uint32) (PCLine, bool) {
	i := sort.Search(len(tab), func(i int) bool { return tab[i].PC > pc })
	if i == 0 {
		return PCLine{}, false
	}
	return tab[i-1], true
}

// DecodeLines builds a function's pc → line/column table from its debug
// fields in the given variant, and returns its first line and column,
// 1-based. colTab is FormatColumns' separate column table. FormatHeader
// tables carry the line and column themselves (line and col are ignored);
// FormatLines tables have no columns (0).
func DecodeLines(format Format, line, col int, tab, colTab []byte) (lines []PCLine, first PCLine, err error) {
	switch format {
	case FormatNG:
		lines, err = decodePC2LineNG(tab, line, col)
		return lines, PCLine{Line: line, Column: col}, err
	case FormatLines:
		lt, err := decodePC2Line(tab, line)
		if err != nil {
			return nil, PCLine{}, err
		}
		lines = make([]PCLine, len(lt))
		for i, e := range lt {
			lines[i] = PCLine{PC: e.pc, Line: e.val}
		}
		return lines, PCLine{Line: line}, nil
	case FormatHeader:
		// The header is the function's 0-based line and column; the
		// engine's lookup adds one to both.
		if len(tab) == 0 {
			return nil, PCLine{}, nil // a function without a position
		}
		l0, n, ok := getLEB(tab)
		if !ok {
			return nil, PCLine{}, errPC2Line
		}
		c0, m, ok := getLEB(tab[n:])
		if !ok || l0 >= 1<<30 || c0 >= 1<<30 {
			return nil, PCLine{}, errPC2Line
		}
		line, col = int(l0)+1, int(c0)+1
		lines, err = decodePC2LineNG(tab[n+m:], line, col)
		return lines, PCLine{Line: line, Column: col}, err
	case FormatColumns:
		lt, err := decodePC2Line(tab, line)
		if err != nil {
			return nil, PCLine{}, err
		}
		ct, err := decodePC2Line(colTab, col)
		if err != nil {
			return nil, PCLine{}, err
		}
		// Columns are 0-based in this variant; report them 1-based. A
		// function the engine made itself has neither line nor column.
		first := PCLine{Line: line, Column: col + 1}
		if line == 0 && col == 0 {
			first.Column = 0
		}
		return mergeLineColumn(lt, ct, line, col, 1), first, nil
	}
	return nil, PCLine{}, errors.New("unknown serialization variant")
}
