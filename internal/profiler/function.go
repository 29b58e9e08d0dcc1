package profiler

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/jsprof/jsprof/internal/run/inputfile"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/run/shopify/scalelimits"
	"github.com/jsprof/jsprof/wasmcore"
)

// functionIO decides whether a run uses function-runner's I/O
// (docs/running.md): a module importing a Shopify Functions provider
// (shopify_functions_javy_vN, shopify_function_vN, the shopify_v1 host
// ABI) does, and so does any module given --input or --codec (explicit);
// a static build of an in-memory provider runs through its own initialize
// and finalize exports. It returns the run's provider, or nil: then the
// guest's stdin and stdout are jsprof's, as under wasmtime run, and a
// javy_quickjs_provider_vN a module imports is linked as wasmtime run
// --preload links it (changing linked.Plugin).
func functionIO(main *wasmcore.Module, linked *link.Linking, explicit bool) *shopify.Resolved {
	switch {
	case linked.Provider != nil && (linked.Provider.Family != shopify.JavyQuickJS || explicit):
		return linked.Provider
	case linked.Provider != nil:
		linked.Plugin = linked.Provider.Plugin()
		return nil
	case main != nil && shopify.SelfProvided(main):
		r := shopify.SelfProvidedRun()
		return &r
	case explicit:
		// function-runner runs a module that imports no provider over
		// WASI, its input in JSON.
		return &shopify.Resolved{Provider: shopify.Provider{Codec: shopify.JSON, IO: shopify.WASI}}
	}
	return nil
}

// prepareFunction sets a Shopify Function's run up as function-runner
// does: the JSON input (the file inputPath, else o.Stdin) encoded with the
// provider's codec, or override, and handed over the provider's way, its
// limits scaled by what scale finds in it (unless raw, as function-runner;
// scale is the analyzer of the export that runs, nil for none). An input
// file that names its export (a Shopify CLI run log or fixture,
// inputfile.Read) runs it, whatever o's entry; main, when decoded, must
// export it.
func prepareFunction(ctx context.Context, o *runner.Options, r shopify.Resolved, override *shopify.Codec, inputPath string, main *wasmcore.Module, scale func(export string) *scalelimits.Analyzer) (*shopify.Run, inputfile.File, error) {
	codec := r.Codec
	if override != nil {
		codec = *override
	}
	what := "stdin"
	var in inputfile.File
	var err error
	if inputPath != "" {
		what = inputPath
		if in, err = inputfile.Read(inputPath); err == nil {
			err = in.CheckExport(inputPath, main)
		}
	} else if in.JSON, err = readAll(o.Stdin); err != nil {
		err = fmt.Errorf("--input: %w", err)
	}
	if err != nil {
		return nil, in, err
	}
	input, err := codec.EncodeInput(in.JSON)
	o.Entry = cmp.Or(in.Export, o.Entry)
	factor := 1.0
	if err == nil && codec != shopify.Raw {
		factor, err = scale(o.Entry).Factor(ctx, in.JSON)
	}
	if err != nil {
		return nil, in, fmt.Errorf("input %s: %w", what, err)
	}
	run := shopify.Configure(o, r, codec, input)
	run.ScaleFactor, in.JSON = factor, nil
	return run, in, nil
}

func readAll(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return io.ReadAll(r)
}
