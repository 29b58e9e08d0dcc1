package dispatch

// OpcodeTableInfo is a read-only view of one opcode table of the embedded
// catalog, as an engine compiled with it numbers its opcodes.
type OpcodeTableInfo struct {
	// ID is the variant's id, as in TableRef.ID (a table id, with
	// "/no-bignum" when the CONFIG_BIGNUM opcodes are left out).
	ID     string
	Engine string // "bellard" or "quickjs-ng"
	// Formats are the operand formats in OP_FMT_* order: OpcodeDef.Fmt
	// indexes it.
	Formats []string
	// Opcodes are the regular opcodes, index = opcode value (the
	// interpreter's numbering: temporary opcodes are left out, as
	// short_opcode_info() skips them).
	Opcodes []OpcodeDef
	// Temporary are the compiler-only opcodes, in header order.
	Temporary []OpcodeDef
}

// OpcodeDef is one opcode_info[] record.
type OpcodeDef struct {
	Name  string
	Size  int // bytes, opcode included
	NPop  int
	NPush int
	Fmt   int // index in OpcodeTableInfo.Formats
}

// FormatName returns the name of the opcode's operand format, "" when out
// of range.
func (t *OpcodeTableInfo) FormatName(d OpcodeDef) string {
	if d.Fmt < 0 || d.Fmt >= len(t.Formats) {
		return ""
	}
	return t.Formats[d.Fmt]
}

// OpcodeTable returns the catalog table (variant) with the given id, as
// reported in Engine.Tables. Each call returns a fresh copy.
func OpcodeTable(id string) (*OpcodeTableInfo, bool) {
	c, err := loadCatalog()
	if err != nil {
		return nil, false
	}
	for _, v := range c.variants {
		if v.ID() != id {
			continue
		}
		info := &OpcodeTableInfo{ID: v.ID(), Engine: v.table.Engine, Formats: append([]string(nil), v.table.Formats...)}
		for _, r := range v.records {
			d := OpcodeDef{Name: r.name, Size: int(r.size), NPop: int(r.nPop), NPush: int(r.nPush), Fmt: int(r.f)}
			if r.temp {
				info.Temporary = append(info.Temporary, d)
			} else {
				info.Opcodes = append(info.Opcodes, d)
			}
		}
		return info, true
	}
	return nil, false
}
