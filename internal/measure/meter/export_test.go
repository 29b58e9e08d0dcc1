package meter

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// LinkBound is Link with listeners bound to mt, as they were before they
// found the meter in the call's context: the negative control of the test
// that meters sharing a compilation cache each get their own Wasm stacks.
func (mt *Meter) LinkBound(ctx context.Context, rt wazero.Runtime) ([]string, error) {
	return mt.link(ctx, rt, experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
		switch newListener(def).(type) {
		case sampleListener:
			return boundListener{mt: mt}
		case contextStackListener:
			return boundListener{mt: mt, contextStack: true}
		}
		return nil
	}))
}

type boundListener struct {
	mt           *Meter
	contextStack bool
}

func (l boundListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, si experimental.StackIterator) {
	if l.contextStack {
		l.mt.contextStack(si)
		return
	}
	l.mt.checkpoint(ctx, si)
}
func (boundListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (boundListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

// Reserved is every region the meter reserved in the guest's memory, as
// [start, end) pairs, for tests that write over them as a guest could.
func (mt *Meter) Reserved() [][2]uint32 { return mt.reserved }

// FunctionBlock is the address of the i-th function's own block.
func (mt *Meter) FunctionBlock(i int) uint32 { return mt.funcs[i].block }

// HashTable is the address table's region.
func (mt *Meter) HashTable() (base, size uint32) {
	return mt.hashBase, (mt.hashMask + 1) * hashEntrySize
}

// SetGlobal sets one of the injected globals, as a module importing it
// could.
func (mt *Meter) SetGlobal(name string, v uint64) {
	mt.mod.ExportedGlobal(name).(api.MutableGlobal).Set(v)
}

// Layout constants for tests.
const (
	BlockHeader = blockHeader
	SlotSize    = slotSize
	SlotInstrs  = slotInstrs
	BlockLimit  = blockLimit
	ExportBlock = exportBlock
	ExportSlot  = exportSlot
)

// Global reads one of the injected globals.
func (mt *Meter) Global(name string) uint64 { return mt.mod.ExportedGlobal(name).Get() }
