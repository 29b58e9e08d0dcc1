package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/testrules"
)

// TestBlockedGuestIsCancelled: a guest blocked in a host call — reading a
// stdin that never closes, sleeping an hour, polling stdin, writing to a
// pipe nobody reads — and going back to it whatever it is told, stops when
// the run's context is cancelled 100 ms in: Run returns promptly with the
// cancellation's cause as the trap, and leaves behind at most the one
// goroutine still blocked in the stdin or stdout it was given. It runs in
// a process of its own, where the goroutines counted are the guest's and
// the test's alone.
func TestBlockedGuestIsCancelled(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	wasm, err := os.ReadFile("testdata/block.wasm")
	require.NoError(t, err)
	tests := []struct {
		name          string
		mode          string
		deterministic bool
	}{
		{"read stdin", "r", false},
		{"sleep", "s", false},
		{"sleep, fixed clocks", "s", true},
		{"poll stdin", "p", false},
		{"write stdout", "w", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdinR, stdinW := io.Pipe() // never written, never closed while the guest runs
			stdoutR, stdoutW := io.Pipe()
			before := runtime.NumGoroutine()
			cause := errors.New("stopped by the test")
			ctx, cancel := context.WithCancelCause(context.Background())
			timer := time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
			defer timer.Stop()

			res, err := Run(ctx, wasm, Options{
				Name: "block", Args: []string{tt.mode}, Stdin: stdinR, Stdout: stdoutW,
				Deterministic: tt.deterministic,
			})
			require.NoError(t, err)
			assert.Equal(t, uint32(cli.ExitTrap), res.ExitCode)
			assert.ErrorIs(t, res.Trap, cause)

			// The goroutine blocked in the pipe ends when the pipe does.
			stdinW.Close()
			stdoutR.Close()
			// (Polled here: assert.Eventually has goroutines of its own.)
			after := runtime.NumGoroutine()
			for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
				time.Sleep(10 * time.Millisecond)
			}
			assert.LessOrEqual(t, after, before, "goroutines left")
		})
	}
}

// TestCancellableReader: reads pass through in order and end with the
// source's end; once the context is done, Read returns its cause at once,
// and no second read of the source is started.
func TestCancellableReader(t *testing.T) {
	src, w := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	r := cancellableStdin(ctx, src)
	require.IsType(t, &cancellableReader{}, r)
	go func() {
		w.Write([]byte("hello"))
		w.Write([]byte("world"))
		w.Close()
	}()
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "helloworld", string(got))

	src2, w2 := io.Pipe()
	defer w2.Close()
	counting := &countingReader{r: src2}
	r = cancellableStdin(ctx, counting)
	cause := errors.New("gone")
	time.AfterFunc(20*time.Millisecond, func() { cancel(cause) })
	for range 3 {
		n, err := r.Read(make([]byte, 8))
		assert.Zero(t, n)
		assert.ErrorIs(t, err, cause)
	}
	assert.Equal(t, int32(1), counting.reads.Load(), "one read left blocked, no more")
}

type countingReader struct {
	r     io.Reader
	reads atomic.Int32
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.r.Read(p)
}

// TestWhatIsWrapped: only what can block is read or written through a
// goroutine, and only when the context can be done.
func TestWhatIsWrapped(t *testing.T) {
	regular, err := os.Create(t.TempDir() + "/f")
	require.NoError(t, err)
	defer regular.Close()
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	require.NoError(t, err)
	defer devNull.Close()
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	ipr, ipw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		in      io.Reader
		out     io.Writer
		wrapIn  bool
		wrapOut bool
	}{
		{"in-memory", ctx, strings.NewReader("x"), &bytes.Buffer{}, false, false},
		{"regular file", ctx, regular, regular, false, false},
		{"terminal-like device", ctx, devNull, devNull, true, false},
		{"OS pipe", ctx, pr, pw, true, true},
		{"io.Pipe", ctx, ipr, ipw, true, true},
		{"a context never done", context.Background(), ipr, ipw, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, wrapped := cancellableStdin(tt.ctx, tt.in).(*cancellableReader)
			assert.Equal(t, tt.wrapIn, wrapped, "stdin")
			_, wrapped = cancellableOutput(tt.ctx, tt.out).(*cancellableWriter)
			assert.Equal(t, tt.wrapOut, wrapped, "stdout")
		})
	}
}
