package main

import (
	"context"
	"fmt"

	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// outputs are the outputs run's flags ask for (none with --mode off),
// inputs those of several inputs; an error is a usage error.
func (f *runFlags) outputs(inputs []string, io stdio) ([]output.Output, error) {
	if f.mode == jsprofile.ModeOff {
		return nil, nil
	}
	outs := []output.Output{&output.File{Path: f.output}}
	if f.collapsed != "" {
		outs = append(outs, &output.Collapsed{Path: f.collapsed})
	}
	if f.reportJSON != "" {
		outs = append(outs, &output.ReportJSON{Path: f.reportJSON, Profile: f.output, InputCost: &f.costs})
	}
	if f.report {
		outs = append(outs, &output.ReportText{W: io.err, Top: f.top, Profile: f.output})
	}
	if f.outDir != "" {
		d, err := output.NewDir(f.outDir, inputs)
		if err != nil {
			return nil, fmt.Errorf("--out-dir: %w", err)
		}
		outs = append(outs, d)
	}
	if f.pprofAddr != "" {
		outs = append(outs, &output.Server{Addr: f.pprofAddr, Warn: func(err error) { warn(io, err) }, Listening: func(addr string) {
			fmt.Fprintf(io.err, "jsprof: serving the running guest's profile at http://%s/debug/pprof/profile\n", addr)
		}})
	}
	if f.push != "" {
		outs = append(outs, &output.Push{URL: f.push, Labels: f.pushLabels, Warn: func(err error) { warn(io, err) }})
	}
	return outs, nil
}

// writeOutput opens out in io's files and writes r into it (jsprof
// report --html).
func writeOutput(ctx context.Context, io stdio, out output.Output, r output.Result) error {
	if err := out.Open(ctx, output.Opening{Files: io.files}); err != nil {
		return err
	}
	defer out.Discard()
	return out.Write(ctx, r)
}
