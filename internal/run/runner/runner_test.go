package runner

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/wasmcore"
)

func TestParseMount(t *testing.T) {
	tests := []struct {
		in      string
		want    Mount
		wantErr string
	}{
		{"data", Mount{Host: "data", Guest: "data"}, ""},
		{"./data:/data", Mount{Host: "./data", Guest: "/data"}, ""},
		{"", Mount{}, "empty --dir"},
		{":/data", Mount{}, "want HOST[:GUEST]"},
		{"data:", Mount{}, "want HOST[:GUEST]"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMount(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestCompileTurnsAWazeroPanicIntoAnError: wazero 1.12's validator indexes
// the type section with a later function's unchecked type index when an
// earlier function calls it, and panics. jsprof's own decoder refuses such
// a module first; this is the net under every other such wazero bug.
func TestCompileTurnsAWazeroPanicIntoAnError(t *testing.T) {
	module := []byte{
		0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // type 0: () -> ()
		3, 3, 2, 0, 96, // function 1 has type 96, which does not exist
		10, 9, 2, 4, 0, 0x10, 1, 0x0b, 2, 0, 0x0b, // function 0 calls function 1
	}
	ctx := context.Background()
	s, err := NewSession(ctx, wazero.NewRuntimeConfigInterpreter(), nil)
	require.NoError(t, err)
	defer s.Close(ctx)
	_, err = s.Compile(ctx, "bad.wasm", module)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.wasm: wazero failed on this module: runtime error: index out of range [96]")
}

// TestWithTimeout: a timeout given with WithTimeout counts from when the
// guest's modules are compiled. Time spent before (a slow Link here,
// standing for a cold compilation cache) does not stop a guest that
// returns at once; a guest blocked for ever is stopped with the cause.
func TestWithTimeout(t *testing.T) {
	empty := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // type 0: () -> ()
		3, 2, 1, 0, // function 0 has type 0
		7, 10, 1, 6, '_', 's', 't', 'a', 'r', 't', 0, 0, // export _start
		10, 4, 1, 2, 0, 0x0b} // its body: nothing
	block, err := os.ReadFile("testdata/block.wasm")
	require.NoError(t, err)
	cause := errors.New("stopped after the test's timeout")
	slowLink := func(context.Context, wazero.Runtime) ([]string, error) {
		time.Sleep(300 * time.Millisecond)
		return nil, nil
	}
	tests := []struct {
		name     string
		wasm     []byte
		args     []string
		wantTrap error
	}{
		{"returns at once", empty, nil, nil},
		{"sleeps for ever", block, []string{"s"}, cause},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := WithTimeout(context.Background(), 100*time.Millisecond, cause)
			res, err := Run(ctx, tt.wasm, Options{Name: "guest", Args: tt.args, Link: slowLink})
			require.NoError(t, err)
			if tt.wantTrap == nil {
				assert.NoError(t, res.Trap, "the slow link is not the guest's time")
				assert.Zero(t, res.ExitCode)
				return
			}
			assert.ErrorIs(t, res.Trap, tt.wantTrap)
			assert.Equal(t, uint32(cli.ExitTrap), res.ExitCode)
		})
	}
}

// TestCacheRemovedDuringTheRun: a compilation cache whose directory is
// removed after it was opened (another process clearing it, as
// docs/running.md says is always safe) cannot store what wazero
// compiles: the run failed with "open …/<hash>.*.tmp: no such file or
// directory". It goes again uncached and says why; with the directory
// there, it is cached, as a control.
func TestCacheRemovedDuringTheRun(t *testing.T) {
	wasm, err := os.ReadFile("testdata/exitmem.wasm")
	require.NoError(t, err)
	for _, removed := range []bool{false, true} {
		dir := t.TempDir()
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		require.NoError(t, err)
		if removed {
			require.NoError(t, os.RemoveAll(dir))
		}
		res, err := Run(context.Background(), wasm, Options{Name: "exitmem.wasm", Cache: cache})
		require.NoError(t, err)
		assert.Equal(t, uint32(0), res.ExitCode)
		if removed {
			assert.ErrorIs(t, res.Uncached, ErrCacheUnwritable)
		} else {
			assert.NoError(t, res.Uncached)
		}
		require.NoError(t, cache.Close(context.Background()))
	}
}

// TestCompileInterrupted: an interrupt while wazero compiles (which
// nothing can stop) returns at once with the context's cause, the
// compilation abandoned; without one, the same module compiles (5,000
// nested blocks: about 0.4 s of wazero's compiler).
func TestCompileInterrupted(t *testing.T) {
	var body []byte
	for range 5000 {
		body = append(body, 0x02, 0x40)
	}
	for range 5001 {
		body = append(body, 0x0b)
	}
	m := &wasmcore.Module{Types: []wasmcore.FuncType{{}}, Functions: []wasmcore.Function{{Type: 0, Body: body}}}
	wasm, err := m.Encode()
	require.NoError(t, err)
	cause := errors.New("interrupted by test")
	stopped, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for _, ctx := range []context.Context{stopped, context.Background()} {
		s, err := NewSession(context.Background(), nil, nil)
		require.NoError(t, err)
		_, err = s.Compile(ctx, "nested.wasm", wasm)
		if ctx == stopped {
			assert.Equal(t, cause, err)
		} else {
			assert.NoError(t, err)
		}
		require.NoError(t, s.Close(context.Background()))
	}
}
