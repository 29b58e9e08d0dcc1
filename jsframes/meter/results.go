package meter

import "github.com/jsprof/jsprof/jsframes/meter/costs"

// The results' data are package costs's (the meter's results, without the
// rewrite and the wazero host code, for the packages that only read
// them); these names keep meter's working.
type (
	Results      = costs.Results
	NativeCost   = costs.NativeCost
	ContextCost  = costs.ContextCost
	FunctionCost = costs.FunctionCost
	PCCost       = costs.PCCost
	OpcodeCost   = costs.OpcodeCost
	BucketCost   = costs.BucketCost
	WasmFrame    = costs.WasmFrame
	Activation   = costs.Activation
	SampleFunc   = costs.SampleFunc
	WasmSplit    = costs.WasmSplit
)

// The buckets, pseudo-opcodes and slots of package costs.
const (
	CallSetup         = costs.CallSetup
	BucketOutside     = costs.BucketOutside
	BucketNative      = costs.BucketNative
	BucketTampered    = costs.BucketTampered
	BucketModuleCode  = costs.BucketModuleCode
	DispatchedSeveral = costs.DispatchedSeveral
	ByOpcodeSlots     = costs.ByOpcodeSlots
)
