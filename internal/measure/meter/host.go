package meter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/wasmcore"
)

// Sizes of what the host reserves in guest memory at Start.
const (
	initialStackFrames = 1024     // doubles when full, up to maxStackFrames
	maxStackFrames     = 1 << 20  // deeper activations charge the native bucket
	initialHashSlots   = 1 << 10  // doubles past half full
	arenaChunk         = pageSize // the first chunk after the initial page; then doubling
	maxArenaChunk      = 16 * pageSize

	// What the guest can make the host keep, through addresses and calls
	// of its making, is bounded: real engines run with a few thousand
	// functions and keys. Past maxFunctions, new functions are charged to
	// the native bucket; past maxKeys, lookups are answered without being
	// entered in the table (the host is asked again each time).
	maxFunctions = 1 << 18
	maxKeys      = 1 << 20
	// maxObjects bounds the sampling cache of function objects; it starts
	// over when full.
	maxObjects = 1 << 16
	// maxNatives bounds the natives (table index and magic pairs) the host
	// keeps; later ones are charged to the native bucket.
	maxNatives = 1 << 16
)

// Meter is the host side of instrumented runs: it links the imports the
// rewrite added, reserves and initialises the accounting memory, answers
// the module's questions about new bytecode addresses, and reads the
// counters back. It serves one run at a time (Start begins the next, in the
// same runtime); it is not safe for concurrent use, as a guest is
// single-threaded.
type Meter struct {
	plan *Plan
	mod  api.Module // the instrumented instance, once started
	// early is the instrumented instance while its start function runs,
	// before Start (earlyCheckpoint); Start forgets it.
	early api.Module

	arenaNext, arenaEnd uint32
	arenaGrow           uint32 // size of the next arena chunk
	stackBase, stackCap uint32 // the shadow stack's region and its size in frames
	hashBase, hashMask  uint32
	hashUsed            uint32

	outside, native uint32 // bucket blocks
	ctxByBlock      map[uint32]*callContext
	funcs           []*function // in order of first sight
	byBlock         map[uint32]*function
	byStart         map[uint32]*function // bytecode buffer start → function
	byKey           map[tableKey]uint32  // every key entered in the address table → block
	generations     map[uint32]uint32    // by buffer address: how many functions there were retired
	contexts        int                  // calling contexts made beyond the functions' own
	natives         []*native            // in order of first sight
	nativeByKey     map[uint32]*native   // by key address; the unidentified one has its own
	unidentified    *native

	err error // the first host-side failure; the module then runs on, uncharged
	// tampered is the first sign, seen while the guest ran, that it wrote
	// over the accounting state (ErrTampered); Collect reports it.
	tampered error
	reserved [][2]uint32 // [start, end) of every region reserve made
	// hostPages are [start, end) of the pages the host grew the memory by
	// for itself after Start (HostPages)
	hostPages [][2]uint32

	progress *atomic.Uint64 // the counter at the last checkpoint, for Instructions

	// Sampling (Options.Sample).
	every      uint64
	onSample   costs.SampleFunc
	limit      uint64
	sampleAt   uint64
	lastSample uint64
	lcg        uint64
	identity   map[*function]*costs.FunctionCost
	wasmBuf    []costs.WasmFrame
	actBuf     []costs.Activation
	framesByPC map[experimental.ProgramCounter]costs.WasmFrame
	byObject   map[uint64]*function // sampling: function object → its function, last seen

	// Exact mode's Wasm stacks (Options.WasmStacks, wasmstacks.go).
	stacksEvery  uint64
	splits       map[string]*splitAcc
	outerSegs    map[*callContext][][]costs.WasmFrame // an aligned context's segments but the last
	splitOrder   []*splitAcc
	stackSamples uint64
	// awaitingEntry: no activation has begun since Start or Restart
	// (armFirstEntry); beforeJS is then what ran outside JS before it.
	awaitingEntry  bool
	beforeJS       uint64
	unplacedWeight uint64 // what samples stood for that no slot could take
	splitKeyBuf    []byte
	blocksBuf      []uint32
	startsBuf      []int
	segsBuf        [][2]int
	chainBuf       []*callContext
	lastBuf        []int
	stackGlobals   runningState
	// stackFor is the context newFunction just made, whose outer
	// segments contextStack is to take (Options.WasmStacks).
	stackFor *callContext
}

// runningState holds the globals that say what runs: the running block,
// slot and flags, and the shadow stack's pointer.
type runningState struct{ block, slot, flags, sp api.Global }

// tableKey is a key of the address table: a bytecode address entered from
// a calling context (the caller's block) at a call site (its slot). Sampling
// and the functions' own entries use parent and site 0.
type tableKey struct{ addr, parent, site uint32 }

