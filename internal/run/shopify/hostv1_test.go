package shopify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// v1Echo is a 2021-style function: shopify_main reads its input through
// shopify_v1 and hands it back as its output. withResults picks between
// the two declarations seen in Javy's sources: returning an i32 status or
// nothing.
func v1Echo(t *testing.T, withResults bool) []byte {
	m := &wasmcore.Module{}
	var res []wasmcore.ValType
	if withResults {
		res = []wasmcore.ValType{i32}
	}
	inputLen := m.AddImportFunc(shopify.V1Namespace, "input_len", m.AddType(wasmcore.FuncType{Params: []wasmcore.ValType{i32}, Results: res}))
	inputCopy := m.AddImportFunc(shopify.V1Namespace, "input_copy", m.AddType(wasmcore.FuncType{Params: []wasmcore.ValType{i32}, Results: res}))
	outputCopy := m.AddImportFunc(shopify.V1Namespace, "output_copy", m.AddType(wasmcore.FuncType{Params: []wasmcore.ValType{i32, i32}, Results: res}))
	withMemory(m, nil)
	status := func(ins ...wasmcore.Instr) []wasmcore.Instr {
		if withResults {
			return append(ins, drop())
		}
		return ins
	}
	var body []wasmcore.Instr
	body = append(body, status(i32Const(0), call(inputLen))...)                            // length at 0
	body = append(body, status(i32Const(16), call(inputCopy))...)                          // input at 16
	body = append(body, status(i32Const(16), i32Const(0), i32Load(), call(outputCopy))...) // echo it
	exportFunc(m, "shopify_main", wasmcore.FuncType{}, code(body...))
	return encode(t, m)
}

func TestV1Host(t *testing.T) {
	ctx := context.Background()
	input, err := shopify.MessagePack.EncodeInput([]byte(`{"hello":"world","n":[1,2.5]}`))
	require.NoError(t, err)
	for _, withResults := range []bool{true, false} {
		rt := wazero.NewRuntime(ctx)
		compiled, err := rt.CompileModule(ctx, v1Echo(t, withResults))
		require.NoError(t, err)
		h := shopify.NewV1Host(input)
		_, wrote := h.Output()
		assert.False(t, wrote)
		_, err = h.Instantiate(ctx, rt, compiled)
		require.NoError(t, err)
		mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithStartFunctions())
		require.NoError(t, err)
		_, err = mod.ExportedFunction("shopify_main").Call(ctx)
		require.NoError(t, err)
		out, wrote := h.Output()
		assert.True(t, wrote)
		assert.Equal(t, input, out)
		j, err := shopify.MessagePack.DecodeOutput(out)
		require.NoError(t, err)
		assert.Equal(t, `{"hello":"world","n":[1,2.5]}`, string(j))
		require.NoError(t, rt.Close(ctx))
	}
}

func TestV1HostErrors(t *testing.T) {
	ctx := context.Background()
	sig := func(params, results []wasmcore.ValType) wasmcore.FuncType {
		return wasmcore.FuncType{Params: params, Results: results}
	}
	one := []wasmcore.ValType{i32}
	tests := []struct {
		name, importName string
		ft               wasmcore.FuncType
		want             string
	}{
		{"unknown import", "log", sig(one, nil), "the module imports shopify_v1.log, which is not part of the shopify_v1 ABI (input_len, input_copy, output_copy)"},
		{"wrong parameters", "input_len", sig([]wasmcore.ValType{wasmcore.ValI64}, nil), "the module imports shopify_v1.input_len as (i64) -> (), want (i32) -> (i32) or ()"},
		{"wrong result", "output_copy", sig([]wasmcore.ValType{i32, i32}, []wasmcore.ValType{wasmcore.ValI64}), "the module imports shopify_v1.output_copy as (i32, i32) -> (i64), want (i32, i32) -> (i32) or ()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &wasmcore.Module{}
			m.AddImportFunc(shopify.V1Namespace, tt.importName, m.AddType(tt.ft))
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			compiled, err := rt.CompileModule(ctx, encode(t, m))
			require.NoError(t, err)
			_, err = shopify.NewV1Host(nil).Instantiate(ctx, rt, compiled)
			assert.EqualError(t, err, tt.want)
		})
	}

	t.Run("output outside memory", func(t *testing.T) {
		m := &wasmcore.Module{}
		outputCopy := m.AddImportFunc(shopify.V1Namespace, "output_copy", m.AddType(sig([]wasmcore.ValType{i32, i32}, one)))
		withMemory(m, nil)
		exportFunc(m, "shopify_main", wasmcore.FuncType{}, code(i32Const(65500), i32Const(100), call(outputCopy), drop()))
		rt := wazero.NewRuntime(ctx)
		defer rt.Close(ctx)
		compiled, err := rt.CompileModule(ctx, encode(t, m))
		require.NoError(t, err)
		h := shopify.NewV1Host(nil)
		_, err = h.Instantiate(ctx, rt, compiled)
		require.NoError(t, err)
		mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig())
		require.NoError(t, err)
		_, err = mod.ExportedFunction("shopify_main").Call(ctx)
		assert.ErrorContains(t, err, "shopify_v1.output_copy: 100 bytes of output at 0xffdc are outside memory (65536 bytes)")
		_, wrote := h.Output()
		assert.False(t, wrote)
	})
}
