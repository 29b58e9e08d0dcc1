package meter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// SetSampling configures a meter whose plan was made with Options.Sample:
// a sample about every `every` instructions (deterministically jittered, so
// that loops whose length divides the period are not always caught at the
// same instruction), each passed to onSample.
func (mt *Meter) SetSampling(every uint64, onSample costs.SampleFunc) {
	mt.every, mt.onSample = max(every, 1), onSample
}

// meterKey is the context key of the meter a run is measured by.
type meterKey struct{}

// Context returns ctx carrying the meter. Every call into the guest, from
// the instantiation of its modules (start functions) to the entry and the
// exports a host calls around it (a plugin's initialization, a provider's
// input and output), must be made with it or a context derived from it:
// the listeners on ListenedModule find the meter of the call there.
func (mt *Meter) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, meterKey{}, mt)
}

// ErrNoMeter is the error a guest's call ends with when a listener of
// ListenedModule runs under a context that carries no meter (Context).
var ErrNoMeter = errors.New("meter: the guest was called with a context that carries no meter (Meter.Context)")

// meterOf returns the meter ctx carries. Without one it panics with
// ErrNoMeter, which wazero recovers into the call's error: a listener has
// no other way to stop the guest, and a run that silently lost its
// samples or Wasm stacks would be a wrong profile.
func meterOf(ctx context.Context) *Meter {
	if mt, ok := ctx.Value(meterKey{}).(*Meter); ok {
		return mt
	}
	panic(ErrNoMeter)
}

// newListener listens to ListenedModule's functions (linkListened compiles
// that module with it). The listeners hold nothing of a meter: they find
// the one of the call in its context (Context). wazero keeps a compiled
// module in memory, by its bytes, for every runtime that shares the
// compilation cache, and the listeners it was first compiled with go with
// it (an instance takes its compiled module's; a module read from the
// file cache takes the compiling call's): one compiled module, one cache
// entry, serves every meter, concurrent ones included.
func newListener(def api.FunctionDefinition) experimental.FunctionListener {
	switch {
	case slices.Contains(def.ExportNames(), SampleExport):
		return sampleListener{}
	case slices.Contains(def.ExportNames(), ContextStackExport):
		return contextStackListener{}
	}
	return nil
}

type sampleListener struct{}

