package javy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/run/runner"
)

// CompileError is a JS compile error reported by the plugin.
type CompileError struct {
	Message string // the plugin's message, e.g. "SyntaxError: unexpected token ..."
}

func (e *CompileError) Error() string { return e.Message }

// maxBytecode bounds what a plugin may claim to have produced.
const maxBytecode = 1 << 30

// Compile runs the plugin's compile export over src in a fresh instance and
// returns the QuickJS bytecode it produced.
func Compile(ctx context.Context, plugin Plugin, wasm []byte, src []byte, cache wazero.CompilationCache) ([]byte, error) {
	var stderr bytes.Buffer // older plugins report a compile error on stderr and trap
	sess, mod, err := instantiatePlugin(ctx, wasm, plugin.Namespace, cache, &stderr)
	if err != nil {
		return nil, err
	}
	defer sess.Close(ctx)
	if err := runner.InitializePlugin(ctx, mod); err != nil {
		return nil, fmt.Errorf("initializing plugin: %w", err)
	}
	srcPtr, err := writeGuest(ctx, mod, plugin.Realloc, src)
	if err != nil {
		return nil, err
	}
	res, err := mod.ExportedFunction(plugin.Compile).Call(ctx, uint64(srcPtr), uint64(len(src)))
	if err != nil {
		if msg := panicMessage(stderr.String()); msg != "" {
			return nil, &CompileError{Message: msg}
		}
		return nil, fmt.Errorf("%s: %w", plugin.Compile, err)
	}
	ret := uint32(res[0])
	mem := mod.Memory()
	var ptr, length uint32
	switch plugin.ABI {
	case ABINewer:
		hdr, ok := mem.Read(ret, 12)
		if !ok {
			return nil, fmt.Errorf("%s returned %#x, outside memory", plugin.Compile, ret)
		}
		discriminant := binary.LittleEndian.Uint32(hdr)
		ptr, length = binary.LittleEndian.Uint32(hdr[4:]), binary.LittleEndian.Uint32(hdr[8:])
		if discriminant != 0 {
			msg, ok := mem.Read(ptr, min(length, 1<<16))
			if !ok {
				return nil, &CompileError{Message: "compile error (message outside memory)"}
			}
			return nil, &CompileError{Message: joinLines(string(msg))}
		}
	default:
		hdr, ok := mem.Read(ret, 8)
		if !ok {
			return nil, fmt.Errorf("%s returned %#x, outside memory", plugin.Compile, ret)
		}
		ptr, length = binary.LittleEndian.Uint32(hdr), binary.LittleEndian.Uint32(hdr[4:])
	}
	if length > maxBytecode {
		return nil, fmt.Errorf("%s returned %d bytes of bytecode, more than %d", plugin.Compile, length, maxBytecode)
	}
	bc, ok := mem.Read(ptr, length)
	if !ok {
		return nil, fmt.Errorf("%s returned bytecode at %#x+%d, outside memory", plugin.Compile, ptr, length)
	}
	return bytes.Clone(bc), nil
}

// instantiatePlugin starts a session holding one instance of the plugin,
// with WASI granting nothing but stderr, and the plugin's clocks and random
// source fixed so that builds are reproducible.
func instantiatePlugin(ctx context.Context, wasm []byte, namespace string, cache wazero.CompilationCache, stderr io.Writer) (*runner.Session, api.Module, error) {
	sess, err := runner.NewSession(ctx, nil, cache)
	if err != nil {
		return nil, nil, err
	}
	compiled, err := sess.Compile(ctx, "plugin", wasm)
	if err == nil {
		var cfg wazero.ModuleConfig
		cfg, err = runner.ModuleConfig(runner.Options{Name: "plugin", Stderr: stderr, Deterministic: true})
		if err == nil {
			var mod api.Module
			if mod, err = sess.Instantiate(ctx, compiled, cfg, namespace); err == nil {
				return sess, mod, nil
			}
			err = fmt.Errorf("instantiating plugin: %w", err)
		}
	}
	sess.Close(ctx)
	return nil, nil, err
}

// writeGuest copies data into memory the plugin allocates.
func writeGuest(ctx context.Context, mod api.Module, realloc string, data []byte) (uint32, error) {
	res, err := mod.ExportedFunction(realloc).Call(ctx, 0, 0, 1, uint64(len(data)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", realloc, err)
	}
	ptr := uint32(res[0])
	if !mod.Memory().Write(ptr, data) {
		return 0, errors.New(realloc + " returned memory outside the plugin's memory")
	}
	return ptr, nil
}

// panicMessage extracts the error from what an older plugin printed when it
// panicked on a compile error: Rust's "thread ... panicked at ...:" line,
// then "called `Result::unwrap()` on an `Err` value: MESSAGE".
func panicMessage(stderr string) string {
	const unwrap = "on an `Err` value: "
	if i := strings.Index(stderr, unwrap); i >= 0 {
		stderr = stderr[i+len(unwrap):]
	}
	if i := strings.Index(stderr, "\nnote: run with `RUST_BACKTRACE"); i >= 0 {
		stderr = stderr[:i]
	}
	return joinLines(stderr)
}

// joinLines makes a multi-line engine message one line.
func joinLines(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "; ")
}
