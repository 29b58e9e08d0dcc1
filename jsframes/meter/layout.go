package meter

// Layout of the accounting state in guest memory. All of it lives in pages
// the host adds to the guest's memory before the guest runs.
const (
	// OpcodeSlots is the number of counters per function: one per opcode
	// byte value, then CallSetup.
	OpcodeSlots = 257
	// CallSetup is the pseudo-opcode charged with what the interpreter does
	// between being entered and its first dispatch (frame setup, argument
	// copying); in the buckets, all that is charged to them.
	CallSetup = 256

	// A function block: a header, then OpcodeSlots counters.
	blockCalls    = 0  // u64: activations that reached a dispatch
	blockTotal    = 8  // u64: inclusive instructions, outermost activations only
	blockActive   = 16 // u32: activations on the shadow stack right now
	blockHeader   = 32 // header size; counters follow
	slotExecs     = 0  // u64 within a slot
	slotInstrs    = 8  // u64 within a slot
	slotSize      = 16 // bytes per counter slot
	BlockSize     = blockHeader + OpcodeSlots*slotSize
	frameBlock    = 0  // u32: the caller's block
	frameOp       = 4  // u32: the caller's current opcode
	frameFlags    = 8  // u32: the caller's flags
	frameEntry    = 16 // u64: the instruction count when this activation began
	frameFuncObj  = 24 // u64: the function object the activation was called with
	frameSize     = 32 // bytes per shadow-stack frame
	hashEntrySize = 8  // u32 address, u32 block

	// Activation flags.
	flagFresh      = 1 // entered, no dispatch yet: the next dispatch identifies the function
	flagIdentified = 2 // the activation's function is known (its block's active count was raised)
	flagOuter      = 4 // the outermost activation of its function: its inclusive cost counts

	pageSize = 65536
)
