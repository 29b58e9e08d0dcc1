package shopify_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestWasmAPIInMemory runs the in-memory protocol on the other in-memory
// provider, the Wasm API's shopify_function_v2 (no JS), with a function
// assembled here that writes the number 42 through the API.
func TestWasmAPIInMemory(t *testing.T) {
	const ns = "shopify_function_v2"
	providerWasm, _ := readProvider(t, ns)
	ctx := context.Background()

	m := &wasmcore.Module{}
	newI32 := m.AddImportFunc(ns, "_shopify_function_output_new_i32", m.AddType(wasmcore.FuncType{Params: []wasmcore.ValType{i32}, Results: []wasmcore.ValType{i32}}))
	exportFunc(m, "_start", wasmcore.FuncType{}, code(i32Const(42), call(newI32), drop()))
	fm := m
	p, err := shopify.Identify(fm.Imports)
	require.NoError(t, err)
	require.Equal(t, shopify.InMemory, p.IO)

	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	provider, err := rt.InstantiateWithConfig(ctx, providerWasm, wazero.NewModuleConfig().WithName(ns))
	require.NoError(t, err)
	input, err := p.Codec.EncodeInput([]byte(`{"hello":"world"}`))
	require.NoError(t, err)
	require.NoError(t, shopify.Prepare(ctx, provider, input))
	mod, err := rt.InstantiateWithConfig(ctx, encode(t, m), wazero.NewModuleConfig().WithName("function").WithStartFunctions())
	require.NoError(t, err)
	_, err = mod.ExportedFunction("_start").Call(ctx)
	require.NoError(t, err)
	out, err := shopify.Finish(ctx, provider)
	require.NoError(t, err)
	assert.Equal(t, []byte{42}, out.Output)
	assert.Empty(t, out.Logs)
	j, err := p.Codec.DecodeOutput(out.Output)
	require.NoError(t, err)
	assert.Equal(t, "42", string(j))
}

// fakeProvider is an in-memory provider whose initialize returns
// inputOffset and whose finalize returns blockOffset, with data at 0.
func fakeProvider(t *testing.T, inputOffset, blockOffset int32, data []byte) []byte {
	m := &wasmcore.Module{}
	withMemory(m, data)
	exportFunc(m, "initialize", wasmcore.FuncType{Params: []wasmcore.ValType{i32}, Results: []wasmcore.ValType{i32}}, code(i32Const(inputOffset)))
	exportFunc(m, "finalize", wasmcore.FuncType{Results: []wasmcore.ValType{i32}}, code(i32Const(blockOffset)))
	return encode(t, m)
}

func block(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func TestInMemoryProtocol(t *testing.T) {
	ctx := context.Background()
	// The block at 0 describes output "out" at 100, logs "ab" at 200 and
	// "cd" at 300 (the part of the ring buffer that wrapped around).
	data := make([]byte, 400)
	copy(data, block(100, 3, 200, 2, 300, 2))
	copy(data[100:], "out")
	copy(data[200:], "ab")
	copy(data[300:], "cd")

	tests := []struct {
		name                  string
		wasm                  []byte
		prepareErr, finishErr string
		wantOutput, wantLogs  string
	}{
		{name: "reads the block", wasm: fakeProvider(t, 1000, 0, data), wantOutput: "out", wantLogs: "abcd"},
		{name: "input beyond memory", wasm: fakeProvider(t, 65530, 0, data),
			prepareErr: "provider fake: initialize(10) returned offset 0xfffa: the input does not fit in its memory of 65536 bytes"},
		{name: "block beyond memory", wasm: fakeProvider(t, 1000, 65530, data),
			finishErr: "provider fake: finalize returned offset 0xfffa: its 24-byte result block is outside the provider's memory of 65536 bytes"},
		{name: "output beyond memory", wasm: fakeProvider(t, 1000, 0, block(65000, 1000, 0, 0, 0, 0)),
			finishErr: "provider fake: finalize says the output is 1000 bytes at 0xfde8, outside the provider's memory of 65536 bytes"},
		{name: "second log part beyond memory", wasm: fakeProvider(t, 1000, 0, block(0, 0, 0, 0, 0xffffff00, 2)),
			finishErr: "provider fake: finalize says the log (second part) is 2 bytes at 0xffffff00, outside the provider's memory of 65536 bytes"},
		{name: "not an in-memory provider", wasm: func() []byte { m := &wasmcore.Module{}; withMemory(m, nil); return encode(t, m) }(),
			prepareErr: "provider fake has no initialize export: it is not an in-memory I/O provider",
			finishErr:  "provider fake has no finalize export: it is not an in-memory I/O provider"},
		{name: "initialize of another type", wasm: func() []byte {
			m := &wasmcore.Module{}
			withMemory(m, nil)
			exportFunc(m, "initialize", wasmcore.FuncType{}, code())
			return encode(t, m)
		}(), prepareErr: "provider fake: export initialize has type () -> (), want (i32) -> (i32)"},
		{name: "no memory export", wasm: func() []byte {
			m := &wasmcore.Module{}
			exportFunc(m, "initialize", wasmcore.FuncType{Params: []wasmcore.ValType{i32}, Results: []wasmcore.ValType{i32}}, code(i32Const(0)))
			return encode(t, m)
		}(), prepareErr: `provider fake exports no memory named "memory"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			provider, err := rt.InstantiateWithConfig(ctx, tt.wasm, wazero.NewModuleConfig().WithName("fake"))
			require.NoError(t, err)
			err = shopify.Prepare(ctx, provider, []byte("input text"))
			if tt.prepareErr != "" {
				assert.EqualError(t, err, tt.prepareErr)
			} else {
				require.NoError(t, err)
				got, ok := provider.ExportedMemory("memory").Read(1000, 10) // where initialize said
				require.True(t, ok)
				assert.Equal(t, "input text", string(got))
			}
			if tt.prepareErr != "" && tt.finishErr == "" {
				return
			}
			out, err := shopify.Finish(ctx, provider)
			if tt.finishErr != "" {
				assert.EqualError(t, err, tt.finishErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantOutput, string(out.Output))
			assert.Equal(t, tt.wantLogs, string(out.Logs))
		})
	}
}
