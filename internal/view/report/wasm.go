package report

import (
	"sort"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// The rows of the Wasm view (jsprof report --by wasm) that are not Wasm
// functions of the profile: with the Wasm functions' self instructions,
// theirs add up to the samples' instructions.
const (
	// WasmInterpreterName is the interpreter's own function (QuickJS's
	// JS_CallInternal), whose Wasm frames the profile replaces by JS and
	// opcode (or native) frames: what a sample's innermost opcode or
	// native frame ran there, in the handlers' code inlined into the
	// dispatch loop, or on the way to a native.
	WasmInterpreterName = "(interpreter loop)"
	// WasmNoFrameName holds the samples whose innermost frame is none of
	// the above: a bucket with no Wasm frame under it ((outside JS) in an
	// exact profile), a JS frame alone.
	WasmNoFrameName = "(no Wasm frame)"
)

// Kinds of the rows of the Wasm view (WasmFunctionStats.Kind).
const (
	WasmKindFunction    = "wasm"        // a Wasm function of the profile
	WasmKindInterpreter = "interpreter" // WasmInterpreterName
	WasmKindNone        = "none"        // WasmNoFrameName
)

// Kinds of what reached a Wasm function (WasmCaller.Kind).
const (
	CallerOpcode = "opcode"
	CallerNative = "native"
	CallerBucket = "bucket" // (outside JS), (native functions), (truncated Wasm stack)
)

// WasmFunctionStats is one Wasm function's cost (the Wasm view), or one
// of the view's buckets (Kind WasmKindInterpreter, WasmKindNone).
type WasmFunctionStats struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // WasmKind*
	// Index is the function's index in the module (imports first); -1 for
	// a function of another module (a dynamic module's plugin, named as
	// wazero names it) and for the view's buckets.
	Index int `json:"index"`
	// SelfWasmInstructions ran while this function was the innermost frame
	// of the stack; TotalWasmInstructions while it was on the stack at all
	// (recursion counted once): pprof's flat and cum. In a profile whose
	// Wasm frames are apportioned (Tables.WasmApportioned) both are
	// estimates.
	SelfWasmInstructions  uint64  `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64  `json:"total_wasm_instructions"`
	Share                 float64 `json:"share"`       // self, of the profile's total
	TotalShare            float64 `json:"total_share"` // total, of the profile's total
	// Callers are the JS opcodes and natives that reached the function:
	// for each sample with the function on its stack, the innermost opcode
	// or native frame outside (above) its innermost occurrence, or the
	// bucket the stack is in ((outside JS) when there is none). Their
	// totals add up to the function's total, their selves to its self;
	// sorted by total, most first (the interpreter loop's by self: what
	// each opcode ran in the interpreter's own code).
	Callers []WasmCaller `json:"callers"`
	// OmittedCallers counts the callers a report cut (--top).
	OmittedCallers int `json:"omitted_callers,omitempty"`
}

// WasmCaller is an opcode, a native or a bucket that reached a Wasm
// function, with what the function ran (self) or ran under it (total) when
// reached from it.
type WasmCaller struct {
	Name                  string `json:"name"` // an opcode's without op:
	Kind                  string `json:"kind"` // Caller*
	UncertainName         bool   `json:"uncertain_name,omitempty"`
	SelfWasmInstructions  uint64 `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
}

// Label is how reports print the caller: op:get_field, JSON.parse
// (native), (outside JS).
func (c *WasmCaller) Label() string {
	switch c.Kind {
	case CallerOpcode:
		return jsprofile.OpcodePrefix + c.Name
	case CallerNative:
		return c.Name + NativeSuffix
	}
	return c.Name
}

// wasmAcc accumulates one row of the Wasm view.
type wasmAcc struct {
	stats WasmFunctionStats
	// callers by their canonical WasmCaller (one per kind and name).
	callers map[*WasmCaller]*WasmCaller
	stamp   int // the last sample that counted its total
}

func newWasmAcc(stats WasmFunctionStats) *wasmAcc {
	return &wasmAcc{stats: stats, callers: map[*WasmCaller]*WasmCaller{}, stamp: -1}
}

// caller is the row's own copy of the canonical caller c.
func (a *wasmAcc) caller(c *WasmCaller) *WasmCaller {
	if got := a.callers[c]; got != nil {
		return got
	}
	n := *c
	a.callers[c] = &n
	return &n
}

