package meter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/tetratelabs/wazero/api"
)

// ErrTampered says that what was read back from the guest's memory is not
// what the injected code could have left there: the guest wrote over the
// accounting state. The counters live in the guest's own linear memory
// (the only place the injected code can update them at a few instructions
// per opcode: wazero has no second memory the guest cannot address), so
// nothing read from there is trusted: every block is checked against what
// the host knows of it (its address, base, limit and check word), every
// count against the instruction counter, which lives in a global the
// guest's own code cannot name, and the parts must add up to it.
var ErrTampered = errors.New("the guest wrote over the profiler's counters in its memory")

// maxProblems is how many tampered blocks an error names before it counts
// the rest.
const maxProblems = 1

// readBack checks the counters it reads for one Collect.
type readBack struct {
	mem   api.Memory
	total uint64 // the instruction counter: no count can exceed it
	first error  // the first problem
	more  int    // problems after it
	// pending: instructions since the last charge, for (pendBlock, pendSlot)
	pending             uint64
	pendBlock, pendSlot uint32
}

func (rb *readBack) problem(err error) {
	if rb.first == nil {
		rb.first = err
	} else {
		rb.more++
	}
}

// block checks the block at addr, which the host made with base and limit,
// and returns its calls, its inclusive instructions and its slots (a view
// of guest memory, limit+1 slots of slotSize bytes, the call setup last);
// ok is false, and the problem recorded, if it cannot be trusted: none of
// its counts are used then.
func (rb *readBack) block(owner blockOwner, addr, base, limit uint32) (calls, incl uint64, slots []byte, ok bool) {
	b, ok := rb.mem.Read(addr, blockSize(limit))
	if !ok {
		rb.problem(fmt.Errorf("the counters of %s at %#x: past the end of the memory (%d bytes)", owner, addr, rb.mem.Size()))
		return 0, 0, nil, false
	}
	le := binary.LittleEndian
	gotBase, gotLimit, gotCheck := le.Uint32(b[blockBase:]), le.Uint32(b[blockLimit:]), le.Uint32(b[blockCheck:])
	if gotBase != base || gotLimit != limit || gotCheck != blockCheckWord(addr, base, limit) {
		rb.problem(fmt.Errorf("the counters of %s at %#x: header says base %#x, limit %d, check %#x; the meter made it base %#x, limit %d, check %#x",
			owner, addr, gotBase, gotLimit, gotCheck, base, limit, blockCheckWord(addr, base, limit)))
		return 0, 0, nil, false
	}
	calls, incl = le.Uint64(b[blockCalls:]), le.Uint64(b[blockTotal:])
	slots = b[blockHeader:]
	var sum uint64
	for i := uint32(0); i <= limit; i++ {
		execs, instrs := le.Uint64(slots[i*slotSize+slotExecs:])&execsMask, le.Uint64(slots[i*slotSize+slotInstrs:])
		// Every execution runs instructions, so neither count exceeds the
		// counter; nor does the block's sum (checked as it goes: no
		// overflow). Whether all blocks add up to it is Results.Check's.
		if execs > rb.total || instrs > rb.total-sum {
			rb.problem(fmt.Errorf("the counters of %s at %#x: slot %d counts %d executions, %d instructions, of %d the guest ran", owner, addr, i, execs, instrs, rb.total))
			return 0, 0, nil, false
		}
		sum += instrs
	}
	if calls > rb.total || incl > rb.total {
		rb.problem(fmt.Errorf("the counters of %s at %#x: %d calls, %d inclusive and %d own instructions, of %d the guest ran", owner, addr, calls, incl, sum, rb.total))
		return 0, 0, nil, false
	}
	return calls, incl, slots, true
}

// blockOwner names a block in errors: a function's, a native's, or a
// bucket's.
type blockOwner struct {
	fn     *function
	nat    *native
	bucket string
}

func (o blockOwner) String() string {
	switch {
	case o.fn != nil:
		return fmt.Sprintf("the JS function at %#x", o.fn.start)
	case o.nat != nil && o.nat.unidentified:
		return "the unidentified natives"
	case o.nat != nil:
		return fmt.Sprintf("the native at table index %d", o.nat.tableIndex)
	}
	return "the bucket " + o.bucket
}

// slot is slot i of a block's slots: executions and instructions, with
// what ran since the last charge added to the running slot.
func (rb *readBack) slot(block uint32, slots []byte, i uint32) (execs, instrs uint64) {
	le := binary.LittleEndian
	execs, instrs = le.Uint64(slots[i*slotSize+slotExecs:])&execsMask, le.Uint64(slots[i*slotSize+slotInstrs:])
	if block == rb.pendBlock && i == rb.pendSlot {
		instrs += rb.pending
	}
	return execs, instrs
}

