package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/link"
)

const buildSynopsis = `jsprof build --plugin PLUGIN.wasm [--dynamic] index.js -o index.wasm

Builds the module 'javy build' builds with that plugin, without the Javy CLI.
Static (the default): the plugin initialized and snapshotted, with the
program's bytecode embedded; it runs on its own. Dynamic: a small module that
imports the plugin; run it with 'jsprof run --plugin PLUGIN.wasm'. Either
carries the program's JS (Brotli-compressed in a javy_source section, as
'javy build' embeds it) and its file's name, so that 'jsprof report --html'
shows the source of the profiles it makes.`

func cmdBuild(ctx context.Context, args []string, io stdio) int {
	fs := cli.NewFlagSet("build", buildSynopsis, io.err)
	pluginPath := fs.String("plugin", "", "the Javy `plugin.wasm` (required)")
	dynamic := fs.Bool("dynamic", false, "build a dynamic module that imports the plugin")
	output := fs.String("o", "index.wasm", "write the module to `file`")
	cacheDir := cacheFlag(fs)
	// Accept flags after the JS file too: jsprof build index.js -o out.wasm.
	positional, code, done := cli.ParseInterleaved(fs, args, io.out, io.err)
	if done {
		return code
	}
	if len(positional) != 1 {
		return cli.BadCommandLine(io.err, fs, fmt.Sprintf("want one JS file, have %d", len(positional)))
	}
	if *pluginPath == "" {
		return fail(io, cli.ExitUsage, errors.New("build: --plugin is required"))
	}
	// The module may not be written over an input (run refuses the same):
	// -o h.js replaced the JS, --dynamic -o plugin.wasm the plugin.
	if err := outfile.Distinct([]outfile.Named{{What: "-o", Path: *output}}, []outfile.Named{{What: "the JS file", Path: positional[0]}, {What: "the --plugin", Path: *pluginPath}}); err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("build: %w", err))
	}
	src, err := os.ReadFile(positional[0])
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	dest, err := io.files.Create(*output)
	if err != nil {
		return fail(io, cli.ExitUsage, err)
	}
	defer dest.Discard()
	plugin, err := link.LoadPlugin(*pluginPath)
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	cd := cacheDir()
	cache, err := cd.Open()
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	defer cd.Seal() // what was compiled, for the next runs
	out, err := javy.BuildFile(ctx, plugin.Info, plugin.Wasm, plugin.Module, src, positional[0], *dynamic, cache)
	if be := (*javy.BuildError)(nil); errors.As(err, &be) && be.Step == "compiling" {
		return fail(io, cli.ExitFailure, fmt.Errorf("compiling %s with %s: %w", positional[0], *pluginPath, be.Err))
	} else if be != nil {
		return fail(io, cli.ExitFailure, fmt.Errorf("building %s: %w", *output, be.Err))
	} else if compileErr := (*javy.CompileError)(nil); errors.As(err, &compileErr) && !strings.Contains(err.Error(), "could not load module") {
		// A syntax error: at the file built, and, through its source map,
		// at the file it was bundled from.
		at, mapErr := javy.CompileErrorAt(ctx, compileErr.Message, positional[0], src)
		warn(io, mapErr)
		return fail(io, cli.ExitFailure, fmt.Errorf("%s: %s", positional[0], at))
	} else if err != nil {
		if strings.Contains(err.Error(), "could not load module") {
			// Javy compiles one file: imports must be bundled in.
			err = fmt.Errorf("%w; bundle its imports into one file first, e.g. npx esbuild %s --bundle --format=esm --outfile=bundle.js", err, positional[0])
		}
		return fail(io, cli.ExitFailure, fmt.Errorf("%s: %w", positional[0], err))
	}
	if err := dest.Commit(func(f *os.File) error { _, err := f.Write(out); return err }); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	return 0
}