func (sampleListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, si experimental.StackIterator) {
	meterOf(ctx).checkpoint(ctx, si)
}
func (sampleListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (sampleListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

type contextStackListener struct{}

func (contextStackListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, si experimental.StackIterator) {
	meterOf(ctx).contextStack(si)
}
func (contextStackListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (contextStackListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

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
	every := mt.every
	if !mt.plan.Sample {
		every = max(mt.stacksEvery, count/wasmStackSamplesPerGrowth)
	}
	mt.lcg = mt.lcg*6364136223846793005 + 1442695040888963407
	mt.sampleAt = count + every/2 + (mt.lcg>>33)%every + 1
}

// sampling says whether the host takes Wasm stacks at checkpoints:
// sampling mode's samples, or exact mode's Wasm stacks.
func (mt *Meter) sampling() bool {
	return (mt.plan.Sample && mt.onSample != nil) || (!mt.plan.Sample && mt.plan.WasmStacks && mt.stacksEvery > 0)
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
	if mt.sampling() {
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
func (mt *Meter) checkpoint(ctx context.Context, si experimental.StackIterator) {
	if mt.mod == nil {
		mt.earlyCheckpoint(ctx)
		return
	}
	if ctx.Err() != nil {
		mt.mod.ExportedGlobal(exportNext).(api.MutableGlobal).Set(math.MaxUint64)
		panic(context.Cause(ctx))
	}
	count := mt.mod.ExportedGlobal(mt.plan.Counter).Get()
	mt.progress.Store(count)
	if mt.sampling() && si != nil && count >= mt.sampleAt {
		mt.sample(si, count)
		mt.nextSample(count)
	}
	if mt.limit > 0 && count >= mt.limit {
		mt.mod.ExportedGlobal(exportNext).(api.MutableGlobal).Set(math.MaxUint64)
		panic(&LimitError{Limit: mt.limit})
	}
	mt.setCheckpoint(count)
}

// earlyCheckpoint is the checkpoint before Start, while the instrumented
// module's start function runs (AddStartStops: its first instruction
// calls the checkpoint, which sets early). It stops the guest when the
// run's context is done or at the instruction limit, counted from the
// start function's first instruction, and arms the module's checkpoints,
// which are disarmed until then, for the next look at either: a loop
// anywhere in what the start function calls passes one. Nothing is
// sampled before Start.
func (mt *Meter) earlyCheckpoint(ctx context.Context) {
	var next api.MutableGlobal
	var count uint64
	if mt.early != nil {
		next, _ = mt.early.ExportedGlobal(exportNext).(api.MutableGlobal)
		if counter := mt.early.ExportedGlobal(mt.plan.Counter); counter != nil {
			count = counter.Get()
			mt.progress.Store(count)
		}
	}
	stop := func(why any) {
		if next != nil {
			next.Set(math.MaxUint64)
		}
		panic(why)
	}
	if ctx.Err() != nil {
		stop(context.Cause(ctx))
	}
	if mt.limit > 0 && count >= mt.limit {
		stop(&LimitError{Limit: mt.limit})
	}
	if next != nil {
		at := count + cancelCheckEvery
		if mt.limit > 0 {
			at = min(at, mt.limit)
		}
		next.Set(at)
	}
}

func (mt *Meter) sample(si experimental.StackIterator, count uint64) {
	weight := count - mt.lastSample
	mt.lastSample = count
	if !mt.plan.Sample {
		mt.exactSample(si, weight)
		return
	}
	wasm, _ := mt.walkWasm(si, false)
	mt.onSample(weight, wasm, mt.activations())
}

// activations reads the shadow stack: frame j holds the state of the
// caller of activation j, so activation j's own state is in frame j+1, and
// the innermost one's in the globals. The frames are in guest memory:
// their values are only ever used to look up functions (bounded reads,
// checked against what they lead to), and the stack is read within the
// region the host made for it, whatever the stack pointer says.
func (mt *Meter) activations() []costs.Activation {
	mem := mt.mod.Memory()
	global := func(name string) uint64 { return mt.mod.ExportedGlobal(name).Get() }
	sp := uint32(global(exportSP))
	mt.actBuf = mt.actBuf[:0]
	if sp <= mt.stackBase {
		return mt.actBuf
	}
	if (sp-mt.stackBase)%sampleFrameSize != 0 {
		// The injected code moves it by whole frames from where the host
		// set it: only a module importing the global could do this.
		mt.tamper(fmt.Errorf("the shadow stack pointer %#x is not on a frame of the stack at %#x", sp, mt.stackBase))
		return mt.actBuf
	}
	// Past a full stack, sp goes on counting activations that have no frame.
	depth := (sp - mt.stackBase) / sampleFrameSize
	frames, ok := mem.Read(mt.stackBase, min(depth, mt.stackCap)*sampleFrameSize)
	if !ok {
		mt.tamper(fmt.Errorf("the shadow stack at %#x is past the end of the memory", mt.stackBase))
		return mt.actBuf
	}
	le := binary.LittleEndian
	for j := uint32(1); j <= depth; j++ {
		var funcObj uint64
		var entry, pc uint32
		if j < depth {
			if j >= mt.stackCap {
				break
			}
			f := frames[j*sampleFrameSize:]
			funcObj = le.Uint64(f[sampleFrameFuncObj:])
			entry = le.Uint32(f[sampleFrameEntry:])
			pc = le.Uint32(f[sampleFramePC:])
		} else {
			funcObj, entry, pc = global(exportFuncObj), uint32(global(exportEntry)), uint32(global(exportSlot))
		}
		mt.actBuf = append(mt.actBuf, mt.activation(funcObj, entry, pc))
	}
	return mt.actBuf
}

// sampledFunction finds the function of an activation at pc, called with
// funcObj, whose first opcode was at entry (0: not recorded, as the module
// records it only when the function object does not lead to the bytecode).
func (mt *Meter) sampledFunction(funcObj uint64, entry, pc uint32) *function {
	addr := entry
	if entry == 0 {
		// The object last seen with a buffer holding pc is the quick answer;
		// objects are freed and reused, so the buffer is checked.
		if f := mt.byObject[funcObj]; f != nil && f.length > 0 && pc >= f.start && pc-f.start < f.length && mt.current(f) {
			return f
		}
		addr = pc
		if start, length, _ := mt.resolve(funcObj, pc); length > 0 {
			addr = start
		}
	}
	f := mt.functionAt(addr, funcObj)
	if entry == 0 && f != nil {
		if len(mt.byObject) >= maxObjects {
			clear(mt.byObject) // objects come from guest memory: any number of them
		}
		mt.byObject[funcObj] = f
	}
	return f
}

// setupActivation tells an activation that has not reached its first
// opcode: a JS function in its call setup, if its function object leads to
// bytecode, or else a native function called through the interpreter
// (Function nil, not Entering), as exact mode's native bucket counts it.
// Without the pointer chain it cannot tell (Entering, Function nil).
func (mt *Meter) setupActivation(funcObj uint64) costs.Activation {
	if bp := mt.plan.BytecodePointer; !canFollow(bp) || bp.ClassIDOffset == nil || bp.ClassID == nil {
		return costs.Activation{Entering: true}
	}
	// Only a called function object, which must pass the interpreter's own
	// class check: without an address inside the buffer to confirm it, the
	// search through a resuming generator's state (resolve) would take any
	// word that leads somewhere for a function. A generator resuming shows
	// as native until its first opcode, a few instructions.
	start, length, _ := mt.follow(uint32(funcObj), anyAddress, true)
	if length == 0 {
		return mt.nativeActivation(funcObj)
	}
	if f := mt.functionAt(start, funcObj); f != nil {
		return costs.Activation{Function: mt.identityOf(f), Entering: true}
	}
	return costs.Activation{Entering: true}
}

// functionAt is the function entered at addr (called with funcObj), known
// or made now; nil, the error kept for Collect, when the host fails.
func (mt *Meter) functionAt(addr uint32, funcObj uint64) *function {
	block, ok := mt.byKey[tableKey{addr: addr}]
	if f := mt.byBlock[block]; ok && !mt.current(f) {
		mt.retire(f)
		ok = false
	}
	if !ok {
		var err error
		if block, err = mt.blockFor(addr, funcObj); err != nil {
			if mt.err == nil {
				mt.err = err
			}
			return nil
		}
	}
	return mt.byBlock[block]
}

// sampledPrefix is how many bytes of a function's code current compares,
// and holds at each end.
const sampledPrefix = 64

// current is holds made cheap enough for every sample: the function's
// object still describes its buffer, whose first bytes are still its code.
func (mt *Meter) current(f *function) bool {
	if f == nil || f.length == 0 || f.bytecode == 0 {
		return true
	}
	bp := mt.plan.BytecodePointer
	mem := mt.mod.Memory()
	off := f.bytecode + uint32(bp.Path[len(bp.Path)-1])
	buf, ok1 := mem.ReadUint32Le(off)
	n, ok2 := mem.ReadUint32Le(off + 4)
	if !ok1 || !ok2 || buf != f.start || n != f.length {
		return false
	}
	n = min(uint32(len(f.code)), sampledPrefix)
	code, ok := mem.Read(f.start, n)
	return ok && bytes.Equal(code, f.code[:n])
}

// identityOf is f's identity for samples, made once.
func (mt *Meter) identityOf(f *function) *costs.FunctionCost {
	id := mt.identity[f]
	if id == nil {
		id = &costs.FunctionCost{Address: f.start, Generation: f.generation, Length: f.length, Bytecode: f.bytecode, Code: f.code}
		mt.identity[f] = id
	}
	return id
}

// activation names the function of an activation that began at entry
// (called with funcObj) and is at the opcode at pc; pc 0: it has not
// reached its first opcode.
func (mt *Meter) activation(funcObj uint64, entry, pc uint32) costs.Activation {
	if pc == 0 {
		return mt.setupActivation(funcObj)
	}
	f := mt.sampledFunction(funcObj, entry, pc)
	if f == nil {
		return costs.Activation{Entering: true}
	}
	a := costs.Activation{Function: mt.identityOf(f)}
	if pc >= f.start && (f.length == 0 || pc-f.start < f.length) {
		a.PC = pc - f.start
	}
	return a
}

// nativeActivation reads what a C function object holds of its native (an
// activation that is no bytecode function's); Activation{} when the plan
// does not say where, or the object is outside the memory.
func (mt *Meter) nativeActivation(funcObj uint64) costs.Activation {
	n := mt.plan.Natives
	if n == nil {
		return costs.Activation{}
	}
	mem := mt.mod.Memory()
	idx, ok := mem.ReadUint32Le(uint32(funcObj) + n.FuncOffset)
	if !ok {
		return costs.Activation{}
	}
	var magic uint16
	if n.HasMagic {
		if magic, ok = mem.ReadUint16Le(uint32(funcObj) + n.MagicOffset); !ok {
			return costs.Activation{}
		}
	}
	// setupActivation checked that the plan knows where the class id is.
	class, ok := mem.ReadUint16Le(uint32(funcObj) + uint32(*mt.plan.BytecodePointer.ClassIDOffset))
	if !ok {
		return costs.Activation{}
	}
	return costs.Activation{Native: true, TableIndex: idx, Magic: int16(magic), Class: class}
}