// callContext is one calling context of a function (exact mode): the function
// called from its parent context at a call site, counted in a block of its
// own. A function's first block is its context with no parent.
type callContext struct {
	block  uint32
	fn     *function // nil for a native's context
	nat    *native   // nil for a JS function's context
	parent *callContext
	site   uint32 // the parent's slot at the call
	depth  int    // the number of ancestors: its index in its chain
}

// shape is the base and limit of the context's block.
func (c *callContext) shape() (base, limit uint32) {
	if c.nat != nil {
		return 0, 0
	}
	return c.fn.blockShape()
}

// native is one native function the host has seen (exact mode with
// Options.Natives): a C function by the table index and magic its function
// objects hold, or the unidentified native that stands for calls of
// functions neither bytecode nor C. Its blocks have one slot: what it ran.
type native struct {
	block        uint32
	tableIndex   uint32
	magic        int16
	unidentified bool
	contexts     []*callContext // its own first
}

// maxContexts bounds the calling contexts (beyond each function's own): a
// program whose call graph has more is counted by function past it.
const maxContexts = 1 << 14

// function is one JS function the host has seen.
type function struct {
	block    uint32
	start    uint32 // bytecode buffer: its address identifies the function
	length   uint32 // 0 when unknown
	bytecode uint32 // the engine's function-bytecode object, 0 when unknown
	code     []byte // the buffer as first seen (it may be freed before the run ends)
	entries  []uint32
	contexts []*callContext // its own first
	// generation counts the functions whose buffer was at start before
	// this one, freed and the memory reused (retire).
	generation uint32
	retired    bool // its buffer now holds another function's code
}

// New returns the host side for a module rewritten by Instrument.
func New(plan *Plan) *Meter {
	return &Meter{plan: plan, progress: &atomic.Uint64{}}
}

// Link instantiates the host module the rewritten module imports, and
// ListenedModule when the plan listens; it fits runner.Options.Link. The
// guest must then be called with a context from Context (it fits
// runner.Options.Context).
func (mt *Meter) Link(ctx context.Context, rt wazero.Runtime) ([]string, error) {
	return mt.link(ctx, rt, experimental.FunctionListenerFactoryFunc(newListener))
}

// link is Link with ListenedModule's listeners made by listeners.
func (mt *Meter) link(ctx context.Context, rt wazero.Runtime, listeners experimental.FunctionListenerFactory) ([]string, error) {
	_, err := rt.NewHostModuleBuilder(HostModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(mt.newFunction), []api.ValueType{api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		Export(HostNewFunction).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(mt.growStack), nil, nil).
		Export(HostGrowStack).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, caller api.Module, _ []uint64) {
			if mt.mod == nil && mt.early == nil && Instrumented(caller) {
				mt.early = caller // its start function runs (AddStartStops)
			}
			mt.checkpoint(ctx, nil)
		}), nil, nil).
		Export(HostCheckpoint).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(mt.stop), nil, nil).
		Export(HostStop).
		Instantiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("meter: linking %s: %w", HostModule, err)
	}
	if !mt.plan.Listened() {
		return []string{HostModule}, nil
	}
	if err := mt.linkListened(ctx, rt, listeners); err != nil {
		return nil, err
	}
	return []string{HostModule, ListenedModule}, nil
}

// linkListened instantiates ListenedModule: its empty functions, compiled
// with listeners that find the meter of each call in its context
// (newListener). Its bytes depend on the plan's mode only, so that every
// meter of a process, and every run, shares one compiled module.
func (mt *Meter) linkListened(ctx context.Context, rt wazero.Runtime, listeners experimental.FunctionListenerFactory) error {
	names := []string{SampleExport}
	if mt.plan.WasmStacks {
		names = append(names, ContextStackExport)
	}
	m := &wasmcore.Module{Types: []wasmcore.FuncType{{}}}
	for i, name := range names {
		m.Functions = append(m.Functions, wasmcore.Function{Body: code(end())})
		m.Exports = append(m.Exports, wasmcore.Export{Name: name, Kind: wasmcore.ExternFunc, Index: uint32(i)})
	}
	wasm, err := m.Encode()
	if err == nil {
		var compiled wazero.CompiledModule
		compiled, err = rt.CompileModule(experimental.WithFunctionListenerFactory(ctx, listeners), wasm)
		if err == nil {
			_, err = rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(ListenedModule).WithStartFunctions())
		}
	}
	if err != nil {
		return fmt.Errorf("meter: linking %s: %w", ListenedModule, err)
	}
	return nil
}

