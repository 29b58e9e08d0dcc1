package output

import (
	"context"
	"errors"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/view/report"
)

// An Output is one place a run's profile goes. Open readies it before
// the guest runs; Write writes the run's Result once it has ended;
// Discard releases what Open readied and Write did not use (a file not
// written leaves nothing on disk). Discard after Write does nothing.
type Output interface {
	Open(ctx context.Context, o Opening) error
	Write(ctx context.Context, r Result) error
	Discard()
}

// Named is an Output that writes files: the files it names, each with
// what it is there ("-o"), so that Open can check them against each
// other and against what the run reads.
type Named interface {
	Output
	Files() []outfile.Named
}

// A Watcher is an Output that follows the guest while it runs (the live
// server): the pipeline calls Watch once the run's profiling session is
// ready, just before the guest starts. A run that is not profiled has no
// session, and its Watchers are not called.
type Watcher interface {
	Output
	Watch(l Live) error
}

// Live is a profiled guest while it runs.
type Live interface {
	// Watchable says why the run cannot be watched (it is not
	// sampled); nil when it can.
	Watchable() error
	// Window starts a window of the run's samples now; take ends it and
	// returns the profile of what was sampled in it.
	Window() (take func() (*profile.Profile, error))
	// Done is closed once the guest has ended.
	Done() <-chan struct{}
}

// Opening is what outputs are opened with: where their files are
// created, and the files the run reads, which no output may be.
type Opening struct {
	Files *outfile.Set
	Reads []outfile.Named
}

// Result is what a run's outputs are written from.
type Result struct {
	// Profile is the run's profile; with several inputs, their profiles
	// merged (each sample labelled with its input).
	Profile *profile.Profile
	// Tables are the profile's cost tables; nil when no output asked for
	// them (the command says so: Job.ProfileOnly).
	Tables *report.Tables
	// Inputs are the table of several inputs' runs; nil for one run.
	Inputs []report.InputRun
}

// An EachWriter is an Output that takes, with several inputs, each
// input's own profile as its run ends (WriteEach: i is the input's index,
// p its profile, raw p as jsprofile.Write writes it), before Write: the
// pipeline keeps none of them, so that a run of thousands of inputs holds
// one input's profile at a time, not all. Calls never overlap.
type EachWriter interface {
	Output
	WriteEach(ctx context.Context, i int, p *profile.Profile, raw []byte) error
}

// Open opens outs in order, once the files each names are known to be
// distinct from each other and from o.Reads; on an error, those opened
// are discarded and nothing is left on disk.
func Open(ctx context.Context, outs []Output, o Opening) error {
	var files []outfile.Named
	for _, out := range outs {
		if n, ok := out.(Named); ok {
			files = append(files, n.Files()...)
		}
	}
	if err := outfile.Distinct(files, o.Reads); err != nil {
		return err
	}
	for i, out := range outs {
		if err := out.Open(ctx, o); err != nil {
			Discard(outs[:i])
			return err
		}
	}
	return nil
}

// Write writes r into every output, in order; its error joins each
// output's.
func Write(ctx context.Context, outs []Output, r Result) error {
	var errs []error
	for _, out := range outs {
		errs = append(errs, out.Write(ctx, r))
	}
	return errors.Join(errs...)
}

// WriteEach gives each EachWriter of outs input i's profile; its error
// joins each output's.
func WriteEach(ctx context.Context, outs []Output, i int, p *profile.Profile, raw []byte) error {
	var errs []error
	for _, out := range outs {
		if w, ok := out.(EachWriter); ok {
			errs = append(errs, w.WriteEach(ctx, i, p, raw))
		}
	}
	return errors.Join(errs...)
}

// Discard discards every output.
func Discard(outs []Output) {
	for _, out := range outs {
		out.Discard()
	}
}

// Watch has every Watcher of outs watch l; the first error stops it.
func Watch(outs []Output, l Live) error {
	for _, out := range outs {
		if w, ok := out.(Watcher); ok {
			if err := w.Watch(l); err != nil {
				return err
			}
		}
	}
	return nil
}