// err is the error describing the problems, nil if none.
func (rb *readBack) err() error {
	if rb.first == nil {
		return nil
	}
	more := ""
	if rb.more > 0 {
		more = fmt.Sprintf(" (and %d more)", rb.more)
	}
	return fmt.Errorf("meter: %w: %w%s; what they counted is charged to %s", ErrTampered, rb.first, more, jsprofile.BucketTampered)
}

// ErrNotStarted is Collect's error when the instrumented module never
// started: the guest ended (a start function was stopped, a module failed
// to instantiate) before Start. Nothing was counted.
var ErrNotStarted = errors.New("meter: the instrumented module never started")

// Collect reads the counters after the guest ended (normally, by exit, by
// trap, or stopped). What ran since the last charge is charged to the
// (function, slot) that was running.
//
// Nothing read from guest memory is trusted (ErrTampered): a block that
// fails its checks is left out, and Collect returns the Results that can be
// trusted — the total, every function seen, the blocks that passed — with
// what they do not account for in BucketTampered, so that they still add
// up to the total, and an error saying what was wrong; the caller writes
// them with a warning.
// It allocates in proportion to what the host itself made (functions, the
// pc slots of their buffers), never to a size read from the guest.
func (mt *Meter) Collect() (*costs.Results, error) {
	if mt.mod == nil {
		return nil, ErrNotStarted
	}
	get := func(name string) uint64 { return mt.mod.ExportedGlobal(name).Get() }
	total := get(mt.plan.Counter)
	res := &costs.Results{TotalInstructions: total, Functions: make([]costs.FunctionCost, 0, len(mt.funcs))}
	if mt.plan.Sample {
		// Sampling charges no slots: the functions seen are all there is.
		for _, f := range mt.funcs {
			res.Functions = append(res.Functions, costs.FunctionCost{Address: f.start, Generation: f.generation, Length: f.length, Bytecode: f.bytecode, Code: f.code})
		}
		return res, mt.collectErr(nil)
	}
	rb := &readBack{mem: mt.mod.Memory(), total: total}
	rb.pendingCharge(mt, uint32(get(exportBlock)), uint32(get(exportSlot)), get(exportLast))

	// A function's contexts' blocks add up to its own costs. (Its contexts
	// never nest, recursion being folded into the outer one, so their
	// inclusive totals add up too.)
	contexts := 0
	for _, f := range mt.funcs {
		contexts += len(f.contexts)
	}
	for _, n := range mt.natives {
		contexts += len(n.contexts)
	}
	res.Contexts = make([]costs.ContextCost, 0, contexts)
	ctxIndex := make(map[*callContext]int, contexts)
	ctxOf := make([]*callContext, 0, contexts) // each of res.Contexts's, while the parents are linked
	var sum [][3]uint64                        // the function's slots over its contexts (executions, instructions, dispatched), reused
	var pcs pcSlab
	for fi, f := range mt.funcs {
		fc := costs.FunctionCost{Address: f.start, Generation: f.generation, Length: f.length, Bytecode: f.bytecode, Code: f.code}
		fc.Resumptions = append([]uint32(nil), f.entries...)
		sort.Slice(fc.Resumptions, func(i, j int) bool { return fc.Resumptions[i] < fc.Resumptions[j] })
		base, limit := f.blockShape()
		if cap(sum) <= int(limit) {
			sum = make([][3]uint64, limit+1)
		} else {
			sum = sum[:limit+1]
			clear(sum)
		}
		for _, c := range f.contexts {
			ctxIndex[c] = len(res.Contexts)
			cc := costs.ContextCost{Function: fi, Native: -1, Parent: -1, CallSite: c.site}
			calls, incl, slots, ok := rb.block(blockOwner{fn: f}, c.block, base, limit)
			if ok {
				cc.Calls = calls
				fc.Calls += calls
				fc.TotalInstructions += incl
				n := 0
				for i := uint32(0); i < limit; i++ {
					if execs, instrs := rb.slot(c.block, slots, i); execs != 0 || instrs != 0 {
						n++
					}
				}
				cc.PCs = pcs.take(n)
				for i := uint32(0); i <= limit; i++ {
					execs, instrs := rb.slot(c.block, slots, i)
					sum[i][0] += execs
					sum[i][1] += instrs
					d := dispatched(slots, i, execs)
					sum[i][2] = mergeDispatched(sum[i][2], d)
					if i < limit && (execs != 0 || instrs != 0) {
						cc.PCs = append(cc.PCs, dispatching(f.pcCost(i, execs, instrs), d))
					}
				}
				_, cc.CallSetupInstructions = rb.slot(c.block, slots, limit)
			}
			res.Contexts = append(res.Contexts, cc)
			ctxOf = append(ctxOf, c)
		}
		setup := sum[limit][1]
		fc.CallSetupInstructions = setup
		byOp := map[int]*costs.OpcodeCost{}
		if f.length > 0 {
			n := 0
			for _, v := range sum[:limit] {
				if v[0] != 0 || v[1] != 0 {
					n++
				}
			}
			fc.PCs = pcs.take(n)
		}
		for i, v := range sum[:limit] {
			if v[0] == 0 && v[1] == 0 {
				continue
			}
			c := dispatching(f.pcCost(uint32(i), v[0], v[1]), int(v[2])-1)
			if f.length > 0 {
				fc.PCs = append(fc.PCs, c)
			}
			o := byOp[c.Opcode]
			if o == nil {
				o = &costs.OpcodeCost{Opcode: c.Opcode}
				byOp[c.Opcode] = o
			}
			o.Executions += c.Executions
			o.Instructions += c.Instructions
		}
		if setup != 0 {
			byOp[costs.CallSetup] = &costs.OpcodeCost{Opcode: costs.CallSetup, Instructions: setup}
		}
		for _, o := range byOp {
			fc.Opcodes = append(fc.Opcodes, *o)
			fc.SelfInstructions += o.Instructions
		}
		sort.Slice(fc.Opcodes, func(i, j int) bool { return fc.Opcodes[i].Opcode < fc.Opcodes[j].Opcode })
		res.Functions = append(res.Functions, fc)
	}
	for ni, n := range mt.natives {
		nc := costs.NativeCost{TableIndex: n.tableIndex, Magic: n.magic, Unidentified: n.unidentified}
		for _, c := range n.contexts {
			ctxIndex[c] = len(res.Contexts)
			cc := costs.ContextCost{Function: -1, Native: ni, Parent: -1, CallSite: c.site}
			if calls, incl, slots, ok := rb.block(blockOwner{nat: n}, c.block, 0, 0); ok {
				_, self := rb.slot(c.block, slots, 0)
				cc.Calls, cc.NativeInstructions = calls, self
				nc.Calls += calls
				nc.SelfInstructions += self
				nc.TotalInstructions += incl
			}
			res.Contexts = append(res.Contexts, cc)
			ctxOf = append(ctxOf, c)
		}
		res.Natives = append(res.Natives, nc)
	}
	bucket := func(name string, block uint32) uint64 {
		_, _, slots, ok := rb.block(blockOwner{bucket: name}, block, 0, 0)
		if !ok {
			return 0
		}
		_, instrs := rb.slot(block, slots, 0)
		return instrs
	}
	res.Buckets = []costs.BucketCost{
		{Name: jsprofile.BucketOutside, Instructions: bucket(jsprofile.BucketOutside, mt.outside)},
		{Name: jsprofile.BucketNative, Instructions: bucket(jsprofile.BucketNative, mt.native)},
	}
	res.OutsideBeforeJS = min(mt.beforeJS, res.Buckets[0].Instructions)
	if mt.awaitingEntry {
		res.OutsideBeforeJS = res.Buckets[0].Instructions
	}
	for i := range res.Contexts {
		cc := &res.Contexts[i]
		if p := ctxOf[i].parent; p != nil {
			cc.Parent = ctxIndex[p]
			// the caller's slot is a pc unless it is its call setup, or
			// its function's slots are by opcode, or it is a native
			cc.HasCallSite = p.fn != nil && p.fn.length > 0 && cc.CallSite < p.fn.length
		}
	}
	res.WasmSplits, res.OuterWasmSegments = mt.wasmSplits(ctxIndex), mt.outerSegments(ctxIndex)
	res.WasmStackSamples, res.UnplacedSampleWeight = mt.stackSamples, mt.unplacedWeight
	err := rb.err()
	if err == nil {
		if cerr := res.Check(); cerr != nil {
			// Each block passed its checks, yet the parts do not add up
			// to the counter the injected code keeps them equal to.
			err = fmt.Errorf("%w: %w; what they do not account for is charged to %s", cerr, ErrTampered, jsprofile.BucketTampered)
		}
	}
	if err != nil {
		res.ChargeUntrusted()
	}
	return res, mt.collectErr(err)
}

