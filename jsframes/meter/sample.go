package meter

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// WasmFrame is one frame of the Wasm stack at a sample.
type WasmFrame struct {
	// Index is the function's index in the original module (imports
	// first); Injected marks the rewrite's own functions.
	Index    uint32
	Injected bool
	// Offset is the frame's position in the rewritten module's code (for
	// the innermost frame the sampled instruction, for the others the call).
	Offset uint64
}

// Activation is one interpreter activation on the shadow stack at a sample.
type Activation struct {
	// Function is the running JS function (identity fields only: Address,
	// Length, Bytecode, Code); nil for a native function called through the
	// interpreter, or an activation that has not reached its first opcode.
	Function *FunctionCost
	// PC is the offset of the running opcode in the function's bytecode.
	PC uint32
	// Entering: the activation has not reached its first opcode yet (its
	// call setup, or a native function, which never does).
	Entering bool
}

// SampleFunc receives each sample: the instructions since the previous
// sample, the Wasm stack and the interpreter activations, both outermost
// first. The slices are only valid during the call.
type SampleFunc func(weight uint64, wasm []WasmFrame, js []Activation)

// SetSampling configures a meter whose plan was made with Options.Sample:
// a sample about every `every` instructions (deterministically jittered, so
// that loops whose length divides the period are not always caught at the
// same instruction), each passed to onSample.
func (mt *Meter) SetSampling(every uint64, onSample SampleFunc) {
	mt.every, mt.onSample = max(every, 1), onSample
}

// ListenerFactory returns the wazero listener factory that must be in the
// context the instrumented module is compiled with when sampling: it
// listens to the sample trampoline only. (wazero compiles every function
// of a module differently under a factory, about 15% slower, so exact mode,
// whose trampoline calls the host instead, goes without.)
func (mt *Meter) ListenerFactory() experimental.FunctionListenerFactory {
	return experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
		if slices.Contains(def.ExportNames(), SampleExport) {
			return sampleListener{mt}
		}
		return nil
	})
}

type sampleListener struct{ mt *Meter }