// wasmView computes the Wasm view's rows from a profile's samples (add
// each, then finish): the Wasm functions, sorted by self instructions,
// and the view's buckets (interpreter loop, no Wasm frame). A profile
// without any Wasm frame has neither. What it needs of each function of
// the profile is resolved once, by the function's index (stackReader).
type wasmView struct {
	r *StackReader
	// rowOf is the row of each Wasm function (by system name), callerOf
	// what each function is as a caller: an opcode, a native, a bucket
	// (canonical by kind and name), or nil when it is none.
	rowOf    []*wasmAcc
	callerOf []*WasmCaller
	// interpreter tells the frames that stand for an activation of the
	// interpreter: a JS function's, a native's, one no frame names.
	interpreter []bool
	rows        map[string]*wasmAcc // by system name
	interp      *wasmAcc
	none        *wasmAcc
	outside     *WasmCaller
	hasWasm     bool
	samples     int
	outer       []*WasmCaller // outer[k]: the innermost caller outside frame k
}

func newWasmView(r *StackReader, uncertain map[int]bool) *wasmView {
	v := &wasmView{r: r, rowOf: make([]*wasmAcc, len(r.Funcs)), callerOf: make([]*WasmCaller, len(r.Funcs)),
		interpreter: make([]bool, len(r.Funcs)), rows: map[string]*wasmAcc{},
		interp:  newWasmAcc(WasmFunctionStats{Name: WasmInterpreterName, Kind: WasmKindInterpreter, Index: -1}),
		none:    newWasmAcc(WasmFunctionStats{Name: WasmNoFrameName, Kind: WasmKindNone, Index: -1}),
		outside: &WasmCaller{Name: jsprofile.BucketOutside, Kind: CallerBucket}}
	callers := map[[2]string]*WasmCaller{{CallerBucket, jsprofile.BucketOutside}: v.outside} // by kind and name
	for i := range r.Funcs {
		f := &r.Funcs[i]
		var c WasmCaller
		switch f.Kind {
		case jsprofile.KindWasm:
			a := v.rows[f.Function.SystemName]
			if a == nil {
				a = newWasmAcc(WasmFunctionStats{Name: f.Function.Name, Kind: WasmKindFunction, Index: wasmIndex(f.Function.SystemName)})
				v.rows[f.Function.SystemName] = a
			}
			v.rowOf[i] = a
			continue
		case jsprofile.KindOpcode:
			c = WasmCaller{Name: strings.TrimPrefix(f.Function.Name, jsprofile.OpcodePrefix), Kind: CallerOpcode, UncertainName: uncertain[f.Opcode]}
		case jsprofile.KindNative:
			c = WasmCaller{Name: f.Function.Name, Kind: CallerNative}
		case jsprofile.KindBucket:
			c = WasmCaller{Name: f.Function.Name, Kind: CallerBucket}
		}
		v.interpreter[i] = f.Kind == jsprofile.KindJS || f.Kind == jsprofile.KindOpcode || f.Kind == jsprofile.KindNative ||
			(f.Kind == jsprofile.KindBucket && f.Function.Name == jsprofile.BucketNative)
		if c.Kind == "" {
			continue
		}
		k := [2]string{c.Kind, c.Name}
		if callers[k] == nil {
			callers[k] = &c
		}
		v.callerOf[i] = callers[k]
	}
	return v
}