// Instrumented says whether mod is an instance of the module the meter
// instrumented (its other instances, a plugin's dynamic module, are not).
func Instrumented(mod api.Module) bool { return mod.ExportedGlobal(exportBlock) != nil }

// Start prepares the accounting state of mod if it is the instrumented
// module (other instances are left alone); it fits runner.Options.Instantiated.
func (mt *Meter) Start(ctx context.Context, mod api.Module) error {
	if mod.ExportedGlobal(exportBlock) == nil {
		return nil
	}
	progress := mt.progress
	progress.Store(0)
	*mt = Meter{plan: mt.plan, mod: mod, progress: progress, byBlock: map[uint32]*function{}, byStart: map[uint32]*function{}, byKey: map[tableKey]uint32{}, generations: map[uint32]uint32{}, ctxByBlock: map[uint32]*callContext{},
		nativeByKey: map[uint32]*native{},
		every:       mt.every, onSample: mt.onSample, limit: mt.limit, identity: map[*function]*costs.FunctionCost{},
		stacksEvery: mt.stacksEvery, splits: map[string]*splitAcc{}, outerSegs: map[*callContext][][]costs.WasmFrame{},
		framesByPC: map[experimental.ProgramCounter]costs.WasmFrame{}, byObject: map[uint64]*function{}}
	// One page holds the stack, the table and the first blocks: every
	// memory.grow may copy the whole memory, so they are few.
	if g, ok := mod.ExportedGlobal(exportGuestPages).(api.MutableGlobal); ok && mod.Memory() != nil {
		g.Set(uint64(mod.Memory().Size() / pageSize))
	}
	if g, ok := mod.ExportedGlobal(exportGuestHole).(api.MutableGlobal); ok {
		g.Set(0)
	}
	stack, err := mt.reserve(pageSize)
	if err != nil {
		return err
	}
	mt.stackBase, mt.stackCap = stack, initialStackFrames
	hash := stack + initialStackFrames*frameSize
	mt.setHashTable(hash, initialHashSlots)
	mt.arenaNext, mt.arenaEnd, mt.arenaGrow = hash+initialHashSlots*hashEntrySize, stack+pageSize, arenaChunk
	if mt.outside, err = mt.newBlock(0, 0); err != nil {
		return err
	}
	if mt.native, err = mt.newBlock(0, 0); err != nil {
		return err
	}
	set := func(name string, v uint64) {
		mod.ExportedGlobal(name).(api.MutableGlobal).Set(v)
	}
	set(exportSP, uint64(stack))
	set(exportStackEnd, uint64(stack+initialStackFrames*mt.frameSize()))
	set(exportNative, uint64(mt.native))
	set(exportSlot, 0)
	set(exportBase, 0)
	set(exportLimit, 0)
	set(exportFlags, 0)
	set(exportLast, mod.ExportedGlobal(mt.plan.Counter).Get())
	if mt.plan.Checkpoints {
		mt.lastSample = mod.ExportedGlobal(mt.plan.Counter).Get()
		if mt.sampling() {
			mt.nextSample(mt.lastSample)
		}
		mt.setCheckpoint(mt.lastSample)
	}
	mt.armFirstEntry()
	set(exportBlock, uint64(mt.outside)) // last: a non-zero block turns the accounting on
	return nil
}

// Instructions returns the instructions the guest had executed at its last
// checkpoint (at most about 20M instructions ago, with checkpoints; 0
// without): for progress reports from another goroutine while the guest
// runs. wazero's globals cannot be read safely from outside the guest while
// it runs; the checkpoint, in the guest's own goroutine, publishes it.
func (mt *Meter) Instructions() uint64 { return mt.progress.Load() }

// Memory is the instrumented instance's memory, nil before Start. It stays
// readable after the guest ended.
func (mt *Meter) Memory() api.Memory {
	if mt.mod == nil {
		return nil
	}
	return mt.mod.Memory()
}

