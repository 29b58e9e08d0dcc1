package profiler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// InputFiles lists the inputs paths name, in order: a regular file is
// itself, a folder each *.json file in it (not below), by name. A folder
// with none is an error naming it, as is a path that is neither
// (shopify.ReadInput): checked before anything runs.
func InputFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--input: %w", err)
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				return nil, shopify.NotRegular(p)
			}
			files = append(files, p)
			continue
		}
		in, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", p, err)
		}
		var found []string
		for _, f := range in {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				found = append(found, f)
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--input %s: no *.json file in the folder", p)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}

// InputRun is one input's run of RunInputs.
type InputRun struct {
	Input string // the path as given
	Done  *Done  // nil when Err stopped it
	Err   error
}

// RunInputs runs the prepared module once per input, each in an instance
// of its own, parallel at once at most (0: one per CPU jsprof may use),
// and returns the runs in the inputs' order. The guests' output is
// dropped (a run's uncaught error is in its Outcome.Throw); the job's
// Prepared hook is not called, nor its Progress said.
func (p *Prepared) RunInputs(ctx context.Context, inputs []string, parallel int) []InputRun {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	// The job's outputs are written once, from all the runs
	// (RunSeveral), and none is watched.
	q := *p
	p = &q
	p.job.Outputs = nil
	p.job.Hooks.Prepared = nil
	p.job.Progress.Every = 0 // lines of several runs at once would say nothing
	runs := make([]InputRun, len(inputs))
	one := func(i int) {
		defer func() {
			// One input's failure is its own row, never the others' loss.
			if r := recover(); r != nil {
				runs[i].Err = fmt.Errorf("input %s: internal error: %v\n%s", inputs[i], r, debug.Stack())
			}
		}()
		if err := ctx.Err(); err != nil {
			runs[i].Err = context.Cause(ctx)
			return
		}
		runs[i].Done, runs[i].Err = p.Run(ctx, inputs[i], nil, nil)
	}
	for i, in := range inputs {
		runs[i].Input = in
	}
	if len(inputs) == 0 {
		return runs
	}
	// The first run alone compiles what every run shares (the engine, the
	// meter's listened module) into wazero's in-memory cache: runtimes
	// compiling one module at the same moment on one cache race inside
	// wazero when it carries listeners. The others then only load it.
	one(0)
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := 1; i < len(inputs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			one(i)
		}()
	}
	wg.Wait()
	return runs
}

// Several is the prepared module run on several inputs (RunSeveral).
type Several struct {
	Runs   []InputRun        // by input
	Facts  []report.InputRun // the runs' table (InputFacts)
	Merged *Outcome          // their profiles merged (Merged); nil: none
	// MergedInputs are the inputs whose runs made a profile, the ones
	// Merged holds.
	MergedInputs []string
	// ExitCode is the first input's exit code that is not 0, or 128+n
	// when signal n stopped the runs, as it stops a single run, whatever
	// the inputs that ended before it exited with.
	ExitCode int
}

// RunSeveral runs the prepared module on each input (RunInputs, one per
// CPU), merges their profiles and writes the job's outputs from them (as
// Execute does, with the table of inputs and each one's own profile); an
// error is the merge's or the outputs', with the runs done.
func (p *Prepared) RunSeveral(ctx context.Context, inputs []string) (Several, error) {
	defer output.Discard(p.job.Outputs)
	s := Several{Runs: p.RunInputs(ctx, inputs, 0)}
	s.Facts = InputFacts(s.Runs)
	for _, in := range s.Facts {
		s.ExitCode = cmp.Or(s.ExitCode, in.ExitCode)
	}
	var sig cli.Signaled
	if errors.As(context.Cause(ctx), &sig) {
		s.ExitCode = cli.ExitSignalBase + int(sig.Signal())
	}
	var err error
	if s.Merged, s.MergedInputs, err = Merged(s.Runs); err != nil || s.Merged == nil {
		return s, err
	}
	each := make([]*profile.Profile, len(s.Runs))
	for i, r := range s.Runs {
		if r.Done != nil && r.Done.Outcome != nil {
			each[i] = r.Done.Outcome.Profile
		}
	}
	if err := p.job.writeOutputs(ctx, s.Merged, s.Facts, each); err != nil {
		return s, &OutputError{Err: err}
	}
	return s, nil
}

// Merged is the runs' profiles merged into one, each sample labelled
// with its input (jsprofile.Merge), with its tables, and the inputs whose
// runs made one: nil when none did.
func Merged(runs []InputRun) (*Outcome, []string, error) {
	var ps []*profile.Profile
	var inputs []string
	for _, r := range runs {
		if r.Done != nil && r.Done.Outcome != nil {
			ps = append(ps, r.Done.Outcome.Profile)
			inputs = append(inputs, r.Input)
		}
	}
	if len(ps) == 0 {
		return nil, nil, nil
	}
	merged, err := jsprofile.Merge(ps, inputs)
	if err != nil {
		return nil, nil, err
	}
	tables, err := report.FromProfile(merged)
	if err != nil {
		return nil, nil, err
	}
	return &Outcome{Profile: merged, Tables: tables}, inputs, nil
}

// InputFacts are the runs' facts, in the runs' order, for the table and
// the JSON report.
func InputFacts(runs []InputRun) []report.InputRun {
	facts := make([]report.InputRun, len(runs))
	for i, r := range runs {
		f := report.InputRun{Input: r.Input}
		var sig cli.Signaled
		switch {
		case errors.As(r.Err, &sig):
			// Kept from starting, or stopped before its guest ran.
			f.Error, f.ExitCode = cli.FirstLine(r.Err.Error()), cli.ExitSignalBase+int(sig.Signal())
		case r.Err != nil:
			f.Error, f.ExitCode = cli.FirstLine(r.Err.Error()), cli.ExitFailure
		default:
			d := r.Done
			f.ExitCode, f.MemoryBytes, f.InputBytes, f.OutputBytes = d.ExitCode, d.Info.MemoryBytes, d.Info.InputBytes, d.Info.OutputBytes
			f.Limits = d.Info.Limits
			if o := d.Outcome; o != nil {
				f.Throw = o.Throw
				if m, err := jsprofile.Read(o.Profile); err == nil {
					f.TotalWasmInstructions = m.Meta.TotalInstructions
					f.Limits = m.Meta.Run.Limits
				}
			}
		}
		facts[i] = f
	}
	return facts
}
