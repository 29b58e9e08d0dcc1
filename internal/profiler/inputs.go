package profiler

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/internal/run/inputfile"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// InputRun is one input's run of RunInputs.
type InputRun struct {
	Input string // the path as given
	Done  *Done  // nil when Err stopped it
	Err   error
	// Output is what the guest wrote on stdout: a function's output, as
	// JSON (shopify.WriteOutput).
	Output []byte
}

// RunInputs runs the prepared module once per input, each in an instance
// of its own, parallel at once at most (0: one per CPU jsprof may use),
// and hands each run to done as it ends (never two at once, in no set
// order: what done keeps of a run is all that is kept of it). The
// guests' stdout is the run's Output, their stderr dropped (a run's
// uncaught error is in its Outcome.Throw); the job's Prepared hook is not called, nor its
// Progress said, nor its outputs written (RunSeveral writes them).
func (p *Prepared) RunInputs(ctx context.Context, inputs []string, parallel int, done func(i int, r InputRun)) {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	q := *p
	p = &q
	p.job.Outputs = nil
	p.job.Hooks.Prepared = nil
	p.job.Progress.Every = 0 // lines of several runs at once would say nothing
	var mu sync.Mutex
	one := func(i int) {
		r := InputRun{Input: inputs[i]}
		defer func() {
			// One input's failure is its own row, never the others' loss.
			if e := recover(); e != nil {
				r = InputRun{Input: inputs[i], Err: fmt.Errorf("input %s: internal error: %v\n%s", inputs[i], e, debug.Stack())}
			}
			mu.Lock()
			defer mu.Unlock()
			done(i, r)
		}()
		if err := ctx.Err(); err != nil {
			r.Err = context.Cause(ctx)
			return
		}
		var out bytes.Buffer
		r.Done, r.Err = p.Run(ctx, inputs[i], &out, nil)
		r.Output = out.Bytes()
	}
	if len(inputs) == 0 {
		return
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
}

// Several is the prepared module run on several inputs (RunSeveral).
type Several struct {
	Facts  []report.InputRun // the runs' table, by input (inputFact)
	Merged *Outcome          // their profiles merged; nil: none
	// MergedInputs are the inputs whose runs made a profile, the ones
	// Merged holds.
	MergedInputs []string
	// ExitCode is the first input's exit code that is not 0, or 128+n
	// when signal n stopped the runs, as it stops a single run, whatever
	// the inputs that ended before it exited with.
	ExitCode int
}

// RunSeveral runs the prepared module on each input (RunInputs, one per
// CPU) and writes the job's outputs: each input's profile to those that
// take them as its run ends (output.EachWriter), then the profiles
// merged, in the inputs' order, with the table of inputs (as Execute
// does). Of each run only its facts are kept: its profile is merged as
// soon as the runs of the inputs before it have ended (jsprofile.Merger,
// Ended), compressed until then. Thousands of inputs are run in the
// memory of one run and their merged profile. An error is the merge's or
// the outputs', with the runs done.
func (p *Prepared) RunSeveral(ctx context.Context, inputs []string) (Several, error) {
	defer output.Discard(p.job.Outputs)
	s := Several{Facts: make([]report.InputRun, len(inputs))}
	var m jsprofile.Merger
	var errs []error
	p.RunInputs(ctx, inputs, 0, func(i int, r InputRun) {
		s.Facts[i] = inputFact(r)
		var raw []byte
		defer func() { m.Ended(i, raw, inputs) }()
		if r.Done == nil || r.Done.Outcome == nil {
			return
		}
		var b bytes.Buffer
		if err := jsprofile.Write(&b, r.Done.Outcome.Profile); err != nil {
			errs = append(errs, fmt.Errorf("the profile of %s: %w", r.Input, err))
			return
		}
		raw = b.Bytes()
		errs = append(errs, output.WriteEach(ctx, p.job.Outputs, i, r.Done.Outcome.Profile, raw))
	})
	for _, in := range s.Facts {
		s.ExitCode = cmp.Or(s.ExitCode, in.ExitCode)
	}
	var sig cli.Signaled
	if errors.As(context.Cause(ctx), &sig) {
		s.ExitCode = cli.ExitSignalBase + int(sig.Signal())
	}
	var err error
	if s.Merged, s.MergedInputs, err = merged(&m); err != nil || s.Merged == nil {
		return s, errors.Join(append(errs, err)...)
	}
	errs = append(errs, p.job.writeOutputs(ctx, s.Merged, s.Facts))
	if err := errors.Join(errs...); err != nil {
		return s, &OutputError{Err: err}
	}
	return s, nil
}

// merged is the runs' profiles merged (m, every run ended), each sample
// labelled with its input, with its tables, and the inputs whose runs
// made one: nil when none did.
func merged(m *jsprofile.Merger) (*Outcome, []string, error) {
	p, err := m.Profile()
	if errors.Is(err, jsprofile.ErrNothingMerged) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	tables, err := report.FromProfile(p)
	if err != nil {
		return nil, nil, err
	}
	return &Outcome{Profile: p, Tables: tables}, m.Inputs(), nil
}

// inputFact is a run's facts, for the table and the JSON report (and
// for one run's checks, InputFact).
func inputFact(r InputRun) report.InputRun {
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
		f.Kind, f.Production, f.OutputProblem = d.Input.Kind.String(), d.Input.Production, d.Output.Problem
		if d.Input.Kind == inputfile.Fixture {
			f.OutputMismatch = inputfile.Mismatch(d.Input.Expected, d.Output.JSON)
		}
		if o := d.Outcome; o != nil {
			f.Throw = o.Throw
			if m, err := jsprofile.Read(o.Profile); err == nil {
				f.TotalWasmInstructions = m.Meta.TotalInstructions
				f.Limits = m.Meta.Run.Limits
			}
		}
	}
	return f
}

// InputFact is one run's facts, as a row of several inputs' table has them.
func InputFact(input string, d *Done) report.InputRun {
	return inputFact(InputRun{Input: input, Done: d})
}
