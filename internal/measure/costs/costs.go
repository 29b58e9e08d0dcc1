package costs

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// CallSetup is the pseudo-opcode, in FunctionCost.Opcodes, of what the
// interpreter does between being entered and its first dispatch (frame
// setup, argument copying): the profile format's, so that the two agree.
const CallSetup = jsprofile.CallSetup

// Results is the exact cost of one run.
type Results struct {
	// TotalInstructions is every Wasm instruction the run executed
	// (docs/instruction-counting.md). It equals the sum of every function's
	// self instructions and every bucket.
	TotalInstructions uint64
	Functions         []FunctionCost
	Buckets           []BucketCost
	// Contexts are the functions' calling contexts (exact mode): each
	// function's costs split by the chain of JS callers it was called
	// through, recursion folded into the outermost call. A function's
	// contexts add up to its FunctionCost.
	Contexts []ContextCost
	// Natives are the native functions called through the interpreter
	// (exact mode with Options.Natives), each with its contexts in
	// Contexts: what they ran themselves, in the context they were called
	// from; the JS they called back is in the JS functions' contexts under
	// them.
	Natives []NativeCost
	// WasmSplits are the Wasm stacks sampled in exact mode's slots
	// (Options.WasmStacks), for apportioning each slot's exact count to
	// Wasm frames; UnplacedSampleWeight is what the samples no slot could
	// take stood for (an activation before its first opcode, a shadow
	// stack past its capacity).
	WasmSplits []WasmSplit
	// OutsideBeforeJS is the part of the outside bucket that ran before
	// the first interpreter activation (exact mode): engine start-up, as
	// opposed to the engine's work between and after JS calls. All of
	// the bucket when no activation began.
	OutsideBeforeJS uint64
	// OuterWasmSegments are, by context index, the segments of the Wasm
	// stack above and between the context's chain (WasmSplit.Segments but
	// the last) where a sample in it could be aligned: the same for every
	// slot of the context, they place slots no sample fell in too.
	OuterWasmSegments    map[int][][]WasmFrame
	WasmStackSamples     uint64
	UnplacedSampleWeight uint64
}

// NativeCost is the cost of one native function, identified by what its
// function object holds (JSObject.u.cfunc): its C function's index in
// table 0 and its magic, which the engine's function lists name
// (natives.Catalogue.ByCall).
type NativeCost struct {
	TableIndex uint32
	Magic      int16
	// Unidentified stands for the calls, through the interpreter's entry,
	// of functions that are neither bytecode nor C functions (a host
	// function a plugin registered, a bound function, an async function's
	// start), or of a C function whose table index is 0 or too large for
	// its key: counted together, in their callers' contexts.
	Unidentified bool
	Calls        uint64
	// SelfInstructions ran in the native (the interpreter's entry and
	// return included) and not in a JS function it called;
	// TotalInstructions also counts those, recursion counted once.
	SelfInstructions  uint64
	TotalInstructions uint64
}

// ContextCost is one calling context of a function: called from the
// Parent context's function at CallSite, or from outside JS (Parent -1).
type ContextCost struct {
	Function int // index into Results.Functions; -1 for a native's context
	Native   int // index into Results.Natives; -1 for a JS function's context
	Parent   int // index into Results.Contexts, -1 for none
	// CallSite is the pc in the parent's function of the call, when
	// HasCallSite (not when the call came from its call setup).
	CallSite              uint32
	HasCallSite           bool
	Calls                 uint64
	CallSetupInstructions uint64
	PCs                   []PCCost // by pc; by opcode value when the function's length is unknown
	// NativeInstructions is what a native's context ran itself.
	NativeInstructions uint64
}

// IsNative says whether c is a native's context (Function -1, Native its
// index), as opposed to a JS function's.
func (c *ContextCost) IsNative() bool { return c.Function < 0 && c.Native >= 0 }

// FunctionCost is the cost of one JS function, identified by its bytecode
// buffer.
type FunctionCost struct {
	Address uint32 // address of byte 0 of the bytecode buffer
	// Generation tells functions whose buffers were at one address in
	// turn apart: 0 for the first, 1 for the one the engine put there after
	// freeing it, and so on. Address and Generation identify a function.
	Generation uint32
	Length     uint32 // bytecode length, 0 when unknown
	Bytecode   uint32 // address of the engine's function-bytecode object, 0 when unknown
	// Resumptions are addresses inside the buffer where activations began
	// (generators and async functions resuming).
	Resumptions []uint32
	// Calls counts activations that began at byte 0 of the buffer and
	// reached it (a generator resuming mid-buffer is no new call).
	Calls uint64
	// SelfInstructions ran in this function's opcodes (and what they called
	// that was not another JS function); TotalInstructions also counts the
	// JS functions it called, recursion counted once.
	SelfInstructions  uint64
	TotalInstructions uint64
	// CallSetupInstructions ran between entering the interpreter and the
	// first opcode (also in Opcodes as CallSetup).
	CallSetupInstructions uint64
	// Code is the bytecode buffer as first seen (nil when its length is
	// unknown); PCs is the cost by pc within it (nil then too).
	Code    []byte
	PCs     []PCCost
	Opcodes []OpcodeCost // by opcode value, only those with a cost
}

