package dispatch

import (
	"github.com/jsprof/jsprof/wasmcore"
)

// Binaryen's asyncify pass (emscripten's ASYNCIFY, the *-asyncify builds
// of quickjs-emscripten) rewrites every function that may suspend: a
// global holds the state (0 normal, 1 unwinding, 2 rewinding); on entry,
// when rewinding, every local is reloaded from the asyncify buffer; the
// ordinary code runs under `if (state == 0)`; every call is followed by
// `if (state == 1) { save the locals; return }`. Read naively, every local
// then merges its real value with the reloaded and the stale ones at each
// of those ifs, so the opcode byte reaches the dispatch br_table mixed
// with thousands of unrelated values. The interpreter runs in the normal
// state, so the analysis reads such functions in it: a branch decided by
// the state is taken (or not) as in the normal state, and the arm it
// skips is dead.

// asyncifyState is the asyncify state global of a module.
type asyncifyState struct {
	global uint32
	ok     bool
}

// asyncifyScan recognises binaryen's asyncify_start_unwind and
// asyncify_start_rewind, which begin `i32.const 1 (2); global.set S;
// local.get 0; global.set D`, in the first instructions of each function.
type asyncifyScan struct {
	unwind, rewind [][2]uint32 // (S, D) pairs seen
}

// observe looks at the first four instructions of a function body.
func (s *asyncifyScan) observe(first []wasmcore.Instr) {
	if len(first) < 4 {
		return
	}
	a, b, c, d := first[0], first[1], first[2], first[3]
	if a.Op != wasmcore.OpI32Const || b.Op != wasmcore.OpGlobalSet || c.Op != wasmcore.OpLocalGet || c.Index != 0 ||
		d.Op != wasmcore.OpGlobalSet || b.Index == d.Index {
		return
	}
	pair := [2]uint32{b.Index, d.Index}
	switch a.I32 {
	case 1:
		s.unwind = append(s.unwind, pair)
	case 2:
		s.rewind = append(s.rewind, pair)
	}
}

// result returns the state global: one set to 1 and to 2, together with
// the same data global, by the two functions, and defined by the module as
// a mutable i32 starting at 0.
func (s *asyncifyScan) result(m *wasmcore.Module) asyncifyState {
	nImported := m.NumImportedGlobals()
	for _, u := range s.unwind {
		for _, r := range s.rewind {
			if u != r || u[0] < nImported || int(u[0]-nImported) >= len(m.Globals) {
				continue
			}
			g := m.Globals[u[0]-nImported]
			if v, ok := g.Init.I32(); ok && v == 0 && g.Type.Mutable && g.Type.Type == wasmcore.ValI32 {
				return asyncifyState{global: u[0], ok: true}
			}
		}
	}
	return asyncifyState{}
}

// condValue is what is known of a condition's value.
type condValue struct {
	val     int64
	exact   bool // val is its value
	nonzero bool // it is not zero (value unknown)
}

// stateCondition evaluates a branch condition in the normal asyncify
// state. decided is false unless the condition depends on the state global
// and its truth follows from it: conditions not involving the state are
// left alone, so that modules without asyncify read exactly as before.
func (fa *funcAnalysis) stateCondition(n int32) (truth, decided bool) {
	if !fa.async.ok {
		return false, false
	}
	usesState := false
	v := fa.condEval(n, 0, &usesState)
	switch {
	case !usesState:
		return false, false
	case v.exact:
		return v.val != 0, true
	case v.nonzero:
		return true, true
	}
	return false, false
}

func (fa *funcAnalysis) condEval(n int32, depth int, usesState *bool) condValue {
	if depth > 8 {
		return condValue{}
	}
	nd := fa.nodes[n]
	switch nd.kind {
	case nConst:
		return condValue{val: nd.val, exact: true}
	case nGlobal:
		if nd.local == fa.async.global {
			*usesState = true
			return condValue{val: 0, exact: true}
		}
	case nUn:
		if nd.op == wasmcore.OpI32Eqz || nd.op == wasmcore.OpI64Eqz {
			if a := fa.condEval(nd.a, depth+1, usesState); a.exact {
				return boolValue(a.val == 0)
			} else if a.nonzero {
				return boolValue(false)
			}
		}
	case nBin:
		a := fa.condEval(nd.a, depth+1, usesState)
		b := fa.condEval(nd.b, depth+1, usesState)
		switch nd.op {
		case wasmcore.OpI32Eq, wasmcore.OpI64Eq:
			if a.exact && b.exact {
				return boolValue(a.val == b.val)
			}
		case wasmcore.OpI32Ne, wasmcore.OpI64Ne:
			if a.exact && b.exact {
				return boolValue(a.val != b.val)
			}
		case wasmcore.OpI32Or, wasmcore.OpI64Or:
			switch {
			case a.exact && b.exact:
				return condValue{val: a.val | b.val, exact: true}
			case a.exact && a.val != 0 || a.nonzero || b.exact && b.val != 0 || b.nonzero:
				return condValue{nonzero: true}
			}
		case wasmcore.OpI32And, wasmcore.OpI64And:
			switch {
			case a.exact && b.exact:
				return condValue{val: a.val & b.val, exact: true}
			case a.exact && a.val == 0 || b.exact && b.val == 0:
				return condValue{val: 0, exact: true}
			}
		}
	}
	return condValue{}
}

func boolValue(b bool) condValue {
	if b {
		return condValue{val: 1, exact: true}
	}
	return condValue{val: 0, exact: true}
}
