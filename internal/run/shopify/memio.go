package shopify

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/cli"
)

// Output is what a function produced.
type Output struct {
	// Output is what the function wrote, in its codec (Codec.DecodeOutput).
	Output []byte
	// Logs is what it logged. In-memory providers keep the last 1001 bytes
	// in a ring buffer (Shopify keeps 1000: a longer log is truncated in
	// production), returned here in order and, past LogLimit, marked as
	// function-runner marks them: their first byte replaced by
	// LogTruncated.
	Logs []byte
}

// LogLimit is function-runner's log limit (FUNCTION_LOG_LIMIT), and
// LogTruncated what it puts in place of the first byte of longer logs.
const (
	LogLimit     = 1_000
	LogTruncated = "[TRUNCATED]..."
)

// Export names of the in-memory I/O protocol.
const (
	initializeExport = "initialize"
	finalizeExport   = "finalize"
	memoryExport     = "memory"
)

// resultBlockSize is the size of what finalize points at: six
// little-endian u32s — output offset and length, then the logs as two
// offset/length pairs.
const resultBlockSize = 24

// Prepare hands input (already encoded, Codec.EncodeInput) to an in-memory
// provider (IO InMemory: shopify_functions_javy_v3+, shopify_function_v2+)
// before the function's export runs, as function-runner does: it calls the
// provider's initialize(len(input)), which resets the provider's state and
// returns where the input goes, and writes it there in the provider's
// exported memory.
//
// Call it once the provider is instantiated and before the function's
// export is called; it runs guest code, which function-runner does not
// count as the function's (FIELD-NOTES §8): a profiler should not either.
func Prepare(ctx context.Context, provider api.Module, input []byte) error {
	if uint64(len(input)) > math.MaxUint32 {
		return fmt.Errorf("provider %s: input of %d bytes does not fit a 32-bit memory", provider.Name(), len(input))
	}
	init, err := exportedFunc(provider, initializeExport, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32})
	if err != nil {
		return err
	}
	mem, err := exportedMemory(provider)
	if err != nil {
		return err
	}
	res, err := init.Call(ctx, uint64(len(input)))
	if err != nil {
		return fmt.Errorf("provider %s: %s(%d): %w", provider.Name(), initializeExport, len(input), err)
	}
	offset := api.DecodeU32(res[0])
	if !mem.Write(offset, input) {
		return fmt.Errorf("provider %s: %s(%d) returned offset %#x: the input does not fit in its memory of %d bytes", provider.Name(), initializeExport, len(input), offset, mem.Size())
	}
	return nil
}

// Finish collects what the function produced from an in-memory provider
// after its export returned, as function-runner does: it calls the
// provider's finalize() and reads the block it returns (see Output). Call it
// also when the export trapped: the logs are often what explains why.
func Finish(ctx context.Context, provider api.Module) (Output, error) {
	fin, err := exportedFunc(provider, finalizeExport, nil, []api.ValueType{api.ValueTypeI32})
	if err != nil {
		return Output{}, err
	}
	mem, err := exportedMemory(provider)
	if err != nil {
		return Output{}, err
	}
	res, err := fin.Call(ctx)
	if err != nil {
		return Output{}, fmt.Errorf("provider %s: %s: %w", provider.Name(), finalizeExport, err)
	}
	at := api.DecodeU32(res[0])
	block, ok := mem.Read(at, resultBlockSize)
	if !ok {
		return Output{}, fmt.Errorf("provider %s: %s returned offset %#x: its %d-byte result block is outside the provider's memory of %d bytes", provider.Name(), finalizeExport, at, resultBlockSize, mem.Size())
	}
	var w [6]uint32
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	read := func(what string, ptr, n uint32) ([]byte, error) {
		b, ok := mem.Read(ptr, n)
		if !ok {
			return nil, fmt.Errorf("provider %s: %s says the %s is %d bytes at %#x, outside the provider's memory of %d bytes", provider.Name(), finalizeExport, what, n, ptr, mem.Size())
		}
		return b, nil
	}
	out, err := read("output", w[0], w[1])
	if err != nil {
		return Output{}, err
	}
	// The logs are a ring buffer: the first pair is its older part (from
	// the write position to the end), the second the part that wrapped
	// around to the start; in this order they read chronologically.
	logs1, err := read("log (first part)", w[2], w[3])
	if err != nil {
		return Output{}, err
	}
	logs2, err := read("log (second part)", w[4], w[5])
	if err != nil {
		return Output{}, err
	}
	// mem.Read returns views of guest memory: copy, so that the result
	// outlives the instance and later guest writes.
	logs := slices.Concat(logs1, logs2)
	if len(logs) > LogLimit {
		logs = slices.Concat([]byte(LogTruncated), logs[1:])
	}
	return Output{Output: bytes.Clone(out), Logs: logs}, nil
}

