package meter

import (
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// Restart begins the measurement anew: every count so far is zeroed, the
// instruction counter too, so that what Collect reports is what runs from
// here on — a Shopify Function's instantiation and export call without its
// provider's start-up, as function-runner counts it. An instruction limit
// (SetLimit) counts from here too. It must be called between calls into
// the module, when no interpreter activation is running, and returns the
// count it discarded.
func (mt *Meter) Restart() (uint64, error) {
	if mt.mod == nil {
		return 0, ErrNotStarted
	}
	counter, ok := mt.mod.ExportedGlobal(mt.plan.Counter).(api.MutableGlobal)
	if !ok {
		return 0, fmt.Errorf("meter: the counter %s is not a mutable global", mt.plan.Counter)
	}
	before := counter.Get()
	if !mt.plan.Sample {
		mem := mt.mod.Memory()
		// Calls and the inclusive total, then the slots: the header's
		// shape and check words stay as the host wrote them.
		zero := func(block, limit uint32) error {
			if !mem.Write(block+blockCalls, make([]byte, blockActive-blockCalls)) ||
				!mem.Write(block+blockHeader, make([]byte, (limit+1)*slotSize)) {
				return fmt.Errorf("meter: block %#x is outside the guest's memory", block)
			}
			return nil
		}
		if err := zero(mt.outside, 0); err != nil {
			return 0, err
		}
		if err := zero(mt.native, 0); err != nil {
			return 0, err
		}
		for _, f := range mt.funcs {
			_, limit := f.blockShape()
			for _, c := range f.contexts {
				if err := zero(c.block, limit); err != nil {
					return 0, err
				}
			}
		}
		for _, n := range mt.natives {
			for _, c := range n.contexts {
				if err := zero(c.block, 0); err != nil {
					return 0, err
				}
			}
		}
	}
	counter.Set(0)
	mt.mod.ExportedGlobal(exportLast).(api.MutableGlobal).Set(0)
	mt.armFirstEntry()
	mt.progress.Store(0)
	if mt.plan.Checkpoints {
		mt.lastSample = 0
		clear(mt.splits)
		clear(mt.outerSegs)
		mt.splitOrder, mt.unplacedWeight, mt.stackSamples = nil, 0, 0
		if mt.sampling() {
			mt.nextSample(0)
		}
		mt.setCheckpoint(0)
	}
	return before, nil
}

// Started says that the instrumented module has been instantiated and
// Start has readied it: only then can Restart begin the measurement anew.
func (mt *Meter) Started() bool { return mt.mod != nil }

// Count is the instruction counter now: exact between calls into the
// module.
func (mt *Meter) Count() uint64 {
	if mt.mod == nil {
		return 0
	}
	return mt.mod.ExportedGlobal(mt.plan.Counter).Get()
}