// reserve grows the guest's memory by whole pages for n bytes and returns
// their address. The guest's allocator takes the pages after them as usual.
func (mt *Meter) reserve(n uint32) (uint32, error) {
	mem := mt.mod.Memory()
	if mem == nil {
		return 0, errors.New("meter: the instrumented module has no memory")
	}
	pages := (n + pageSize - 1) / pageSize
	first, now := len(mt.reserved) == 0, mem.Size()/pageSize
	gap := uint32(0)
	if first {
		// The first reservation leaves the guest room to grow in first
		// (memview.go), as much as the memory's maximum allows.
		gap = guestGapPages
		if max, ok := mem.Definition().Max(); ok {
			gap = min(gap, max-min(max, now+pages))
		}
	}
	prev, ok := mem.Grow(gap + pages)
	if !ok && gap > 0 {
		// The runtime's own limit (a memory with no maximum of its own,
		// whose minimum is near 4 GiB) leaves no room for the gap: the
		// guest then grows past the meter's pages, as before the gap.
		gap = 0
		prev, ok = mem.Grow(pages)
	}
	if !ok {
		return 0, fmt.Errorf("meter: cannot grow the guest's memory by %d pages for the counters (its maximum is reached)", pages)
	}
	if lim, isSet := mt.mod.ExportedGlobal(exportGuestLimit).(api.MutableGlobal); first && isSet {
		lim.Set(uint64(now + gap))
	}
	prev += gap
	mt.reserved = append(mt.reserved, [2]uint32{prev * pageSize, (prev + pages) * pageSize})
	return prev * pageSize, nil
}

// UntouchedBytes is the part of the gap left for the guest to grow into
// (memview.go) that it has not grown into: pages in the memory's size
// that nothing ever wrote, and that take no memory of the host's.
func (mt *Meter) UntouchedBytes() uint64 {
	if mt.mod == nil {
		return 0
	}
	pages, limit := mt.mod.ExportedGlobal(exportGuestPages), mt.mod.ExportedGlobal(exportGuestLimit)
	if pages == nil || limit == nil || limit.Get() <= pages.Get() {
		return 0
	}
	return (limit.Get() - pages.Get()) * pageSize
}

// GuestBytes is the size of the instrumented module's memory as the guest
// sees it (memview.go): without the meter's pages and the gap before them;
// 0 when the module was never started. A guest that outgrew the gap sees
// the real memory, the meter's pages and the gap it left unused inside
// it: they are taken out.
func (mt *Meter) GuestBytes() uint64 {
	if mt.mod == nil {
		return 0
	}
	g := mt.mod.ExportedGlobal(exportGuestPages)
	if g == nil {
		return 0
	}
	size := g.Get() * pageSize
	if h := mt.mod.ExportedGlobal(exportGuestHole); h != nil {
		size -= min(size, h.Get()*pageSize)
	}
	for _, r := range append(mt.reserved[:len(mt.reserved):len(mt.reserved)], mt.hostPages...) {
		if uint64(r[1]) <= g.Get()*pageSize {
			size -= min(size, uint64(r[1]-r[0]))
		}
	}
	return size
}

// HostPages notes pages [start, end) the host grew the instrumented
// module's memory by for itself after Start (a detached program put back,
// past the guest's view as the meter's pages are): like the meter's, they
// are not the guest's once a guest that outgrew its gap sees them.
func (mt *Meter) HostPages(start, end uint32) {
	mt.hostPages = append(mt.hostPages, [2]uint32{start, end})
}

// ReservedBytes is how much of the guest's memory the meter took for its
// counters: not the guest's to report as memory it used.
func (mt *Meter) ReservedBytes() uint64 {
	var n uint64
	for _, r := range mt.reserved {
		n += uint64(r[1] - r[0])
	}
	return n
}

// newBlock allocates a zeroed block with limit pc slots for the bytecode at
// base (base 0: slots by opcode value).
func (mt *Meter) newBlock(base, limit uint32) (uint32, error) {
	size := (blockSize(limit) + 7) &^ 7
	if mt.arenaEnd-mt.arenaNext < size {
		chunk := max(size, mt.arenaGrow)
		mt.arenaGrow = min(mt.arenaGrow*2, maxArenaChunk)
		start, err := mt.reserve(chunk)
		if err != nil {
			return 0, err
		}
		mt.arenaNext, mt.arenaEnd = start, start+chunk
	}
	b := mt.arenaNext
	mt.arenaNext += size
	mem := mt.mod.Memory()
	mem.WriteUint32Le(b+blockBase, base)
	mem.WriteUint32Le(b+blockLimit, limit)
	mem.WriteUint32Le(b+blockCheck, blockCheckWord(b, base, limit))
	return b, nil
}

// newHashTable replaces the address table with an empty one of slots
// entries (a power of two) and enters every known address into it.
func (mt *Meter) newHashTable(slots uint32) error {
	base, err := mt.reserve(slots * hashEntrySize)
	if err != nil {
		return err
	}
	mt.setHashTable(base, slots)
	return nil
}

// setHashTable makes the zeroed memory at base the table, with every known
// address entered.
func (mt *Meter) setHashTable(base, slots uint32) {
	mt.hashBase, mt.hashMask, mt.hashUsed = base, slots-1, 0
	for key, block := range mt.byKey {
		mt.hashInsert(key, block)
	}
	mt.mod.ExportedGlobal(exportHashBase).(api.MutableGlobal).Set(uint64(base))
	mt.mod.ExportedGlobal(exportHashMask).(api.MutableGlobal).Set(uint64(slots - 1))
}