func exportedFunc(provider api.Module, name string, params, results []api.ValueType) (api.Function, error) {
	fn := provider.ExportedFunction(name)
	if fn == nil {
		return nil, fmt.Errorf("provider %s has no %s export: it is not an in-memory I/O provider", provider.Name(), name)
	}
	def := fn.Definition()
	if !slices.Equal(def.ParamTypes(), params) || !slices.Equal(def.ResultTypes(), results) {
		return nil, fmt.Errorf("provider %s: export %s has type %s -> %s, want %s -> %s", provider.Name(), name,
			typeList(def.ParamTypes()), typeList(def.ResultTypes()), typeList(params), typeList(results))
	}
	return fn, nil
}

func exportedMemory(provider api.Module) (api.Memory, error) {
	mem := provider.ExportedMemory(memoryExport)
	if mem == nil {
		return nil, fmt.Errorf("provider %s exports no memory named %q", provider.Name(), memoryExport)
	}
	return mem, nil
}

func typeList(ts []api.ValueType) string {
	s := "("
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += api.ValueTypeName(t)
	}
	return s + ")"
}

// Shown is what WriteOutput made of a function's output.
type Shown struct {
	// JSON is the output decoded, compact JSON; nil when it did not
	// decode (or the codec is raw).
	JSON []byte
	// Problem says in one line what is wrong with an output that
	// function-runner still shows and counts as a successful run's: none
	// at all, one that does not decode (its "Invalid Output"), or
	// MessagePack with bytes after its value (JSON then holds the value).
	// "" when nothing is.
	Problem string
}

// WriteOutput prints a function's output, decoded with codec, as JSON on
// stdout (raw bytes with the raw codec, or when it does not decode) and
// its logs on stderr, as function-runner shows them. function-runner
// counts a run a success when the module ran to completion (engine.rs:
// success is the export call's result), whatever its output: an output
// that is missing or does not decode is not an error but Shown.Problem.
// outErr is why there is no output: an error unless it is ErrNoOutput
// (the shopify_v1 ABI's output never handed back) or failed (the guest
// trapped or exited non-zero, which then says why).
func WriteOutput(out Output, outErr error, codec Codec, failed bool, stdout, stderr io.Writer) (Shown, error) {
	if len(out.Logs) > 0 {
		stderr.Write(out.Logs)
		if out.Logs[len(out.Logs)-1] != '\n' {
			fmt.Fprintln(stderr)
		}
	}
	switch {
	case outErr != nil && !errors.Is(outErr, ErrNoOutput):
		if failed {
			return Shown{}, nil // the trap says why
		}
		return Shown{}, fmt.Errorf("the function's output: %w", outErr)
	case failed && len(out.Output) == 0:
		return Shown{}, nil
	case len(out.Output) == 0 && codec != Raw:
		return Shown{Problem: "the function wrote no output"}, nil
	}
	decoded, err := codec.DecodeOutput(out.Output)
	var trailing *TrailingBytes
	switch {
	case errors.Is(err, ErrRawOutput):
		_, werr := stdout.Write(out.Output)
		return Shown{}, werr
	case errors.As(err, &trailing):
		_, werr := fmt.Fprintf(stdout, "%s\n", trailing.JSON)
		return Shown{JSON: trailing.JSON, Problem: fmt.Sprintf("the function's output has %s, which function-runner ignores", trailing)}, werr
	case err != nil:
		_, werr := stdout.Write(out.Output)
		return Shown{Problem: fmt.Sprintf("the function's output does not decode as %s: %s", codec, cli.FirstLine(err.Error()))}, werr
	}
	_, err = fmt.Fprintf(stdout, "%s\n", decoded)
	return Shown{JSON: decoded}, err
}
