package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// runInputs is jsprof run with several inputs: the module prepared once,
// run on each input in an instance of its own, in parallel; a table of
// the runs on stderr; -o the profile merged over them, --out-dir each
// one's. jsprof exits with the first input's exit code that is not 0.
func runInputs(ctx context.Context, job profiler.Job, f runFlags, io stdio, outs **outputs) int {
	inputs, err := profiler.InputFiles(f.inputs)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	perInput := map[string]string{} // --out-dir's file → its input
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return fail(io, exitUsage, fmt.Errorf("--out-dir: %w", err))
		}
		for _, in := range inputs {
			name := filepath.Join(f.outDir, strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+".pb.gz")
			if other, ok := perInput[name]; ok {
				return fail(io, exitUsage, fmt.Errorf("--out-dir: %s and %s would both be %s", other, in, name))
			}
			perInput[name] = in
		}
	}
	p, err := profiler.PrepareJob(ctx, job)
	if err != nil {
		if errors.As(err, new(usageError)) {
			return fail(io, exitUsage, err)
		}
		return failInterrupted(ctx, io, exitFailure, err)
	}
	runs := p.RunInputs(ctx, inputs, 0)
	facts := profiler.InputFacts(runs)
	mark := func(s string) string { return paint(io, red, s) }
	merged, err := profiler.Merged(runs)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	if merged != nil {
		if err := (*outs).write(merged, f, io, facts); err != nil {
			return fail(io, exitFailure, err)
		}
	}
	code := 0
	for i, r := range runs {
		if r.Done != nil && r.Done.Outcome != nil && f.outDir != "" {
			path := filepath.Join(f.outDir, strings.TrimSuffix(filepath.Base(r.Input), filepath.Ext(r.Input))+".pb.gz")
			o, err := files.Create(path)
			if err == nil {
				err = o.Commit(func(w *os.File) error { return jsprofile.Write(w, r.Done.Outcome.Profile) })
			}
			if err != nil {
				return fail(io, exitFailure, err)
			}
		}
		if t := facts[i].Throw; t != nil {
			fmt.Fprintf(io.err, "jsprof: %s: uncaught %s%s\n", r.Input, t.Message, throwPlace(t.Stack))
		}
		if code == 0 {
			code = facts[i].ExitCode
		}
	}
	profiler.WriteInputsTable(io.err, facts, mark)
	if f.failLimit {
		for i, r := range runs {
			if r.Done == nil {
				continue
			}
			if over := profiler.OverLimit(facts[i].TotalWasmInstructions, jsprofile.RunInfo{Limits: facts[i].Limits,
				InputBytes: facts[i].InputBytes, OutputBytes: facts[i].OutputBytes}); over != "" {
				fmt.Fprintf(io.err, "jsprof: %s: %s (--fail-over-limit)\n", r.Input, mark(over))
				if code == 0 {
					code = exitFailure
				}
			}
		}
	}
	if merged != nil && !f.quiet {
		fmt.Fprintf(io.err, "jsprof: profile of %d inputs written to %s (jsprof report %s; go tool pprof -tagfocus=input=NAME %s)\n", len(inputs), f.output, f.output, f.output)
	}
	return code
}