// repairHashTable clears the table, which the guest wrote over, and enters
// every known address again, so that neither the module's lookups nor the
// host's inserts go round a table with no free entry.
func (mt *Meter) repairHashTable(why string) {
	mt.tamper(fmt.Errorf("the address table at %#x: %s", mt.hashBase, why))
	if b, ok := mt.mod.Memory().Read(mt.hashBase, (mt.hashMask+1)*hashEntrySize); ok {
		clear(b)
	}
	mt.setHashTable(mt.hashBase, mt.hashMask+1)
}

// tamper records the first sign that the guest wrote over the accounting
// state while it ran.
func (mt *Meter) tamper(err error) {
	if mt.tampered == nil {
		mt.tampered = err
	}
}

// hashInsert mirrors the module's lookup (lookupBody): h = mix(addr ^
// parent*K1 ^ site*K2) & mask, linear probing. It looks at every entry at
// most once: false when none is free, which only a guest writing over the
// table can cause (it is never more than half full).
func (mt *Meter) hashInsert(key tableKey, block uint32) bool {
	mem := mt.mod.Memory()
	x := (key.addr ^ key.parent*uint32(hashParentMul&0xFFFFFFFF) ^ key.site*uint32(hashSiteMul&0xFFFFFFFF)) * 0x9E3779B1
	h := (x ^ x>>15) & mt.hashMask
	for range mt.hashMask + 1 {
		e := mt.hashBase + h*hashEntrySize
		a, _ := mem.ReadUint32Le(e + hashKeyAddr)
		p, _ := mem.ReadUint32Le(e + hashKeyParent)
		s, _ := mem.ReadUint32Le(e + hashKeySite)
		if a == 0 || (tableKey{a, p, s}) == key {
			mem.WriteUint32Le(e+hashKeyAddr, key.addr)
			mem.WriteUint32Le(e+hashKeyParent, key.parent)
			mem.WriteUint32Le(e+hashKeySite, key.site)
			mem.WriteUint32Le(e+hashValueBlock, block)
			if a == 0 {
				mt.hashUsed++
			}
			return true
		}
		h = (h + 1) & mt.hashMask
	}
	return false
}

// enter records key → block in the address table, growing it past half
// full. Past maxKeys it records nothing: the module asks the host again.
func (mt *Meter) enter(key tableKey, block uint32) error {
	if len(mt.byKey) >= maxKeys {
		return nil
	}
	mt.byKey[key] = block
	if (mt.hashUsed+1)*2 > mt.hashMask+1 {
		if err := mt.newHashTable((mt.hashMask + 1) * 2); err != nil {
			return err
		}
	}
	if !mt.hashInsert(key, block) {
		mt.repairHashTable("no free entry")
	}
	return nil
}

// newFunction is the import the module calls for a bytecode address it has
// not seen from a calling context and call site: (addr i32, function object
// i64, parent block i32, site i32) -> block i32.
func (mt *Meter) newFunction(_ context.Context, _ api.Module, stack []uint64) {
	addr, funcObj, parent, site := uint32(stack[0]), stack[1], uint32(stack[2]), uint32(stack[3])
	if _, known := mt.byKey[tableKey{addr, parent, site}]; known {
		// The module's lookup missed a key the host entered: the guest
		// wrote over the table.
		mt.repairHashTable(fmt.Sprintf("entry of address %#x lost", addr))
	}
	var block uint32
	var err error
	if site&siteTags != 0 {
		block, err = mt.nativeContextBlock(addr, parent, site)
	} else {
		block, err = mt.contextBlock(addr, funcObj, parent, site)
	}
	if err != nil {
		// Keep the guest running: charge the native bucket, remember why.
		if mt.err == nil {
			mt.err = err
		}
		block = mt.native
	}
	if mt.plan.WasmStacks {
		if c := mt.ctxByBlock[block]; c != nil && mt.outerSegs[c] == nil {
			mt.stackFor = c
		}
	}
	stack[0] = uint64(block)
}

