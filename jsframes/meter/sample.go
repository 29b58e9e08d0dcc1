package meter

import (
	"context"
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
// context the instrumented module is compiled with: it listens to the
// sample trampoline only, so nothing else pays for it.
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
	l.mt.sample(mod, si)
}
func (sampleListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (sampleListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

// nextSample sets the next sample point after count: every/2 plus a
// pseudo-random part below every, so the mean period is every.
func (mt *Meter) nextSample(count uint64) {
	mt.lcg = mt.lcg*6364136223846793005 + 1442695040888963407
	next := count + mt.every/2 + (mt.lcg>>33)%mt.every + 1
	mt.mod.ExportedGlobal(exportNext).(api.MutableGlobal).Set(next)
}

func (mt *Meter) sample(mod api.Module, si experimental.StackIterator) {
	if mt.mod == nil || mt.onSample == nil {
		return
	}
	count := mod.ExportedGlobal(mt.plan.Counter).Get()
	weight := count - mt.lastSample
	mt.lastSample = count
	mt.nextSample(count)

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