// pendingCharge validates the running (block, slot) and the count at its
// last charge, as the globals hold them when the guest ended, and sets
// what ran since to be added to that slot. The guest's own code cannot
// name these globals, but the block and slot come back from the shadow
// stack in its memory at every return.
func (rb *readBack) pendingCharge(mt *Meter, block, slot uint32, last uint64) {
	rb.pendBlock, rb.pendSlot = ^uint32(0), ^uint32(0)
	limit, ok := uint32(0), block == mt.outside || block == mt.native
	if c := mt.ctxByBlock[block]; c != nil {
		_, limit = c.shape()
		ok = true
	}
	switch {
	case !ok:
		rb.problem(fmt.Errorf("the running block %#x is none the meter made", block))
	case slot > limit:
		rb.problem(fmt.Errorf("the running slot %d is past its block's %d", slot, limit))
	case last > rb.total:
		rb.problem(fmt.Errorf("the last charge at instruction %d is past the counter's %d", last, rb.total))
	default:
		rb.pendBlock, rb.pendSlot, rb.pending = block, slot, rb.total-last
	}
}

// collectErr joins an error of Collect's with what went wrong while the
// guest ran, on one line.
func (mt *Meter) collectErr(err error) error {
	var during error
	if mt.tampered != nil {
		during = fmt.Errorf("meter: %w while it ran: %w", ErrTampered, mt.tampered)
	}
	var errs []error
	for _, e := range []error{err, during, mt.err} {
		if e != nil {
			errs = append(errs, e)
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	case 2:
		return fmt.Errorf("%w; %w", errs[0], errs[1])
	}
	return fmt.Errorf("%w; %w; %w", errs[0], errs[1], errs[2])
}

// blockShape is the base and limit of f's blocks: its buffer's address and
// length, or, when its length is unknown, slots by opcode value.
func (f *function) blockShape() (base, limit uint32) {
	if f.length == 0 {
		return 0, byOpcodeSlots
	}
	return f.start, f.length
}

// pcSlab cuts the PCCost slices of one Collect from shared arrays: a
// program of many small functions has hundreds of thousands of them, and
// growing each by append was a third of the work after the guest ended.
type pcSlab struct{ free []costs.PCCost }

// take returns an empty slice with room for exactly n: appending past n
// would write over the next slice's elements, so its capacity ends there.
func (s *pcSlab) take(n int) []costs.PCCost {
	if n == 0 {
		return nil
	}
	if n > cap(s.free) {
		s.free = make([]costs.PCCost, 0, max(n, 1<<12))
	}
	out := s.free[:0:n]
	s.free = s.free[n:n:cap(s.free)]
	return out
}

// pcCost is the cost at slot i of f's blocks: by pc, with the opcode at it
// as first seen, or, when f's length is unknown, by opcode value (PC and
// Opcode both that value).
// dispatched is the opcode a slot recorded as dispatched at its pc, -1
// when it counted no execution.
func dispatched(slots []byte, i uint32, execs uint64) int {
	if execs == 0 {
		return -1
	}
	return int(slots[i*slotSize+slotOpcode])
}

// mergeDispatched folds one context's dispatched opcode d into a pc's
// over the contexts, kept as value+1 (0: none yet): the contexts must
// agree, or the pc's becomes DispatchedSeveral.
func mergeDispatched(acc uint64, d int) uint64 {
	switch {
	case d < 0:
		return acc
	case acc == 0:
		return uint64(d) + 1
	case acc != uint64(d)+1:
		return uint64(costs.DispatchedSeveral) + 1
	}
	return acc
}

// dispatching records the opcode dispatched at the pc: when it is known,
// it is the opcode that ran there, whatever the code as first seen holds
// (the check of the two is package naming's).
func dispatching(c costs.PCCost, d int) costs.PCCost {
	c.Dispatched = d
	if d >= 0 && d < costs.DispatchedSeveral {
		c.Opcode = d
	}
	return c
}

func (f *function) pcCost(i uint32, execs, instrs uint64) costs.PCCost {
	opcode := int(i)
	if f.length > 0 {
		opcode = -1
		if i < uint32(len(f.code)) {
			opcode = int(f.code[i])
		}
	}
	return costs.PCCost{PC: i, Opcode: opcode, Dispatched: -1, Executions: execs, Instructions: instrs}
}