// contextBlock returns the block that counts the function at addr called
// from the context whose block is parent at the call site site: the
// function's own block when parent is no function's (a bucket), the
// ancestor context of the same function when the call is recursive (so
// that recursion does not multiply contexts), or a new context's.
func (mt *Meter) contextBlock(addr uint32, funcObj uint64, parent, site uint32) (uint32, error) {
	key := tableKey{addr, parent, site}
	if block, ok := mt.byKey[key]; ok {
		return block, nil
	}
	own, err := mt.blockFor(addr, funcObj)
	if err != nil {
		return 0, err
	}
	f := mt.byBlock[own]
	caller := mt.ctxByBlock[parent]
	block := own
	if f != nil && caller != nil {
		recursive := false
		for c := caller; c != nil; c = c.parent {
			if c.fn == f {
				block, recursive = c.block, true
				break
			}
		}
		if !recursive && mt.contexts < maxContexts {
			base, limit := f.start, f.length
			if f.length == 0 {
				base, limit = 0, byOpcodeSlots
			}
			if block, err = mt.newBlock(base, limit); err != nil {
				return 0, err
			}
			c := &callContext{block: block, fn: f, parent: caller, site: site, depth: caller.depth + 1}
			f.contexts = append(f.contexts, c)
			mt.ctxByBlock[block] = c
			mt.contexts++
		}
	}
	if err := mt.enter(key, block); err != nil {
		return 0, err
	}
	return block, nil
}

// nativeContextBlock is contextBlock for a native's key (site carries
// siteNative or siteUnknown): the native's own block when called from no
// context, the ancestor context of the same native when the call is
// recursive (a comparator that sorts), or a new context's.
func (mt *Meter) nativeContextBlock(addr, parent, site uint32) (uint32, error) {
	key := tableKey{addr, parent, site}
	if block, ok := mt.byKey[key]; ok {
		return block, nil
	}
	n, err := mt.nativeFor(addr, site&siteUnknown != 0)
	if err != nil {
		return 0, err
	}
	block := n.block
	if caller := mt.ctxByBlock[parent]; caller != nil {
		recursive := false
		for c := caller; c != nil; c = c.parent {
			if c.nat == n {
				block, recursive = c.block, true
				break
			}
		}
		if !recursive && mt.contexts < maxContexts {
			if block, err = mt.newBlock(0, 0); err != nil {
				return 0, err
			}
			c := &callContext{block: block, nat: n, parent: caller, site: site &^ siteTags, depth: caller.depth + 1}
			n.contexts = append(n.contexts, c)
			mt.ctxByBlock[block] = c
			mt.contexts++
		}
	}
	if err := mt.enter(key, block); err != nil {
		return 0, err
	}
	return block, nil
}

// nativeFor returns the native of a key address (the table index | magic
// << 16), or the unidentified native, made on first sight.
func (mt *Meter) nativeFor(addr uint32, unidentified bool) (*native, error) {
	if unidentified && mt.unidentified != nil {
		return mt.unidentified, nil
	}
	if n := mt.nativeByKey[addr]; n != nil && !unidentified {
		return n, nil
	}
	if len(mt.natives) >= maxNatives {
		return nil, fmt.Errorf("meter: more than %d native functions (table index %d and later ones are counted as the native bucket)", maxNatives, addr&maxNativeTableIndex)
	}
	block, err := mt.newBlock(0, 0)
	if err != nil {
		return nil, err
	}
	n := &native{block: block, unidentified: unidentified}
	if unidentified {
		mt.unidentified = n
	} else {
		n.tableIndex, n.magic = addr&maxNativeTableIndex, int16(addr>>16)
		mt.nativeByKey[addr] = n
	}
	own := &callContext{block: block, nat: n}
	n.contexts = []*callContext{own}
	mt.ctxByBlock[block] = own
	mt.natives = append(mt.natives, n)
	return n, nil
}

func (mt *Meter) blockFor(addr uint32, funcObj uint64) (uint32, error) {
	start, length, bytecode := mt.resolve(funcObj, addr)
	if length == 0 {
		if f := mt.containing(addr); f != nil {
			start, length, bytecode = f.start, f.length, f.bytecode
		} else {
			// No buffer known: the address itself names the function.
			start, length, bytecode = addr, 0, 0
		}
	}
	f := mt.byStart[start]
	if f != nil && length > 0 && !mt.holds(f, length, bytecode) {
		mt.retire(f)
		f = nil
	}
	if f == nil && len(mt.funcs) >= maxFunctions {
		return 0, fmt.Errorf("meter: more than %d JS functions (the function at %#x and later ones are counted as native)", maxFunctions, start)
	}
	if f == nil {
		base, limit := start, length
		if length == 0 {
			base, limit = 0, byOpcodeSlots
		}
		block, err := mt.newBlock(base, limit)
		if err != nil {
			return 0, err
		}
		f = &function{block: block, start: start, length: length, bytecode: bytecode, generation: mt.generations[start]}
		own := &callContext{block: block, fn: f}
		f.contexts = []*callContext{own}
		mt.ctxByBlock[block] = own
		if length > 0 {
			if code, ok := mt.mod.Memory().Read(start, length); ok {
				f.code = append([]byte(nil), code...)
			}
		}
		mt.funcs = append(mt.funcs, f)
		mt.byStart[start] = f
		mt.byBlock[block] = f
	}
	key := tableKey{addr: addr}
	if _, ok := mt.byKey[key]; !ok {
		if addr != start {
			f.entries = append(f.entries, addr)
		}
		if err := mt.enter(key, f.block); err != nil {
			return 0, err
		}
	}
	return f.block, nil
}