// DispatchedSeveral is PCCost.Dispatched of a pc at which the contexts of
// a function recorded different opcodes.
const DispatchedSeveral = 256

// PCCost is the cost of the opcode at one pc of a function.
type PCCost struct {
	PC     uint32 // offset in the bytecode buffer
	Opcode int    // the opcode dispatched at PC, else the byte there as first seen; -1 if past the buffer
	// Dispatched is the opcode the interpreter last dispatched at PC, as
	// its dispatch read it: the byte at PC as first seen, unless the buffer
	// changed since (the self-check's concern). -1 when not recorded (no execution; sampling),
	// DispatchedSeveral when the function's contexts disagree.
	Dispatched   int
	Executions   uint64
	Instructions uint64
}

// OpcodeCost is one opcode's executions and instructions. Opcode CallSetup
// is the pseudo-opcode for the interpreter's work before the first opcode.
type OpcodeCost struct {
	Opcode       int
	Executions   uint64
	Instructions uint64
}

// BucketCost is a named bucket of instructions outside JS opcodes.
type BucketCost struct {
	Name         string
	Instructions uint64
}

// OpcodeTotals sums the opcodes across functions, by opcode value.
func (r *Results) OpcodeTotals() []OpcodeCost {
	by := map[int]*OpcodeCost{}
	for _, f := range r.Functions {
		for _, o := range f.Opcodes {
			t := by[o.Opcode]
			if t == nil {
				t = &OpcodeCost{Opcode: o.Opcode}
				by[o.Opcode] = t
			}
			t.Executions += o.Executions
			t.Instructions += o.Instructions
		}
	}
	out := make([]OpcodeCost, 0, len(by))
	for _, t := range by {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Opcode < out[j].Opcode })
	return out
}

// Check verifies that the parts add up to the total.
func (r *Results) Check() error {
	sum, err := r.parts()
	if err != nil {
		return err
	}
	if sum != r.TotalInstructions {
		return fmt.Errorf("meter: functions, natives and buckets sum to %d instructions, the counter says %d", sum, r.TotalInstructions)
	}
	return nil
}

// parts sums the functions' opcodes, the natives and the buckets: what
// must add up to the total. Counts read back from a guest that wrote over
// them can be anything up to the counter each, so the sum is checked for
// overflow rather than left to wrap into a plausible total.
func (r *Results) parts() (uint64, error) {
	var sum uint64
	add := func(n uint64) bool {
		var carry uint64
		sum, carry = bits.Add64(sum, n, 0)
		return carry == 0
	}
	overflow := errors.New("meter: functions, natives and buckets sum to more than 2^64 instructions")
	for _, f := range r.Functions {
		var self uint64
		for _, o := range f.Opcodes {
			var carry uint64
			if self, carry = bits.Add64(self, o.Instructions, 0); carry != 0 {
				return 0, overflow
			}
		}
		if self != f.SelfInstructions {
			return 0, fmt.Errorf("meter: function at %#x: opcodes sum to %d, self is %d", f.Address, self, f.SelfInstructions)
		}
		if !add(self) {
			return 0, overflow
		}
	}
	for _, n := range r.Natives {
		if !add(n.SelfInstructions) {
			return 0, overflow
		}
	}
	for _, b := range r.Buckets {
		if !add(b.Instructions) {
			return 0, overflow
		}
	}
	return sum, nil
}

// ChargeUntrusted makes the results of a run whose guest wrote over its
// counters add up again: what the counters that passed their checks do
// not account for is charged to jsprofile.BucketTampered. Should they account for
// more than the counter (blocks forged to pass their checks), or not
// agree among themselves, none of them can be told apart from the forged
// ones: every count is dropped and the whole run charged to the bucket.
// The functions seen stay, with no cost, as the host saw them.
func (r *Results) ChargeUntrusted() {
	sum, err := r.parts()
	if err != nil || sum > r.TotalInstructions {
		r.dropCounts()
		sum = 0
	}
	r.Buckets = append(r.Buckets, BucketCost{Name: jsprofile.BucketTampered, Instructions: r.TotalInstructions - sum})
}

