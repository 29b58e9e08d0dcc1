package profiler

import (
	"errors"
	"time"

	"github.com/google/pprof/profile"
)

// Watchable says why the running guest cannot be watched
// (output.Live): it is watched through its samples.
func (s *Session) Watchable() error {
	if s.counting != nil {
		return errors.New("serving a profile needs a JS interpreter to sample: this run counts its instructions only")
	}
	if s.sampler == nil {
		return errors.New("serving a profile needs sample mode")
	}
	return nil
}

// Window starts a window of the running guest's samples; take ends it
// and returns their profile, its positions named after the program's
// source map (output.Live).
func (s *Session) Window() (take func() (*profile.Profile, error)) {
	window := s.sampler.Window()
	began := time.Now()
	return func() (*profile.Profile, error) {
		meta := s.meta(Run{Start: began})
		meta.ExitCode = nil // still running
		meta.SampleEvery = s.opts.SampleEvery
		prof, err := window(meta, s.identity())
		if err == nil {
			err = s.mapPositions(prof)
		}
		return prof, err
	}
}

// Done is closed once the guest has ended (output.Live).
func (s *Session) Done() <-chan struct{} { return s.done }
