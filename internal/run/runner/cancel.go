package runner

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// A guest blocked in a host call — reading a stdin that never closes,
// sleeping, writing to a pipe nobody drains — is out of reach of the run's
// context: wazero's close-on-done and the meter's checkpoints act only
// while Wasm code runs. So every host call the runner provides that can
// block returns when the context is done, and the guest goes back to Wasm,
// where it is stopped.

// readChunk bounds what one background read asks of stdin.
const readChunk = 64 << 10

// neverBlocks says whether reads or writes of v return without waiting for
// anything outside the process (in-memory buffers, regular files): those
// need no goroutine to be abandoned.
func neverBlocks(v any) bool {
	switch v := v.(type) {
	case *bytes.Buffer, *bytes.Reader, *strings.Reader, *strings.Builder:
		return true
	case *os.File:
		fi, err := v.Stat()
		return err == nil && fi.Mode().IsRegular()
	}
	return v == io.Discard
}

// cancellableReader makes Read (and WASI's poll on stdin) return when ctx is
// done. The source is read by a goroutine, into a buffer of its own (never
// guest memory, which the meter reads once the run is stopped); when ctx is
// done while that read is pending, Read returns the context's cause and the
// goroutine is left blocked — at most one: no read is started once ctx is
// done. What it reads afterwards is dropped with the reader.
type cancellableReader struct {
	ctx     context.Context
	src     io.Reader
	pending chan readResult // the read in flight, nil if none
	data    []byte          // read, not yet handed to the guest
	err     error           // came with data, handed after it
	spare   []byte          // a buffer for the next read, once data is handed
}

type readResult struct {
	data []byte
	err  error
}

func (r *cancellableReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.data) == 0 && r.err == nil {
		if _, err := r.wait(nil, len(p)); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) > 0 {
		return n, nil
	}
	err := r.err
	r.err = nil
	return n, err
}

// Poll implements wazero's experimentalsys.Pollable, which WASI's
// poll_oneoff uses for stdin: ready once a read has returned something,
// waiting at most timeoutMillis (negative: no limit) or until ctx is done
// (EINTR).
func (r *cancellableReader) Poll(flag experimentalsys.Pflag, timeoutMillis int32) (bool, experimentalsys.Errno) {
	if flag != experimentalsys.POLLIN {
		return false, experimentalsys.ENOTSUP
	}
	if len(r.data) > 0 || r.err != nil {
		return true, 0
	}
	var timeout <-chan time.Time
	if timeoutMillis >= 0 {
		t := time.NewTimer(time.Duration(timeoutMillis) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	ready, err := r.wait(timeout, readChunk)
	if err != nil {
		return false, experimentalsys.EINTR
	}
	return ready, 0
}

// wait starts a read of up to size bytes unless one is pending, and waits
// for it, for timeout, or for ctx; ready means data or err is set.
func (r *cancellableReader) wait(timeout <-chan time.Time, size int) (ready bool, err error) {
	if r.pending == nil {
		if r.ctx.Err() != nil {
			return false, context.Cause(r.ctx)
		}
		size = min(size, readChunk)
		if cap(r.spare) < size {
			r.spare = make([]byte, size)
		}
		buf, src := r.spare[:size], r.src
		ch := make(chan readResult, 1)
		go func() {
			n, err := src.Read(buf)
			ch <- readResult{buf[:n], err}
		}()
		r.pending = ch
	}
	select {
	case res := <-r.pending:
		r.pending = nil
		r.data, r.err = res.data, res.err
		return true, nil
	case <-timeout:
		return false, nil
	case <-r.ctx.Done():
		return false, context.Cause(r.ctx)
	}
}

// cancellableWriter makes Write return when ctx is done: the write goes on
// in a goroutine, from a copy of the guest's bytes, and is abandoned then
// (at most one: none is started once ctx is done). Writes stay in order,
// as each waits for the previous one.
type cancellableWriter struct {
	ctx   context.Context
	dst   io.Writer
	buf   []byte
	stuck bool // a write was abandoned: its buffer is still in use
}

type writeResult struct {
	n   int
	err error
}

func (w *cancellableWriter) Write(p []byte) (int, error) {
	if w.stuck || w.ctx.Err() != nil {
		return 0, context.Cause(w.ctx)
	}
	w.buf = append(w.buf[:0], p...)
	buf, dst := w.buf, w.dst
	ch := make(chan writeResult, 1)
	go func() {
		n, err := dst.Write(buf)
		ch <- writeResult{n, err}
	}()
	select {
	case res := <-ch:
		return res.n, res.err
	case <-w.ctx.Done():
		w.stuck = true
		return 0, context.Cause(w.ctx)
	}
}

// cancellableStdin wraps r unless it cannot block or ctx can never be done.
// A terminal is wrapped too (waiting for input there is where Ctrl-C most
// needs to reach): the guest then sees its stdin as a device, not a
// terminal.
func cancellableStdin(ctx context.Context, r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	if ctx.Done() == nil || neverBlocks(r) {
		return r
	}
	return &cancellableReader{ctx: ctx, src: r}
}

// cancellableOutput wraps w unless it cannot block or ctx can never be done.
// A terminal is left as it is: wazero shows the guest a wrapped writer as a
// device that is no terminal, and a C guest would then buffer its output
// until it exits; a terminal blocks only while the user holds it (^S).
// Pipes and sockets, whose reader may never read, are wrapped.
func cancellableOutput(ctx context.Context, w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	if ctx.Done() == nil || neverBlocks(w) || isTerminal(w) {
		return w
	}
	return &cancellableWriter{ctx: ctx, dst: w}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// nanosleep is WASI's sleep (poll_oneoff on clocks) on the host's clock,
// cut short when ctx is done.
func nanosleep(ctx context.Context) sys.Nanosleep {
	return func(ns int64) {
		if ns <= 0 {
			return
		}
		t := time.NewTimer(time.Duration(ns))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}