func (l sampleListener) Before(ctx context.Context, mod api.Module, _ api.FunctionDefinition, _ []uint64, si experimental.StackIterator) {
	l.mt.checkpoint(ctx, mod, si)
}
func (sampleListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (sampleListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

// LimitError stops a guest that reached its instruction budget.
type LimitError struct{ Limit uint64 }

func (e *LimitError) Error() string {
	return fmt.Sprintf("the guest reached the instruction limit (%d Wasm instructions)", e.Limit)
}

// SetLimit stops the guest, with a *LimitError, once it has executed limit
// instructions (0: no limit). The plan must have been made with
// Options.Limit or Options.Sample.
func (mt *Meter) SetLimit(limit uint64) { mt.limit = limit }

// nextSample draws the next sample point after count: every/2 plus a
// pseudo-random part below every, so the mean period is every.
func (mt *Meter) nextSample(count uint64) {
	mt.lcg = mt.lcg*6364136223846793005 + 1442695040888963407
	mt.sampleAt = count + mt.every/2 + (mt.lcg>>33)%mt.every + 1
}

// cancelCheckEvery is how many instructions may run between two looks at
// the run's context (a timeout, an interrupt) when nothing else stops the
// module sooner: about a tenth of a second.
const cancelCheckEvery = 20_000_000

// setCheckpoint tells the module the next counter value to stop at: the
// next sample, the limit or the next look at the context, whichever comes
// first.
func (mt *Meter) setCheckpoint(count uint64) {
	next := count + cancelCheckEvery
	if mt.onSample != nil {
		next = min(next, mt.sampleAt)
	}
	if mt.limit > 0 {
		next = min(next, mt.limit)
	}
	mt.mod.ExportedGlobal(exportNext).(api.MutableGlobal).Set(next)
}

// checkpoint runs when the counter passes the checkpoint (si is nil when
// called from the host import rather than the listener): it samples, stops
// the guest at its limit, or stops it when the run's context is done — by
// panicking with the cause, which wazero returns from the guest's entry
// point, leaving the module and its counters readable (closing it, as
// wazero does on a done context itself, would not).
func (mt *Meter) checkpoint(ctx context.Context, mod api.Module, si experimental.StackIterator) {
	if mt.mod == nil {
		return
	}
	if ctx.Err() != nil {
		mt.mod.ExportedGlobal(exportNext).(api.MutableGlobal).Set(math.MaxUint64)
		panic(context.Cause(ctx))
	}
	count := mod.ExportedGlobal(mt.plan.Counter).Get()
	mt.progress.Store(count)
	if mt.onSample != nil && si != nil && count >= mt.sampleAt {
		mt.sample(mod, si, count)
		mt.nextSample(count)
	}
	if mt.limit > 0 && count >= mt.limit {
		mt.mod.ExportedGlobal(exportNext).(api.MutableGlobal).Set(math.MaxUint64)
		panic(&LimitError{Limit: mt.limit})
	}
	mt.setCheckpoint(count)
}

func (mt *Meter) sample(mod api.Module, si experimental.StackIterator, count uint64) {
	weight := count - mt.lastSample
	mt.lastSample = count

	mt.wasmBuf = mt.wasmBuf[:0]
	first := true
	for si.Next() {
		if first { // the trampoline itself
			first = false
			continue
		}
		// Frames of another module (a dynamic module's _start calling
		// its plugin) cannot be told apart here: wazero's definitions carry
		// no instance; the stack walk stops at the module boundary anyway.
		fn := si.Function()
		idx := fn.Definition().Index()
		offset := fn.SourceOffsetForPC(si.ProgramCounter())
		orig, ok := mt.plan.OriginalIndex(idx)
		if !ok {
			orig = idx
		}
		mt.wasmBuf = append(mt.wasmBuf, WasmFrame{Index: orig, Injected: !ok, Offset: offset})
	}
	slices.Reverse(mt.wasmBuf)
	mt.onSample(weight, mt.wasmBuf, mt.activations())
}

// activations reads the shadow stack: frame j holds the state of the
// caller of activation j, so activation j's own state is in frame j+1, and
// the innermost one's in the globals.
func (mt *Meter) activations() []Activation {
	mem := mt.mod.Memory()
	sp := uint32(mt.mod.ExportedGlobal(exportSP).Get())
	end := mt.stackBase + mt.stackCap*frameSize
	mt.actBuf = mt.actBuf[:0]
	if sp <= mt.stackBase {
		return mt.actBuf
	}
	depth := (sp - mt.stackBase) / frameSize
	for j := uint32(1); j <= depth; j++ {
		var block, slot, flags uint32
		if j < depth {
			f := mt.stackBase + j*frameSize
			if f >= end {
				break
			}
			block, _ = mem.ReadUint32Le(f + frameBlock)
			slot, _ = mem.ReadUint32Le(f + frameSlot)
			flags, _ = mem.ReadUint32Le(f + frameFlags)
		} else {
			block = uint32(mt.mod.ExportedGlobal(exportBlock).Get())
			slot = uint32(mt.mod.ExportedGlobal(exportSlot).Get())
			flags = uint32(mt.mod.ExportedGlobal(exportFlags).Get())
		}
		a := mt.activation(block, slot)
		a.Entering = flags&flagFresh != 0
		mt.actBuf = append(mt.actBuf, a)
	}
	return mt.actBuf
}

func (mt *Meter) activation(block, addr uint32) Activation {
	f := mt.byBlock[block]
	if f == nil {
		return Activation{}
	}
	id := mt.identity[f]
	if id == nil {
		id = &FunctionCost{Address: f.start, Length: f.length, Bytecode: f.bytecode, Code: f.code}
		mt.identity[f] = id
	}
	a := Activation{Function: id}
	if addr >= f.start && (f.length == 0 || addr-f.start < f.length) {
		a.PC = addr - f.start
	}
	return a
}
