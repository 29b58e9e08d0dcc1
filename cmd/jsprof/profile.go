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
	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes"
	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// profiling is a profiled run (exact or sampling): the module that holds
// the interpreter (the main module, or the plugin of a dynamic module) is
// rewritten, and the meter's host side is linked into the run.
type profiling struct {
	name     string // the profiled module's file name
	main     []byte // the main module to run (instrumented unless the plugin is)
	analysis *dispatch.Report
	module   *wasmcore.Module // the module holding the interpreter, as it was
	// mainModule and mainReport are the module run and its analysis (the
	// same as module and analysis for a static module; for a dynamic one,
	// the small module that carries the program's bytecode).
	mainModule *wasmcore.Module
	mainReport *dispatch.Report
	namer      *jsframes.Namer // nil: functions named by address
	source     string          // the JS file the program came from, "" if unknown
	meter      *meter.Meter
	sampler    *jsframes.Sampler // sampling mode only
	done       chan struct{}     // closed when the guest has ended
	every      uint64            // sampling period
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
	p.source = f.source
	if p.source == "" {
		p.source = javy.SourceOf(p.mainModule)
	}
	opts.Link, opts.Instantiated = p.meter.Link, p.meter.Start
	// The meter stops the guest itself, at checkpoints, on a limit, a
	// timeout or an interrupt, so that its counters stay readable.
	opts.KeepOnContextDone = true
	p.meter.SetLimit(f.maxInstr)
	if f.mode == modeSample {
		sym, err := wasmcore.NewSymbolizer(p.module)
		if err != nil {
			return nil, err
		}
		p.sampler = jsframes.NewSampler(p.analysis.Dispatch.FunctionIndex, sym, p.opcodeNames())
		p.meter.SetSampling(f.every, p.sampler.Add)
		p.every = f.every
	}
	return p, nil
}

// defaultSampleEvery is --sample-every's default: about 10,000 samples per
// second of guest time (wazero runs QuickJS at roughly 10^10 Wasm
// instructions a second), a hundred times pprof's CPU rate, and few enough
// that walking deep stacks stays a small part of the cost
// (docs/performance.md).
const defaultSampleEvery = 1_000_000

// context adds what the run's compilation needs: when sampling, the
// listener on the sample trampoline.
func (p *profiling) context(ctx context.Context) context.Context {
	if p.sampler == nil {
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
		window := p.sampler.Window()
		began := time.Now()
		select {
		case <-time.After(time.Duration(seconds) * time.Second):
		case <-p.done:
		case <-r.Context().Done():
		}
		meta := p.meta(runner.Result{}, began)
		meta.SampleEvery = p.every
		prof, err := window(meta, p.identity())
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
	analyze := func(what string, wasm []byte) (*wasmcore.Module, *dispatch.Report, error) {
		m, err := wasmcore.Decode(wasm)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		report, err := dispatch.Analyze(ctx, m)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		return m, report, nil
	}
	rewrite := func(what string, wasm []byte, report *dispatch.Report) ([]byte, *profiling, error) {
		m, err := wasmcore.Decode(wasm) // a copy to rewrite; the analysed one stays as it was
		if err != nil {
			return nil, nil, err
		}
		plan, err := meter.Instrument(m, report.Dispatch, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		out, err := m.Encode()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", what, err)
		}
		return out, &profiling{analysis: report, meter: meter.New(plan)}, nil
	}
	mainMod, mainReport, err := analyze(name, main)
	if err != nil {
		return nil, nil, nil, err
	}
	if mainReport.Dispatch != nil {
		out, p, err := rewrite(name, main, mainReport)
		if err != nil {
			return nil, nil, nil, err
		}
		p.module, p.mainModule, p.mainReport = mainMod, mainMod, mainReport
		return out, plugin, p, nil
	}
	reason := mainReport.Reason
	if plugin != nil {
		pluginMod, pluginReport, err := analyze("plugin", plugin)
		if err != nil {
			return nil, nil, nil, err
		}
		if pluginReport.Dispatch != nil {
			out, p, err := rewrite("plugin", plugin, pluginReport)
			if err != nil {
				return nil, nil, nil, err
			}
			p.module, p.mainModule, p.mainReport = pluginMod, mainMod, mainReport
			return main, out, p, nil
		}
		reason += "; in the plugin: " + pluginReport.Reason
	}
	return nil, nil, nil, &noInterpreterError{fmt.Sprintf("%s: no JS interpreter found to profile: %s", name, reason)}
}

// namer prepares naming: the program's serialized bytecode parsed for the
// engine. Where that fails (an engine or format jsprof does not read), it
// says so once and names functions by address.
func (p *profiling) prepareNamer(warn func(error)) {
	spec, err := jsframes.EngineSpecForModule(p.module, p.analysis)
	if err != nil {
		warn(fmt.Errorf("naming JS functions: %w", err))
		return
	}
	prog, err := jsframes.ProgramFromModules(p.mainModule, p.mainReport, p.module, p.analysis)
	if err != nil {
		warn(fmt.Errorf("naming JS functions: %w", err))
	}
	p.namer = jsframes.NewNamer(prog, spec)
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
	if p.namer == nil {
		return jsframes.AddressIdentity{}
	}
	id := p.namer.Identity()
	if p.source != "" {
		id = jsframes.RenameFile(id, javy.CompiledName, p.source)
	}
	return id
}

// learn gives the namer every measured function and the guest's memory,
// once the guest has ended.
func (p *profiling) learn(res *meter.Results) {
	if p.namer == nil {
		return
	}
	if mem := p.meter.Memory(); mem != nil {
		p.namer.UseMemory(mem)
	}
	p.namer.Learn(res.Functions)
}

// writeFileAtomic writes via a temporary file in the same directory and a
// rename, so an interrupted jsprof never leaves half a file. The file is
// readable by all (0644), as profiles and reports are meant to be shared;
// CreateTemp's 0600 would not be.
func writeFileAtomic(path string, write func(f *os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".jsprof-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
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