// holds says whether the buffer at f's address, which the engine now
// describes with length and its function-bytecode object at bytecode, is
// still f's: the same length, object and bytes. The engine frees a
// function's bytecode when its last closure goes, and its allocator hands
// the memory to the next allocation: in a dynamic module, the code the
// plugin evaluates at start-up is freed and the program read into its
// place, so that one address holds two functions in one run.
//
// The bytes compared are the first and last sampledPrefix: a function
// called from thousands of contexts asks the host once per context, and
// a module's top level can be hundreds of kilobytes long.
func (mt *Meter) holds(f *function, length, bytecode uint32) bool {
	if f.length != length || f.bytecode != bytecode {
		return false
	}
	if len(f.code) != int(f.length) {
		return true // never read: nothing to compare
	}
	mem := mt.mod.Memory()
	n := min(f.length, sampledPrefix)
	head, ok1 := mem.Read(f.start, n)
	tail, ok2 := mem.Read(f.start+f.length-n, n)
	return ok1 && ok2 && bytes.Equal(head, f.code[:n]) && bytes.Equal(tail, f.code[f.length-n:])
}

// retire forgets f as the function at its address, which holds another
// function's code now: its keys leave the address table (rebuilt without
// them), so that the module asks the host again at the next call of what
// is there. Its counts stay; it stays in the results.
func (mt *Meter) retire(f *function) {
	f.retired = true
	delete(mt.byStart, f.start)
	mt.generations[f.start]++
	for key, block := range mt.byKey {
		if c := mt.ctxByBlock[block]; c != nil && c.fn == f {
			delete(mt.byKey, key)
		}
	}
	for obj, g := range mt.byObject {
		if g == f {
			delete(mt.byObject, obj)
		}
	}
	if b, ok := mt.mod.Memory().Read(mt.hashBase, (mt.hashMask+1)*hashEntrySize); ok {
		clear(b)
	}
	mt.setHashTable(mt.hashBase, mt.hashMask+1)
}

// frameSize is the size of a shadow-stack frame of the plan's mode.
func (mt *Meter) frameSize() uint32 {
	if mt.plan.Sample {
		return sampleFrameSize
	}
	return frameSize
}

// growStack is the import the module calls when the shadow stack is full:
// the frames move to a region twice the size. Past maxStackFrames, or if the
// memory cannot grow, the stack stays full and deeper activations are
// charged to the native bucket.
func (mt *Meter) growStack(ctx context.Context, mod api.Module, _ []uint64) {
	if mt.awaitingEntry {
		mt.firstEntry()
		return
	}
	if mt.stackCap >= maxStackFrames {
		return
	}
	newCap := mt.stackCap * 2
	size := mt.frameSize()
	base, err := mt.reserve(newCap * size)
	if err != nil {
		if mt.err == nil {
			mt.err = err
		}
		return
	}
	mem := mt.mod.Memory()
	used := mt.stackCap * size
	frames, ok := mem.Read(mt.stackBase, used)
	if !ok || !mem.Write(base, frames) {
		return
	}
	mt.stackBase, mt.stackCap = base, newCap
	mt.mod.ExportedGlobal(exportSP).(api.MutableGlobal).Set(uint64(base + used))
	mt.mod.ExportedGlobal(exportStackEnd).(api.MutableGlobal).Set(uint64(base + newCap*size))
}

// armFirstEntry has the first activation from now on tell the host it
// began (exact mode): the stack is made to look full, so the entry code
// calls growStack, which records what ran outside JS until then and
// restores the stack's end. No instruction is added to the entry code.
// Only when no activation is running (Start, Restart).
func (mt *Meter) armFirstEntry() {
	if mt.plan.Sample {
		return
	}
	mt.awaitingEntry, mt.beforeJS = true, 0
	mt.mod.ExportedGlobal(exportStackEnd).(api.MutableGlobal).Set(uint64(mt.stackBase))
}

