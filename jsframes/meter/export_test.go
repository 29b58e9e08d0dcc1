package meter

import "github.com/tetratelabs/wazero/api"

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
