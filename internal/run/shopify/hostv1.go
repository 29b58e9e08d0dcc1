package shopify

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// V1Namespace is the import module of the 2021–2022 Javy ABI.
const V1Namespace = "shopify_v1"

// V1Host implements the shopify_v1 import module through which Javy builds
// of 2021–2022 (export shopify_main) read their input and hand back their
// output, as Shopify's runner of the time did:
//
//   - input_len(offset): writes the input's length at offset (a wasm32
//     usize: four bytes, little-endian);
//   - input_copy(offset): copies the input (MessagePack) to offset;
//   - output_copy(offset, len): the output is those len bytes.
//
// Each takes and returns i32s; the function reports success by returning 0.
// Some builds declare them without a result, which V1Host serves too. They
// access the memory of the module calling them.
//
// A V1Host serves one run: it is not safe for concurrent use.
type V1Host struct {
	input  []byte
	output []byte
	wrote  bool
}

// NewV1Host returns a host holding input, already encoded (MessagePack).
func NewV1Host(input []byte) *V1Host {
	return &V1Host{input: input}
}

// Output returns the bytes the function last handed to output_copy and
// whether it called it at all.
func (h *V1Host) Output() ([]byte, bool) { return h.output, h.wrote }

// Export adds to b (a host module builder named V1Namespace) the shopify_v1
// functions among imported — the function definitions a compiled module
// imports (wazero.CompiledModule.ImportedFunctions) — with the types it
// imports them with. A shopify_v1 import that is not one of the three, or
// has another type, is an error naming it.
func (h *V1Host) Export(b wazero.HostModuleBuilder, imported []api.FunctionDefinition) error {
	i32 := api.ValueTypeI32
	for _, def := range imported {
		module, name, _ := def.Import()
		if module != V1Namespace {
			continue
		}
		var params []api.ValueType
		var fn func(ctx context.Context, mod api.Module, stack []uint64) error
		switch name {
		case "input_len":
			params, fn = []api.ValueType{i32}, h.inputLen
		case "input_copy":
			params, fn = []api.ValueType{i32}, h.inputCopy
		case "output_copy":
			params, fn = []api.ValueType{i32, i32}, h.outputCopy
		default:
			return fmt.Errorf("the module imports %s.%s, which is not part of the shopify_v1 ABI (input_len, input_copy, output_copy)", module, name)
		}
		results := def.ResultTypes()
		if !slices.Equal(def.ParamTypes(), params) || len(results) > 1 || (len(results) == 1 && results[0] != i32) {
			return fmt.Errorf("the module imports %s.%s as %s -> %s, want %s -> (i32) or ()", module, name,
				typeList(def.ParamTypes()), typeList(results), typeList(params))
		}
		hasResult := len(results) == 1
		impl := api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			if err := fn(ctx, mod, stack); err != nil {
				// A panic with an error is how a wazero host function fails
				// the call: the guest's export returns it.
				panic(fmt.Errorf("%s.%s: %w", V1Namespace, name, err))
			}
			if hasResult {
				stack[0] = 0
			}
		})
		b.NewFunctionBuilder().WithGoModuleFunction(impl, params, results).WithName(name).Export(name)
	}
	return nil
}

// Instantiate instantiates, in rt, the shopify_v1 host module that
// function needs (see Export).
func (h *V1Host) Instantiate(ctx context.Context, rt wazero.Runtime, function wazero.CompiledModule) (api.Module, error) {
	b := rt.NewHostModuleBuilder(V1Namespace)
	if err := h.Export(b, function.ImportedFunctions()); err != nil {
		return nil, err
	}
	mod, err := b.Instantiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("instantiating %s: %w", V1Namespace, err)
	}
	return mod, nil
}

func callerMemory(mod api.Module) (api.Memory, error) {
	mem := mod.Memory()
	if mem == nil {
		return nil, fmt.Errorf("the calling module %s has no memory", mod.Name())
	}
	return mem, nil
}

func (h *V1Host) inputLen(_ context.Context, mod api.Module, stack []uint64) error {
	mem, err := callerMemory(mod)
	if err != nil {
		return err
	}
	if uint64(len(h.input)) > math.MaxUint32 {
		return fmt.Errorf("input of %d bytes does not fit a 32-bit length", len(h.input))
	}
	offset := api.DecodeU32(stack[0])
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(h.input)))
	if !mem.Write(offset, n[:]) {
		return fmt.Errorf("offset %#x is outside memory (%d bytes)", offset, mem.Size())
	}
	return nil
}

func (h *V1Host) inputCopy(_ context.Context, mod api.Module, stack []uint64) error {
	mem, err := callerMemory(mod)
	if err != nil {
		return err
	}
	offset := api.DecodeU32(stack[0])
	if !mem.Write(offset, h.input) {
		return fmt.Errorf("%d bytes of input at %#x do not fit in memory (%d bytes)", len(h.input), offset, mem.Size())
	}
	return nil
}

func (h *V1Host) outputCopy(_ context.Context, mod api.Module, stack []uint64) error {
	mem, err := callerMemory(mod)
	if err != nil {
		return err
	}
	offset, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	out, ok := mem.Read(offset, n)
	if !ok {
		return fmt.Errorf("%d bytes of output at %#x are outside memory (%d bytes)", n, offset, mem.Size())
	}
	h.output, h.wrote = bytes.Clone(out), true
	return nil
}
