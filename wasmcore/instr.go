package wasmcore

import (
	"fmt"
	"math"
)

//go:generate go run mkopcodes.go

// Opcode identifies an instruction. Single-byte opcodes are the byte itself;
// prefixed opcodes are prefix<<24 | subopcode (prefixes 0xFC, 0xFD, 0xFE).
type Opcode uint32

// Prefix returns the prefix byte of a prefixed opcode, 0 for single-byte ones.
func (op Opcode) Prefix() byte { return byte(op >> 24) }

// immKind says which immediates follow an opcode.
type immKind uint8

const (
	immNone       immKind = iota
	immBlock              // block type (s33)
	immIndex              // one u32 index
	immIndex2             // two u32 indices
	immBrTable            // vec(label) label
	immSelectT            // vec(valtype)
	immMemArg             // memarg
	immI32                // s32
	immI64                // s64
	immF32                // 4 bytes
	immF64                // 8 bytes
	immRefType            // one reference type byte
	immV128               // 16 bytes
	immShuffle            // 16 lane indices
	immLane               // one lane byte
	immMemArgLane         // memarg, lane byte
	immFence              // one reserved byte
)

type opInfo struct {
	name string
	imm  immKind
}

func (op Opcode) info() (opInfo, bool) {
	var tab []opInfo
	switch op >> 24 {
	case 0:
		if op > 0xFF {
			return opInfo{}, false
		}
		tab = opsSingle[:]
	case 0xFC:
		tab = opsFC[:]
	case 0xFD:
		tab = opsFD[:]
	case 0xFE:
		tab = opsFE[:]
	default:
		return opInfo{}, false
	}
	sub := op & 0xFFFFFF
	if int(sub) >= len(tab) || tab[sub].name == "" {
		return opInfo{}, false
	}
	return tab[sub], true
}

// String returns the text-format mnemonic, e.g. "i32.load8_u".
func (op Opcode) String() string {
	if in, ok := op.info(); ok {
		return in.name
	}
	if op>>24 != 0 {
		return fmt.Sprintf("opcode(0x%02x 0x%x)", byte(op>>24), uint32(op&0xFFFFFF))
	}
	return fmt.Sprintf("opcode(0x%02x)", uint32(op))
}

// MemArg is the memory immediate of loads, stores and atomics. Align is the
// log2 alignment; Memory is non-zero only with the multi-memory encoding.
type MemArg struct {
	Align  uint32
	Offset uint64
	Memory uint32
}

// Instr is one decoded instruction. Only the immediates relevant to Op are
// set:
//
//   - Index: local, global, function, type, table, label, data, element,
//     memory or tag index. call_indirect: type index, Index2 the table.
//     memory.init/table.init: data/element index, Index2 the memory/table.
//     memory.copy/table.copy: destination, Index2 the source.
//   - Labels: br_table targets, default label last.
//   - Block: block type as s33: -64 (0x40, empty), a value type as a
//     negative number (-1 = i32), or a type index >= 0.
//   - Mem (and Lane for the lane loads and stores), I32/I64/F32/F64 (float
//     bits), V128 (v128.const bytes or i8x16.shuffle lanes), Lane,
//     RefType (ref.null), ValTypes (typed select).
type Instr struct {
	Op     Opcode
	Offset uint32 // offset of the first byte of the instruction within the body
	Len    uint32 // encoded length in bytes

	Index    uint32
	Index2   uint32
	Labels   []uint32
	Block    int64
	Mem      MemArg
	I32      int32
	I64      int64
	F32      uint32
	F64      uint64
	V128     [16]byte
	Lane     byte
	RefType  ValType
	ValTypes []ValType
}

// Block types as s33 values.
const (
	BlockEmpty int64 = -64 // 0x40
	BlockI32   int64 = -1  // 0x7F
	BlockI64   int64 = -2
	BlockF32   int64 = -3
	BlockF64   int64 = -4
	BlockV128  int64 = -5
)

// InstrReader decodes the instructions of a body one at a time. It does not
// allocate, except for br_table labels and typed select types.
type InstrReader struct {
	r reader
}

// forEachInstr calls f with each instruction of code, in order, until f or
// the decoding fails.
func forEachInstr(code []byte, f func(Instr) error) error {
	ir := NewInstrReader(code)
	for {
		in, ok, err := ir.Next()
		if err != nil || !ok {
			return err
		}
		if err := f(in); err != nil {
			return err
		}
	}
}

// NewInstrReader returns a reader over body; offsets are relative to body.
func NewInstrReader(body []byte) *InstrReader {
	return &InstrReader{r: reader{b: body, end: len(body), what: "body"}}
}

func newInstrReaderAt(body []byte, base int, what string) *InstrReader {
	return &InstrReader{r: reader{b: body, end: len(body), base: base, what: what}}
}

// Offset returns the offset of the next instruction.
func (ir *InstrReader) Offset() uint32 { return uint32(ir.r.pos) }

// Next decodes the next instruction. ok is false at the end of the body.
// After an error the reader stays at the failing instruction.
func (ir *InstrReader) Next() (in Instr, ok bool, err error) {
	r := &ir.r
	if r.pos >= r.end {
		return in, false, nil
	}
	start := r.pos
	// Decoding into the named result avoids copying the (large) Instr.
	if err = decodeInstr(r, &in); err != nil {
		r.pos = start
		return Instr{}, false, err
	}
	in.Offset = uint32(start)
	in.Len = uint32(r.pos - start)
	return in, true, nil
}

