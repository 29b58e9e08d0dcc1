package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/link"
)

const buildSynopsis = `jsprof build --plugin PLUGIN.wasm [--dynamic] [--export NAME]... index.js -o index.wasm

Builds the module 'javy build' builds with that plugin, without the Javy CLI.
Static (the default): the plugin initialized and snapshotted, with the
program's bytecode embedded; it runs on its own. Dynamic: a small module that
imports the plugin; run it with 'jsprof run --plugin PLUGIN.wasm'. Either
carries the program's JS (Brotli-compressed in a javy_source section, as
'javy build' embeds it) and its file's name, so that 'jsprof report --html'
shows the source of the profiles it makes. Each --export NAME (kebab-case) is
a Wasm export that runs the JS export of its camelCase name, as 'javy build
-C wit=WORLD -C wit-world=W' makes one per 'export NAME: func();' of the
world (Shopify CLI's build of a toml whose targets have exports); run one
with 'jsprof run -e NAME'.`

func cmdBuild(ctx context.Context, args []string, io stdio) int {
	fs := cli.NewFlagSet("build", buildSynopsis, io.err)
	pluginPath := fs.String("plugin", "", "the Javy `plugin.wasm` (required)")
	dynamic := fs.Bool("dynamic", false, "build a dynamic module that imports the plugin")
	output := fs.String("o", "index.wasm", "write the module to `file`")
	var exportNames cli.List
	fs.Var(&exportNames, "export", "also export `NAME` (kebab-case, repeatable), calling the JS export of its camelCase name")
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
	} else if err := link.CheckPlugins([]string{*pluginPath}); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	// The module may not be written over an input (run refuses the same):
	// -o h.js replaced the JS, --dynamic -o plugin.wasm the plugin.
	if err := outfile.Distinct([]outfile.Named{{What: "-o", Path: *output}}, []outfile.Named{{What: "the JS file", Path: positional[0]}, {What: "the --plugin", Path: *pluginPath}}); err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("build: %w", err))
	}
	exports, err := javy.ExportsNamed(exportNames)
	if err != nil {
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
	out, err := javy.BuildFile(ctx, plugin.Info, plugin.Wasm, plugin.Module, src, javy.RecordedName(positional[0], *output), *dynamic, cache, exports...)
	if err != nil {
		err, mapErr := javy.FileBuildError(ctx, err, positional[0], *pluginPath, *output, src)
		warn(io, mapErr)
		return fail(io, cli.ExitFailure, err)
	}
	if err := dest.Commit(func(f *os.File) error { _, err := f.Write(out); return err }); err != nil {
		return fail(io, cli.ExitFailure, err)
	} else if !cli.Given(fs, "o") { // written where the user did not say
		plugin := map[bool]string{true: "--plugin " + *pluginPath + " "}[*dynamic]
		fmt.Fprintf(io.err, "jsprof: wrote %s, as no -o was given: run it with jsprof run %s%s\n", *output, plugin, *output)
	}
	return 0
}
