package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

const runSynopsis = `jsprof [run] [flags] module.wasm [--] [guest args...]

Runs a WebAssembly command module under wazero, as 'wasmtime run' would: a
static Javy module, a dynamic one (with --plugin), an older Javy module
(_start or shopify_main) or any WASI program. The guest gets jsprof's stdin,
stdout and stderr, and no host directory, environment variable or argument
unless given with --dir, --env or after the module. jsprof exits with the
guest's exit code; 134 if the guest trapped.`

func cmdRun(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("run", runSynopsis, io)
	var env, dirs listFlag
	fs.Var(&env, "env", "set a guest environment variable `KEY=VALUE` (repeatable)")
	fs.Var(&dirs, "dir", "grant the guest the host directory `HOST[:GUEST]` (repeatable)")
	pluginPath := fs.String("plugin", "", "Javy `plugin.wasm` that a dynamic module imports")
	report := fs.Bool("report", false, "measure exact per-opcode cost and print the table on stderr when the guest ends")
	reportJSON := fs.String("report-json", "", "measure exact per-opcode cost and write it as JSON to `file`")
	top := fs.Int("top", 20, "rows of each table of --report (0: all)")
	openCache := cacheFlag(fs)
	if code, done := parseFlags(fs, args, io); done {
		return code
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(io.err, "jsprof: run: no module given")
		fs.Usage()
		return exitUsage
	}
	modulePath, guestArgs := rest[0], rest[1:]
	if len(guestArgs) > 0 && guestArgs[0] == "--" {
		guestArgs = guestArgs[1:]
	}
	opts := runner.Options{
		Name:   filepath.Base(modulePath),
		Args:   guestArgs,
		Env:    env,
		Stdin:  io.in,
		Stdout: io.out,
		Stderr: io.err,
	}
	for _, d := range dirs {
		m, err := runner.ParseMount(d)
		if err != nil {
			return fail(io, exitUsage, err)
		}
		if st, err := os.Stat(m.Host); err != nil || !st.IsDir() {
			return fail(io, exitUsage, fmt.Errorf("--dir %s: not a directory", m.Host))
		}
		opts.Dirs = append(opts.Dirs, m)
	}
	wasm, err := readModule(modulePath)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	if *pluginPath != "" {
		p, err := loadPlugin(*pluginPath)
		if err != nil {
			return fail(io, exitFailure, err)
		}
		opts.Plugin = &runner.Plugin{Name: *pluginPath, Wasm: p.wasm, Namespace: p.info.Namespace}
	}
	if opts.Cache, err = openCache(); err != nil {
		return fail(io, exitFailure, err)
	}
	var prof *profiling
	if *report || *reportJSON != "" {
		var plugin []byte
		if opts.Plugin != nil {
			plugin = opts.Plugin.Wasm
		}
		wasm, plugin, prof, err = instrument(ctx, opts.Name, wasm, plugin, meter.Options{})
		if err != nil {
			return fail(io, exitFailure, err)
		}
		if opts.Plugin != nil {
			opts.Plugin.Wasm = plugin
		}
		opts.Link, opts.Instantiated = prof.meter.Link, prof.meter.Start
	}
	res, err := runner.Run(ctx, wasm, opts)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	if prof != nil {
		// The guest has ended, however it ended: its cost is written first.
		results, err := prof.meter.Collect()
		if results == nil {
			return fail(io, exitFailure, fmt.Errorf("collecting the measurements: %w", err))
		}
		if err != nil {
			fmt.Fprintf(io.err, "jsprof: warning: %s\n", oneLine(err.Error()))
		}
		cost := prof.report(results)
		if *reportJSON != "" {
			if err := writeFileAtomic(*reportJSON, func(f *os.File) error { return cost.WriteJSON(f) }); err != nil {
				return fail(io, exitFailure, err)
			}
		}
		if *report {
			if err := cost.WriteTable(io.err, *top); err != nil {
				return fail(io, exitFailure, err)
			}
		}
	}
	if res.Trap != nil {
		var unresolved *runner.UnresolvedImportError
		if errors.As(res.Trap, &unresolved) {
			return fail(io, int(res.ExitCode), unresolved)
		}
		if ctx.Err() != nil {
			return fail(io, int(res.ExitCode), fmt.Errorf("interrupted: %w", ctx.Err()))
		}
		return fail(io, int(res.ExitCode), fmt.Errorf("guest trapped: %w", res.Trap))
	}
	return int(res.ExitCode)
}

// readModule reads and decodes a module so that a malformed file is reported
// with wasmcore's offsets before wazero sees it.
func readModule(path string) ([]byte, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := wasmcore.Decode(wasm); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return wasm, nil
}

type loadedPlugin struct {
	wasm   []byte
	module *wasmcore.Module
	info   javy.Plugin
}

func loadPlugin(path string) (*loadedPlugin, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	info, err := javy.Inspect(m)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	return &loadedPlugin{wasm: wasm, module: m, info: info}, nil
}