// add counts a sample: its stack, leaf first, and its instructions.
func (v *wasmView) add(stack []Frame, instr uint64) {
	sample := v.samples
	v.samples++
	if instr == 0 || len(stack) == 0 {
		return
	}
	v.outer = v.outer[:0]
	for range stack {
		v.outer = append(v.outer, nil)
	}
	var c *WasmCaller
	for k := len(stack) - 1; k >= 0; k-- {
		v.outer[k] = c
		if fc := v.callerOf[stack[k].Func]; fc != nil {
			c = fc
		}
	}
	innermost := c // the innermost caller frame of the stack, if any

	interpTotal := false
	for k := range stack {
		fn := stack[k].Func
		interpTotal = interpTotal || v.interpreter[fn]
		a := v.rowOf[fn]
		if a == nil || a.stamp == sample {
			continue
		}
		a.stamp = sample
		v.hasWasm = true
		from := v.outer[k]
		if from == nil {
			from = v.outside
		}
		ac := a.caller(from)
		a.stats.TotalWasmInstructions += instr
		ac.TotalWasmInstructions += instr
		if k == 0 {
			a.stats.SelfWasmInstructions += instr
			ac.SelfWasmInstructions += instr
		}
	}
	leaf := stack[0].Func
	leafKind := v.r.Funcs[leaf].Kind
	if interpTotal {
		from := innermost
		if from == nil {
			from = v.outside
		}
		v.interp.stats.TotalWasmInstructions += instr
		ic := v.interp.caller(from)
		ic.TotalWasmInstructions += instr
		if leafKind != jsprofile.KindWasm && v.interpreter[leaf] && leafKind != jsprofile.KindJS {
			v.interp.stats.SelfWasmInstructions += instr
			ic.SelfWasmInstructions += instr
		}
	}
	if leafKind != jsprofile.KindWasm && (!v.interpreter[leaf] || leafKind == jsprofile.KindJS) {
		from := v.callerOf[leaf]
		if from == nil {
			from = innermost
		}
		if from == nil {
			from = v.outside
		}
		v.none.stats.SelfWasmInstructions += instr
		v.none.stats.TotalWasmInstructions += instr
		nc := v.none.caller(from)
		nc.SelfWasmInstructions += instr
		nc.TotalWasmInstructions += instr
	}
}

// finish returns the view's rows, shares of total.
func (v *wasmView) finish(total float64) (functions, buckets []WasmFunctionStats) {
	if !v.hasWasm {
		return []WasmFunctionStats{}, []WasmFunctionStats{}
	}
	finish := func(a *wasmAcc) WasmFunctionStats {
		st := a.stats
		st.Share = costfmt.Share(st.SelfWasmInstructions, total)
		st.TotalShare = costfmt.Share(st.TotalWasmInstructions, total)
		st.Callers = make([]WasmCaller, 0, len(a.callers))
		for _, c := range a.callers {
			st.Callers = append(st.Callers, *c)
		}
		// The interpreter's callers by self: what each opcode ran in the
		// interpreter's own code (its total is its whole cost, which the
		// opcode view has).
		bySelf := st.Kind == WasmKindInterpreter
		sort.Slice(st.Callers, func(i, j int) bool {
			a, b := &st.Callers[i], &st.Callers[j]
			if bySelf && a.SelfWasmInstructions != b.SelfWasmInstructions {
				return a.SelfWasmInstructions > b.SelfWasmInstructions
			}
			if a.TotalWasmInstructions != b.TotalWasmInstructions {
				return a.TotalWasmInstructions > b.TotalWasmInstructions
			}
			if a.SelfWasmInstructions != b.SelfWasmInstructions {
				return a.SelfWasmInstructions > b.SelfWasmInstructions
			}
			if a.Kind != b.Kind {
				return a.Kind > b.Kind // opcodes, natives, buckets
			}
			return a.Name < b.Name
		})
		return st
	}
	functions = make([]WasmFunctionStats, 0, len(v.rows))
	for _, a := range v.rows {
		if a.stats.TotalWasmInstructions > 0 || a.stamp >= 0 {
			functions = append(functions, finish(a))
		}
	}
	sortWasmStats(functions)
	buckets = []WasmFunctionStats{}
	for _, a := range []*wasmAcc{v.interp, v.none} {
		if a.stats.TotalWasmInstructions > 0 {
			buckets = append(buckets, finish(a))
		}
	}
	return functions, buckets
}

// sortWasmStats orders Wasm functions by self instructions, most first,
// then by name (then index, then total, for a stable order).
func sortWasmStats(fns []WasmFunctionStats) {
	sort.Slice(fns, func(i, j int) bool {
		a, b := &fns[i], &fns[j]
		if a.SelfWasmInstructions != b.SelfWasmInstructions {
			return a.SelfWasmInstructions > b.SelfWasmInstructions
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		return a.TotalWasmInstructions > b.TotalWasmInstructions
	})
}

// wasmIndex reads a Wasm frame's function index from its system name
// (wasm:N); -1 for another module's function (wasm:other:NAME).
func wasmIndex(systemName string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(systemName, string(jsprofile.KindWasm)+":"))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// wasmCallerSum adds up callers cut from a list, for its "… N more" row.
func wasmCallerSum(cs []WasmCaller) (self, total uint64) {
	for _, c := range cs {
		self += c.SelfWasmInstructions
		total += c.TotalWasmInstructions
	}
	return self, total
}
