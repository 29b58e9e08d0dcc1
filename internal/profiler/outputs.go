package profiler

import (
	"context"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/view/report"
)

// reads are the files job reads (its module, the --source, --plugin
// and --input files) and that linking found (the plugin or provider a
// folder of providers resolved to): no output may be one of them, as
// writing it would destroy what the run read.
func (job *Job) reads(linked link.Linking) []outfile.Named {
	reads := []outfile.Named{{What: "the module being run", Path: job.ModulePath}, {What: "the --source file", Path: job.Profile.Source}, {What: "the --input file", Path: job.Input}}
	for _, p := range job.Inputs {
		reads = append(reads, outfile.Named{What: "an --input file", Path: p})
	}
	for _, p := range job.Plugins {
		reads = append(reads, outfile.Named{What: "a --plugin", Path: p})
	}
	if linked.Plugin != nil {
		reads = append(reads, outfile.Named{What: "the plugin linked", Path: linked.Plugin.Name})
	}
	if linked.Provider != nil && linked.Provider.Path != "" {
		reads = append(reads, outfile.Named{What: "the provider linked", Path: linked.Provider.Path})
	}
	return reads
}

// writeOutputs says out's warnings (Options.Warn), then writes it into
// the job's outputs; the table of inputs is that of several inputs
// (RunSeveral), nil for one run.
func (job *Job) writeOutputs(ctx context.Context, out *Outcome, inputs []report.InputRun) error {
	if job.Profile.Warn != nil {
		for _, w := range out.Warnings {
			job.Profile.Warn(w)
		}
	}
	return output.Write(ctx, job.Outputs, output.Result{Profile: out.Profile, Tables: out.Tables, Inputs: inputs})
}