// firstEntry runs at the first activation's entry: everything so far was
// charged to the outside bucket, whose count (guest memory: bounded by the
// counter) is engine start-up.
func (mt *Meter) firstEntry() {
	mt.awaitingEntry = false
	mt.mod.ExportedGlobal(exportStackEnd).(api.MutableGlobal).Set(uint64(mt.stackBase + mt.stackCap*mt.frameSize()))
	count := mt.mod.ExportedGlobal(mt.plan.Counter).Get()
	instrs, ok := mt.mod.Memory().ReadUint64Le(mt.outside + blockHeader + slotInstrs)
	if !ok || instrs > count {
		mt.tamper(fmt.Errorf("the outside bucket counts %d instructions at the first activation, of %d the guest ran", instrs, count))
		instrs = count
	}
	mt.beforeJS = instrs
}

// maxBytecodeLength bounds a bytecode length read from guest memory.
const maxBytecodeLength = 1 << 24

// resumeStateWords is how many 32-bit words of a generator's saved state
// are searched for its function object.
const resumeStateWords = 48

// resolve finds the bytecode buffer that contains addr, from the value the
// interpreter was called with. For a call it is the function object, and
// the dispatch analysis's pointer chain leads to the buffer (QuickJS:
// obj->u.func.function_bytecode->byte_code_buf, byte_code_len right after
// it). For a generator or async function resuming, QuickJS passes its saved
// state instead, which holds the function object: the words of the state
// are tried as function objects. Either way the object must pass the class
// check the interpreter itself makes, and the buffer must contain addr. It
// returns zeros when nothing qualifies.
func (mt *Meter) resolve(funcObj uint64, addr uint32) (start, length, bytecode uint32) {
	bp := mt.plan.BytecodePointer
	if bp == nil || len(bp.Path) == 0 {
		return 0, 0, 0
	}
	if start, length, bytecode = mt.follow(uint32(funcObj), addr, true); length != 0 {
		return start, length, bytecode
	}
	mem := mt.mod.Memory()
	for k := uint32(0); k < resumeStateWords; k++ {
		obj, ok := mem.ReadUint32Le(uint32(funcObj) + 4*k)
		if !ok {
			break
		}
		if start, length, bytecode = mt.follow(obj, addr, false); length != 0 {
			return start, length, bytecode
		}
	}
	return 0, 0, 0
}

// anyAddress, as resolve's addr, accepts a buffer wherever it is: for an
// activation that has not dispatched yet and so has no address to check.
const anyAddress = ^uint32(0)

// maxInlineOffset bounds how far after its function-bytecode object QuickJS
// places the bytecode buffer (in the same allocation, after the object's
// tables) when nothing else confirms the buffer. The tables grow with the
// function: a module's top level that defines 50,000 functions has a
// constant pool of 400 KB before its code. A buffer that holds the
// running opcode's address is confirmed by it, and may lie as far as the
// longest buffer.
const maxInlineOffset = 1 << 16

// follow applies the pointer chain to obj; see resolve. A called function
// object must have the class the interpreter checks for; a generator's
// function object has another class (generator, async function), so for
// those the buffer must instead lie just after its function-bytecode
// object, as QuickJS allocates them.
func (mt *Meter) follow(obj, addr uint32, call bool) (start, length, bytecode uint32) {
	bp := mt.plan.BytecodePointer
	mem := mt.mod.Memory()
	if obj < 8 {
		return 0, 0, 0
	}
	quickjs := bp.ClassIDOffset != nil && bp.ClassID != nil
	if quickjs && call {
		id, ok := mem.ReadUint16Le(obj + uint32(*bp.ClassIDOffset))
		if !ok || int64(id) != *bp.ClassID {
			return 0, 0, 0
		}
	}
	p := obj
	for i, off := range bp.Path {
		if i == len(bp.Path)-1 {
			bytecode = p
		}
		v, ok := mem.ReadUint32Le(p + uint32(off))
		if !ok || v < 8 {
			return 0, 0, 0
		}
		p = v
	}
	n, ok := mem.ReadUint32Le(bytecode + uint32(bp.Path[len(bp.Path)-1]) + 4)
	if !ok || n == 0 || n > maxBytecodeLength || (addr != anyAddress && (addr < p || addr-p >= n)) {
		return 0, 0, 0
	}
	if quickjs && !call {
		limit := uint32(maxInlineOffset)
		if addr != anyAddress {
			limit = maxBytecodeLength
		}
		if p <= bytecode || p-bytecode > limit {
			return 0, 0, 0
		}
	}
	return p, n, bytecode
}

// containing returns the known function whose buffer contains addr.
func (mt *Meter) containing(addr uint32) *function {
	for _, f := range mt.funcs {
		if !f.retired && f.length > 0 && addr >= f.start && addr-f.start < f.length {
			return f
		}
	}
	return nil
}