// dropCounts zeroes every count read from guest memory, keeping what the
// host knows itself: the functions and natives seen, the contexts made.
func (r *Results) dropCounts() {
	for i := range r.Functions {
		f := &r.Functions[i]
		f.Calls, f.SelfInstructions, f.TotalInstructions, f.CallSetupInstructions = 0, 0, 0, 0
		f.PCs, f.Opcodes = nil, nil
	}
	for i := range r.Natives {
		n := &r.Natives[i]
		n.Calls, n.SelfInstructions, n.TotalInstructions = 0, 0, 0
	}
	for i := range r.Contexts {
		c := &r.Contexts[i]
		c.Calls, c.CallSetupInstructions, c.NativeInstructions, c.PCs = 0, 0, 0, nil
	}
	for i := range r.Buckets {
		r.Buckets[i].Instructions = 0
	}
	// The Wasm stacks were sampled by the host, but they only apportion
	// counts that are gone.
	r.OutsideBeforeJS, r.WasmSplits, r.OuterWasmSegments = 0, nil, nil
}

// ByOpcodeSlots is the slots of a function whose bytecode length is not
// known (its slots are by opcode value), and the call-setup slot of such a
// function: WasmSplit.Slot's value for its call setup.
const ByOpcodeSlots = 256

// WasmFrame is one frame of the Wasm stack at a sample.
type WasmFrame struct {
	// Index is the function's index in the original module (imports
	// first); Injected marks the rewrite's own functions.
	Index    uint32
	Injected bool
	// Offset is the frame's position in the rewritten module's code (for
	// the innermost frame the sampled instruction, for the others the call).
	Offset uint64
	// Foreign is set for a frame of another module (a dynamic Javy module's
	// own code, which calls its plugin): its name as wazero has it, its
	// export name if it has one. Index is then in that module.
	Foreign string
}

// Activation is one interpreter activation on the shadow stack at a sample.
type Activation struct {
	// Function is the running JS function (identity fields only: Address,
	// Length, Bytecode, Code); nil for a native function called through the
	// interpreter, or when it cannot be told.
	Function *FunctionCost
	// PC is the offset of the running opcode in the function's bytecode.
	PC uint32
	// Entering: the activation has not reached its first opcode yet: its
	// call setup (of Function, or of a function that cannot be told: a
	// native one never reaches an opcode).
	Entering bool
	// Native: the activation is not a bytecode function's, and its
	// function object holds TableIndex and Magic where a C function object
	// holds its native's (Plan.Natives), and Class as its class id.
	// Whether it is a C function's is for the caller to confirm:
	// js_call_c_function is the next Wasm frame, or the object's class is
	// one seen so confirmed.
	Native     bool
	TableIndex uint32
	Magic      int16
	Class      uint16
}

// SampleFunc receives each sample: the instructions since the previous
// sample, the Wasm stack and the interpreter activations, both outermost
// first. The slices are only valid during the call.
type SampleFunc func(weight uint64, wasm []WasmFrame, js []Activation)

// WasmSplit is the Wasm stacks sampled in one exact slot: a JS context's pc
// (or call setup), a native context, or a bucket.
type WasmSplit struct {
	// Context is the slot's context, an index into Results.Contexts; -1
	// for a bucket (Bucket names it).
	Context int
	Bucket  string
	// Slot is the context's slot: the pc (the opcode value in a block by
	// opcode), its function's bytecode length for the call setup; 0 for a
	// native's context or a bucket.
	Slot uint32
	// Segments are the Wasm frames of the samples' stack, outermost first,
	// cut where the interpreter activations of the context's chain began:
	// Segments[0] ran above the outermost JS (or native) frame of the chain,
	// Segments[k] below its k-th frame (1-based), the last below the slot's
	// own opcode or native. Within a JS chain (Aligned), a segment that
	// ran below a recursive activation folded into its outer one is left
	// out. When the stack's activations could not be matched to the
	// chain, only the first and the last segment are kept (Aligned false).
	// A bucket's sample has one segment: the whole stack.
	Segments [][]WasmFrame
	Aligned  bool
	// BeforeJS marks a sample of the outside bucket taken before the first
	// activation began (Results.OutsideBeforeJS): engine start-up.
	BeforeJS bool
	// Weight is the instructions the samples stood for: the split's share
	// of the slot's exact count is its weight over all the slot's splits'.
	Weight uint64
}
