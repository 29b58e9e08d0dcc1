package jsframes

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/jsframes/meter"
)

// CostReport is the exact cost of one run with names: the JSON document of
// `jsprof run --report-json` (docs/cost-report.md).
type CostReport struct {
	TotalWasmInstructions uint64         `json:"total_wasm_instructions"`
	Engine                EngineInfo     `json:"engine"`
	Opcodes               []OpcodeCost   `json:"opcodes"`
	Functions             []FunctionCost `json:"functions"`
	Buckets               []BucketCost   `json:"buckets"`
}

// EngineInfo says which engine ran, as the dispatch analysis identified it.
type EngineInfo struct {
	Family   string   `json:"family"`
	Releases []string `json:"releases"`
	// OpcodeNamesSource says where opcode names came from (dispatch.Names*);
	// "" when opcodes are named by number.
	OpcodeNamesSource string `json:"opcode_names_source"`
}

// OpcodeCost is one opcode's cost, in total or within one function.
type OpcodeCost struct {
	Name             string  `json:"name"`
	Opcode           int     `json:"opcode"` // the byte value; 256 is the call-setup pseudo-opcode
	Executions       uint64  `json:"executions"`
	WasmInstructions uint64  `json:"wasm_instructions"`
	PerExecution     float64 `json:"instructions_per_execution"`
}

// FunctionCost is one JS function's cost.
type FunctionCost struct {
	Name                  string       `json:"name"`
	File                  string       `json:"file"` // "" until the function is matched to its source
	Line                  int          `json:"line"`
	Address               uint32       `json:"bytecode_address"`
	Length                uint32       `json:"bytecode_length"` // 0 when unknown
	Resumptions           int          `json:"resumptions,omitempty"`
	Calls                 uint64       `json:"calls"`
	SelfWasmInstructions  uint64       `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64       `json:"total_wasm_instructions"`
	Opcodes               []OpcodeCost `json:"opcodes"`
}

// BucketCost is a named bucket of instructions outside JS opcodes.
type BucketCost struct {
	Name             string `json:"name"`
	WasmInstructions uint64 `json:"wasm_instructions"`
}

// CallSetupName names the meter's call-setup pseudo-opcode.
const CallSetupName = "(call setup)"

// OpcodeNamer names opcode values; names may be shorter than 256.
type OpcodeNamer []string

// Name returns the opcode's name, or op_N when unknown.
func (n OpcodeNamer) Name(op int) string {
	if op == meter.CallSetup {
		return CallSetupName
	}
	if op >= 0 && op < len(n) && n[op] != "" {
		return n[op]
	}
	return fmt.Sprintf("op_%d", op)
}

// FunctionName names a function the meter measured; the default names it by
// address, as "bytecode@0x1234".
type FunctionName func(f meter.FunctionCost) (name, file string, line int)

// AddressName is the FunctionName used before functions are matched to
// their source.
func AddressName(f meter.FunctionCost) (string, string, int) {
	return fmt.Sprintf("bytecode@%#x", f.Address), "", 0
}

// NewCostReport names res.
func NewCostReport(res *meter.Results, engine EngineInfo, ops OpcodeNamer, name FunctionName) *CostReport {
	if name == nil {
		name = AddressName
	}
	convert := func(in []meter.OpcodeCost) []OpcodeCost {
		out := make([]OpcodeCost, 0, len(in))
		for _, o := range in {
			c := OpcodeCost{Name: ops.Name(o.Opcode), Opcode: o.Opcode, Executions: o.Executions, WasmInstructions: o.Instructions}
			if o.Executions > 0 {
				c.PerExecution = float64(o.Instructions) / float64(o.Executions)
			}
			out = append(out, c)
		}
		sortByCost(out)
		return out
	}
	r := &CostReport{TotalWasmInstructions: res.TotalInstructions, Engine: engine, Opcodes: convert(res.OpcodeTotals())}
	for _, f := range res.Functions {
		n, file, line := name(f)
		r.Functions = append(r.Functions, FunctionCost{
			Name: n, File: file, Line: line, Address: f.Address, Length: f.Length, Resumptions: len(f.Resumptions), Calls: f.Calls,
			SelfWasmInstructions: f.SelfInstructions, TotalWasmInstructions: f.TotalInstructions,
			Opcodes: convert(f.Opcodes),
		})
	}
	sort.SliceStable(r.Functions, func(i, j int) bool {
		return r.Functions[i].SelfWasmInstructions > r.Functions[j].SelfWasmInstructions
	})
	for _, b := range res.Buckets {
		r.Buckets = append(r.Buckets, BucketCost{Name: b.Name, WasmInstructions: b.Instructions})
	}
	return r
}

func sortByCost(ops []OpcodeCost) {
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].WasmInstructions != ops[j].WasmInstructions {
			return ops[i].WasmInstructions > ops[j].WasmInstructions
		}
		return ops[i].Opcode < ops[j].Opcode
	})
}

// WriteJSON writes the report as one indented JSON document.
func (r *CostReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the per-opcode table, the top opcodes by cost, then the
// top functions and the buckets, for a terminal.
func (r *CostReport) WriteTable(w io.Writer, top int) error {
	share := func(n uint64) string {
		if r.TotalWasmInstructions == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(r.TotalWasmInstructions))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "jsprof: %s Wasm instructions in total", Human(r.TotalWasmInstructions))
	if r.Engine.Family != "" {
		fmt.Fprintf(&b, " (engine: %s", r.Engine.Family)
		if len(r.Engine.Releases) > 0 {
			fmt.Fprintf(&b, " %s", strings.Join(r.Engine.Releases, ", "))
		}
		b.WriteString(")")
	}
	b.WriteString("\n\n")
	rows := [][]string{{"opcode", "executions", "wasm instr", "instr/exec", "share"}}
	for i, o := range r.Opcodes {
		if top > 0 && i == top {
			rows = append(rows, []string{fmt.Sprintf("… %d more", len(r.Opcodes)-top), "", "", "", ""})
			break
		}
		rows = append(rows, []string{o.Name, Human(o.Executions), Human(o.WasmInstructions), perExecution(o), share(o.WasmInstructions)})
	}
	writeRows(&b, rows)
	b.WriteString("\n")
	rows = [][]string{{"function", "calls", "self instr", "total instr", "self share"}}
	for i, f := range r.Functions {
		if top > 0 && i == top {
			rows = append(rows, []string{fmt.Sprintf("… %d more", len(r.Functions)-top), "", "", "", ""})
			break
		}
		name := f.Name
		if f.File != "" {
			name = fmt.Sprintf("%s (%s:%d)", f.Name, f.File, f.Line)
		}
		rows = append(rows, []string{name, Human(f.Calls), Human(f.SelfWasmInstructions), Human(f.TotalWasmInstructions), share(f.SelfWasmInstructions)})
	}
	for _, bk := range r.Buckets {
		rows = append(rows, []string{bk.Name, "", Human(bk.WasmInstructions), "", share(bk.WasmInstructions)})
	}
	writeRows(&b, rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// perExecution shows instructions per execution, "-" for the call setup,
// which has none.
func perExecution(o OpcodeCost) string {
	if o.Executions == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", o.PerExecution)
}
