package shopify

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/run/runner"
)

// Run is a function's run set up the way function-runner runs it: its
// provider linked under its namespace, the input handed over the
// provider's way, the output and logs collected.
type Run struct {
	Resolved
	Codec Codec
	// Input is the input as the function reads it (encoded).
	Input []byte
	// ScaleFactor scales the run's limits (Limits); 0 or 1: not scaled.
	ScaleFactor float64

	stdout bytes.Buffer // WASI providers' output
	output Output       // in-memory providers' output and logs
	outErr error
	v1     *V1Host
}

// Configure sets o up for r's run with input, already encoded with codec:
// the provider as the run's plugin (not initialized again: providers come
// pre-initialized), and the input on stdin (WASI providers), through
// initialize/finalize around the export call (in-memory providers) or
// through the shopify_v1 host functions. o's Stdout is taken for the
// output: read it with Output.
func Configure(o *runner.Options, r Resolved, codec Codec, input []byte) *Run {
	run := &Run{Resolved: r, Codec: codec, Input: input}
	LinkProvider(o, r)
	o.Stdin = bytes.NewReader(nil)
	switch r.IO {
	case WASI:
		o.Stdin = bytes.NewReader(input)
		o.Stdout = &run.stdout
	case InMemory:
		// As function-runner: initialize and the input before the
		// function module is instantiated, finalize after its export.
		// A function that is its own provider (Self) has no instance
		// before its own, and no start section: its input goes in just
		// before the call.
		if !r.Self {
			o.BeforeMain = func(ctx context.Context, plugin api.Module) error {
				if plugin == nil {
					return fmt.Errorf("provider %s was not instantiated", r.Namespace)
				}
				return Prepare(ctx, plugin, input)
			}
		}
		o.Around = func(ctx context.Context, in runner.Instances, call func(context.Context) error) error {
			if r.Self {
				in.Plugin = in.Main
				if err := Prepare(ctx, in.Main, input); err != nil {
					return err
				}
			}
			callErr := call(ctx)
			// The logs explain a trap too: read them whatever happened.
			run.output, run.outErr = Finish(context.WithoutCancel(ctx), in.Plugin)
			if callErr != nil {
				return callErr
			}
			return run.outErr
		}
	case HostABI:
		run.v1 = NewV1Host(input)
		o.LinkCompiled = func(ctx context.Context, rt wazero.Runtime, main wazero.CompiledModule) ([]string, error) {
			if _, err := run.v1.Instantiate(ctx, rt, main); err != nil {
				return nil, err
			}
			return []string{V1Namespace}, nil
		}
	}
	return run
}

// LinkProvider has o link the provider r resolved, when it is a module
// (the Wasm API's is jsprof's own): pre-initialized, it is not
// initialized again.
func LinkProvider(o *runner.Options, r Resolved) {
	if r.Wasm != nil {
		o.Plugin = r.Plugin()
		o.SkipPluginInit = true
	}
}

// Plugin is the provider r resolved as a module to link.
func (r Resolved) Plugin() *runner.Plugin {
	return &runner.Plugin{Name: r.Path, Wasm: r.Wasm, Namespace: r.Namespace}
}

// Output is what the function wrote, in its codec, and its logs (in-memory
// providers; the others' logs went to stderr as they were written).
func (r *Run) Output() (Output, error) {
	switch r.IO {
	case WASI:
		return Output{Output: r.stdout.Bytes()}, nil
	case InMemory:
		return r.output, r.outErr
	case HostABI:
		out, wrote := r.v1.Output()
		if !wrote {
			return Output{}, ErrNoOutput
		}
		return Output{Output: out}, nil
	}
	return Output{}, errors.New("shopify: unknown I/O")
}
