package meter

import "github.com/jsprof/jsprof/internal/measure/costs"

// Layout of the accounting state in guest memory. All of it lives in pages
// the host adds to the guest's memory before the guest runs.
//
// A function block has one counter slot per byte of the function's
// bytecode, indexed by the pc (the dispatched opcode's offset in the
// buffer), and one more, at index limit, for the call setup: what the
// interpreter does between being entered and its first dispatch. A slot per
// pc gives exact per-line cost through the function's pc-to-line table, and
// per-opcode cost through the byte at that pc. Each slot also keeps the
// opcode the interpreter dispatched there, last, so that the cost by pc
// can be checked against the code (PCCost.Dispatched). When a function's buffer
// length is not known, its block is indexed by opcode value instead
// (limit 256, base 0).
const (
	blockCalls  = 0  // u64: activations that reached a dispatch
	blockTotal  = 8  // u64: inclusive instructions, outermost activations only
	blockActive = 16 // u32: activations on the shadow stack right now
	blockLimit  = 20 // u32: number of pc slots; slot limit is the call setup
	blockBase   = 24 // u32: address of byte 0 of the bytecode; 0: slots by opcode
	blockCheck  = 28 // u32: blockCheckWord of the block's address, base and limit
	blockHeader = 32 // header size; slots follow
	slotExecs   = 0  // u64 within a slot: executions in its low 56 bits
	slotOpcode  = 7  // u8 within a slot: the opcode last dispatched there (the executions' top byte)
	slotInstrs  = 8  // u64 within a slot
	slotSize    = 16 // bytes per slot

	// execsMask keeps a slot's executions (2^56 of them would take two
	// years at a billion opcodes a second).
	execsMask = 1<<56 - 1

	// byOpcodeSlots is the limit of a block indexed by opcode value.
	byOpcodeSlots = costs.ByOpcodeSlots

	frameBlock   = 0  // u32: the caller's block
	frameSlot    = 4  // u32: the caller's current slot
	frameFlags   = 8  // u32: the caller's flags
	frameEntry   = 16 // u64: the instruction count when this activation began
	frameFuncObj = 24 // u64: the function object the activation was called with
	frameSize    = 32 // bytes per shadow-stack frame

	// A sampling shadow-stack frame (Options.Sample) holds the caller's
	// function object, the address of its first opcode and of its current
	// one; the host names functions from them only when it samples.
	sampleFrameFuncObj = 0  // u64
	sampleFrameEntry   = 8  // u32
	sampleFramePC      = 12 // u32
	sampleFrameSize    = 16

	// An address-table entry: a bytecode address called from a calling
	// context (the caller's block) at a call site (the caller's slot), and
	// the block that counts it.
	hashKeyAddr    = 0
	hashKeyParent  = 4
	hashKeySite    = 8
	hashValueBlock = 12
	hashEntrySize  = 16
	hashParentMul  = -2048144777 // 0x85EBCA77
	hashSiteMul    = -1028477379 // 0xC2B2AE3D

	// Activation flags.
	flagFresh      = 1 // entered, no dispatch yet: the next dispatch identifies the function
	flagIdentified = 2 // the activation's function is known (its block's active count was raised)
	flagOuter      = 4 // the outermost activation of its function: its inclusive cost counts
	flagPushed     = 8 // a native's activation that js_call_c_function pushed itself (its exit pops it)

	// A native's key in the address table: its site carries one of these
	// bits, which no pc slot has (a bytecode buffer is shorter than 2^24
	// bytes), so natives' keys never meet JS functions'. siteNative: addr
	// is the C function's table index | its magic << 16; siteUnknown: a
	// call of a function that is neither bytecode nor C, addr
	// unidentifiedAddr (an address is never 0: that marks a free entry).
	siteNative       = 1 << 31
	siteUnknown      = 1 << 30
	siteTags         = siteNative | siteUnknown
	unidentifiedAddr = 1

	pageSize = 65536
)

// blockSize is the size of a block with limit pc slots and the call setup.
func blockSize(limit uint32) uint32 { return blockHeader + (limit+1)*slotSize }

// blockCheckWord is written in each block's header by the host and checked
// when the counters are read back: the injected code never writes base,
// limit or this word, so a guest that writes over its memory blindly
// (zeros, ones, any fill) is caught even where the counts it leaves happen
// to add up. It is a check against accidents and blind writes, not a
// secret: a guest that reads its memory can copy it.
func blockCheckWord(block, base, limit uint32) uint32 {
	x := block*0x9E3779B1 ^ base*0x85EBCA77 ^ limit*0xC2B2AE3D ^ 0x6a737072 // "jspr"
	x ^= x >> 16
	x *= 0x7FEB352D
	return x ^ x>>15
}