// DecodeInstructions decodes a whole body (the bytes of Function.Body).
func DecodeInstructions(body []byte) ([]Instr, error) {
	ir := NewInstrReader(body)
	// Most instructions are 1-3 bytes: a third of the length is a good
	// first guess without overcommitting memory for hostile input.
	out := make([]Instr, 0, len(body)/3+1)
	for {
		in, ok, err := ir.Next()
		if err != nil {
			return out, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, in)
	}
}

func decodeInstr(r *reader, in *Instr) error {
	start := r.pos
	c, err := r.byte()
	if err != nil {
		return err
	}
	op := Opcode(c)
	var info opInfo
	if c < 0xFC || c == 0xFF {
		info = opsSingle[c]
		if info.name == "" {
			return r.errAt(start, malformed("unknown opcode %v", op))
		}
	} else {
		sub, err := r.u32()
		if err != nil {
			return err
		}
		if sub > 0xFFFFFF {
			return r.errAt(start, malformed("unknown opcode 0x%02x 0x%x", c, sub))
		}
		op = Opcode(c)<<24 | Opcode(sub)
		var ok bool
		if info, ok = op.info(); !ok {
			return r.errAt(start, malformed("unknown opcode %v", op))
		}
	}
	in.Op = op
	switch info.imm {
	case immNone:
	case immBlock:
		in.Block, err = r.sN(33)
	case immIndex:
		in.Index, err = r.u32()
	case immIndex2:
		if in.Index, err = r.u32(); err == nil {
			in.Index2, err = r.u32()
		}
	case immBrTable:
		var n int
		if n, err = r.count(1); err != nil {
			return err
		}
		in.Labels = make([]uint32, n+1)
		for i := range in.Labels {
			if in.Labels[i], err = r.u32(); err != nil {
				return err
			}
		}
	case immSelectT:
		var n int
		if n, err = r.count(1); err != nil {
			return err
		}
		in.ValTypes = make([]ValType, n)
		for i := range in.ValTypes {
			if in.ValTypes[i], err = r.valType(); err != nil {
				return err
			}
		}
	case immMemArg:
		in.Mem, err = readMemArg(r)
	case immMemArgLane:
		if in.Mem, err = readMemArg(r); err == nil {
			in.Lane, err = r.byte()
		}
	case immI32:
		in.I32, err = r.s32()
	case immI64:
		in.I64, err = r.s64()
	case immF32:
		in.F32, err = r.u32le()
	case immF64:
		in.F64, err = r.u64le()
	case immRefType:
		in.RefType, err = r.refType()
	case immV128, immShuffle:
		var b []byte
		if b, err = r.bytes(16); err == nil {
			copy(in.V128[:], b)
		}
	case immLane:
		in.Lane, err = r.byte()
	case immFence:
		var b byte
		b, err = r.byte()
		in.Index = uint32(b)
	}
	return err
}

func readMemArg(r *reader) (MemArg, error) {
	var m MemArg
	flags, err := r.u32()
	if err != nil {
		return m, err
	}
	// Bit 6 of the alignment field announces an explicit memory index
	// (multi-memory proposal).
	if flags&0x40 != 0 {
		flags &^= 0x40
		if m.Memory, err = r.u32(); err != nil {
			return m, err
		}
	}
	m.Align = flags
	m.Offset, err = r.u64()
	return m, err
}

// AppendInstr appends the canonical encoding of in to dst. Offset and Len
// are ignored. An unknown opcode is appended as its bare opcode bytes.
func AppendInstr(dst []byte, in Instr) []byte {
	op := in.Op
	if p := op >> 24; p != 0 {
		dst = append(dst, byte(p))
		dst = appendU32(dst, uint32(op&0xFFFFFF))
	} else {
		dst = append(dst, byte(op))
	}
	info, _ := op.info()
	switch info.imm {
	case immBlock:
		dst = appendS64(dst, in.Block)
	case immIndex:
		dst = appendU32(dst, in.Index)
	case immIndex2:
		dst = appendU32(appendU32(dst, in.Index), in.Index2)
	case immBrTable:
		n := len(in.Labels) - 1
		if n < 0 {
			// No default label given: branch to the innermost block.
			return append(appendU32(dst, 0), 0)
		}
		dst = appendU32(dst, uint32(n))
		for _, l := range in.Labels {
			dst = appendU32(dst, l)
		}
	case immSelectT:
		dst = appendU32(dst, uint32(len(in.ValTypes)))
		for _, t := range in.ValTypes {
			dst = append(dst, byte(t))
		}
	case immMemArg, immMemArgLane:
		if in.Mem.Memory != 0 {
			dst = appendU32(dst, in.Mem.Align|0x40)
			dst = appendU32(dst, in.Mem.Memory)
		} else {
			dst = appendU32(dst, in.Mem.Align)
		}
		dst = appendU64(dst, in.Mem.Offset)
		if info.imm == immMemArgLane {
			dst = append(dst, in.Lane)
		}
	case immI32:
		dst = appendS64(dst, int64(in.I32))
	case immI64:
		dst = appendS64(dst, in.I64)
	case immF32:
		dst = append(dst, byte(in.F32), byte(in.F32>>8), byte(in.F32>>16), byte(in.F32>>24))
	case immF64:
		for i := 0; i < 8; i++ {
			dst = append(dst, byte(in.F64>>(8*i)))
		}
	case immRefType:
		dst = append(dst, byte(in.RefType))
	case immV128, immShuffle:
		dst = append(dst, in.V128[:]...)
	case immLane:
		dst = append(dst, in.Lane)
	case immFence:
		dst = append(dst, byte(in.Index))
	}
	return dst
}

// F32Value and F64Value return the float immediates as numbers.
func (in Instr) F32Value() float32 { return math.Float32frombits(in.F32) }

// F64Value returns the f64.const immediate as a number.
func (in Instr) F64Value() float64 { return math.Float64frombits(in.F64) }
