package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes"
	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// profiling is an exact-mode run in preparation: the module that holds the
// interpreter (the main module, or the plugin of a dynamic module) is
// rewritten, and the meter's host side waits to be linked.
type profiling struct {
	name     string // the profiled module's file name
	main     []byte // the main module to run (instrumented unless the plugin is)
	analysis *dispatch.Report
	module   *wasmcore.Module // the module holding the interpreter, as it was
	meter    *meter.Meter
	sampler  *jsframes.Sampler // sampling mode only
	done     chan struct{}     // closed when the guest has ended
	// checkpoints: the module stops at host checkpoints (samples, a limit),
	// which a listener handles.
	checkpoints bool
}

// noInterpreterError says that neither module holds a JS interpreter.
type noInterpreterError struct{ msg string }

func (e *noInterpreterError) Error() string { return e.msg }

// prepareProfiling instruments whichever of the module and the plugin holds
// the interpreter and hooks the meter into opts.
func prepareProfiling(ctx context.Context, opts *runner.Options, wasm []byte, f runFlags) (*profiling, error) {
	var plugin []byte
	if opts.Plugin != nil {
		plugin = opts.Plugin.Wasm
	}
	main, plugin, p, err := instrument(ctx, opts.Name, wasm, plugin, meter.Options{Sample: f.mode == modeSample, Checkpoints: true})
	if err != nil {
		return nil, err
	}
	if opts.Plugin != nil {
		opts.Plugin.Wasm = plugin
	}
	p.name, p.main, p.done = opts.Name, main, make(chan struct{})
	opts.Link, opts.Instantiated = p.meter.Link, p.meter.Start
	// The meter stops the guest itself, at checkpoints, on a limit, a
	// timeout or an interrupt, so that its counters stay readable.
	p.checkpoints = true
	opts.KeepOnContextDone = true
	p.meter.SetLimit(f.maxInstr)
	if f.mode == modeSample {
		sym, err := wasmcore.NewSymbolizer(p.module)
		if err != nil {
			return nil, err
		}
		meta := p.meta(runner.Result{}, time.Now())
		meta.SampleEvery = f.every
		p.sampler = jsframes.NewSampler(meta, p.analysis.Dispatch.FunctionIndex, sym, p.opcodeNames(), p.identity())
		p.meter.SetSampling(f.every, p.sampler.Add)
	}
	return p, nil
}

// context adds what the run's compilation needs: with checkpoints, the
// listener on the sample trampoline.
func (p *profiling) context(ctx context.Context) context.Context {
	if !p.checkpoints {
		return ctx
	}
	return experimental.WithFunctionListenerFactory(ctx, p.meter.ListenerFactory())
}

// finished says the guest has ended.
func (p *profiling) finished() { close(p.done) }

// serve serves the running guest's sampled profile at
// /debug/pprof/profile?seconds=N, as net/http/pprof serves a CPU profile:
// the samples of the next N seconds (default 30), or until the guest ends.
func (p *profiling) serve(addr string, start time.Time) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		seconds := 30
		if v := r.URL.Query().Get("seconds"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				http.Error(w, "seconds: want a positive integer", http.StatusBadRequest)
				return
			}
			seconds = n
		}
		meta := p.meta(runner.Result{}, time.Now())
		meta.Duration = time.Duration(seconds) * time.Second
		window := p.sampler.Window(meta)
		select {
		case <-time.After(time.Duration(seconds) * time.Second):
		case <-p.done:
		case <-r.Context().Done():
		}
		prof, err := window()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="profile"`)
		prof.Write(w)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return func() {
		// Let requests waiting for the guest's end write their profile.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// instrument finds the interpreter in the main module or, failing that, in
// the plugin, and rewrites that one. It returns the bytes to run in place
// of main and plugin (unchanged where no interpreter is).
func instrument(ctx context.Context, name string, main []byte, plugin []byte, opts meter.Options) (newMain, newPlugin []byte, p *profiling, err error) {
	try := func(what string, wasm []byte) ([]byte, *profiling, string, error) {
		m, err := wasmcore.Decode(wasm)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", what, err)
		}
		report, err := dispatch.Analyze(ctx, m)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", what, err)
		}
		if report.Dispatch == nil {
			return nil, nil, report.Reason, nil
		}
		plan, err := meter.Instrument(m, report.Dispatch, opts)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", what, err)
		}
		out, err := m.Encode()
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %w", what, err)
		}
		orig, err := wasmcore.Decode(wasm)
		if err != nil {
			return nil, nil, "", err
		}
		return out, &profiling{analysis: report, module: orig, meter: meter.New(plan)}, "", nil
	}
	out, p, reason, err := try(name, main)
	if err != nil || p != nil {
		return out, plugin, p, err
	}
	if plugin != nil {
		out, p, pluginReason, err := try("plugin", plugin)
		if err != nil || p != nil {
			return main, out, p, err
		}
		reason += "; in the plugin: " + pluginReason
	}
	return nil, nil, nil, &noInterpreterError{fmt.Sprintf("%s: no JS interpreter found to profile: %s", name, reason)}
}

// report names the meter's results with what the analysis knows.
func (p *profiling) report(res *meter.Results) *jsframes.CostReport {
	id := p.identity()
	return jsframes.NewCostReport(res, p.engineInfo(), p.opcodeNames(), id.Function)
}

func (p *profiling) engineInfo() jsframes.EngineInfo {
	e := p.analysis.Engine
	info := jsframes.EngineInfo{Family: e.Family, Releases: e.Releases}
	if len(e.OpcodeNames) > 0 {
		info.OpcodeNamesSource = e.OpcodeNamesSource
	}
	return info
}

func (p *profiling) opcodeNames() jsframes.OpcodeNamer {
	return jsframes.OpcodeNamer(p.analysis.Engine.OpcodeNames)
}

// identity names the measured functions.
func (p *profiling) identity() jsframes.Identity {
	return jsframes.AddressIdentity{}
}

// writeFileAtomic writes via a temporary file in the same directory and a
// rename, so an interrupted jsprof never leaves half a report.
func writeFileAtomic(path string, write func(f *os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".jsprof-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
