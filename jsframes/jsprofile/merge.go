package jsprofile

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/pprof/profile"
)

// InputLabel is the sample label a merged profile names each sample's
// input by (Merge): pprof -tagfocus=input=cart.json keeps one input's.
const InputLabel = "input"

// Merge merges profiles of one module run on several inputs, the
// profile of inputs[i] being ps[i], into one: each sample labelled with
// its input (InputLabel), identical stacks of one input merged. Its
// Meta is the first profile's, with the total (the merged samples' sum
// in exact mode), the duration and the self-check summed, the exit code
// the first that is not 0, and what only one run has — a trap, a throw,
// the sizes and limits of a function's input and output — left out: the
// per-input profiles and their report have those.
func Merge(ps []*profile.Profile, inputs []string) (*profile.Profile, error) {
	if len(ps) == 0 || len(ps) != len(inputs) {
		return nil, fmt.Errorf("merging %d profiles of %d inputs", len(ps), len(inputs))
	}
	var m Merger
	for i, p := range ps {
		if err := m.Add(p, inputs[i]); err != nil {
			return nil, err
		}
	}
	return m.Profile()
}

// mergeBatch is how many profiles a Merger holds before merging them
// into what it has merged: each merge costs the size of the merged
// profile, so merging one at a time would cost the square of the inputs.
const mergeBatch = 64

// A Merger merges profiles of one module run on several inputs, given in
// the inputs' order, as Merge does, holding what it has merged and at
// most a batch of the profiles given: the profiles themselves need not
// all be held at once. Its zero value is ready to use.
type Merger struct {
	meta    Meta
	n       int
	merged  *profile.Profile
	pending []*profile.Profile
}

// Add merges p, the profile of input (the next in the inputs' order).
func (m *Merger) Add(p *profile.Profile, input string) error {
	jp, err := Read(p)
	if err != nil {
		return fmt.Errorf("the profile of %s: %w", input, err)
	}
	meta := jp.Meta
	if m.n == 0 {
		m.meta = meta
		m.meta.TotalInstructions, m.meta.Duration, m.meta.Checked, m.meta.CheckFailures = 0, 0, 0, nil
		code := 0
		m.meta.ExitCode = &code
	} else if meta.Mode != m.meta.Mode || meta.CostModel != m.meta.CostModel {
		return fmt.Errorf("the profile of %s: %s mode, %s cost, the first's %s, %s", input, meta.Mode, meta.CostModel, m.meta.Mode, m.meta.CostModel)
	}
	m.n++
	m.meta.TotalInstructions += meta.TotalInstructions
	m.meta.Duration += meta.Duration
	m.meta.Checked += meta.Checked
	m.meta.CheckFailures = append(m.meta.CheckFailures, meta.CheckFailures...)
	if meta.ExitCode != nil && *meta.ExitCode != 0 && *m.meta.ExitCode == 0 {
		*m.meta.ExitCode = *meta.ExitCode
	}
	c := p.Copy()
	for _, s := range c.Sample {
		labels := make(map[string][]string, len(s.Label)+1)
		for k, v := range s.Label {
			labels[k] = v
		}
		labels[InputLabel] = []string{input}
		s.Label = labels
	}
	c.Comments = nil
	m.pending = append(m.pending, c)
	if len(m.pending) >= mergeBatch {
		return m.flush()
	}
	return nil
}

// flush merges the pending profiles into what has been merged.
func (m *Merger) flush() error {
	if len(m.pending) == 0 {
		return nil
	}
	ps := m.pending
	if m.merged != nil {
		ps = append([]*profile.Profile{m.merged}, ps...)
	}
	merged, err := profile.Merge(ps)
	if err != nil {
		return fmt.Errorf("merging the inputs' profiles: %w", err)
	}
	m.merged, m.pending = merged, nil
	return nil
}

// Profile is the profiles added, merged; an error when none was.
func (m *Merger) Profile() (*profile.Profile, error) {
	if m.n == 0 {
		return nil, errors.New("merging no profile")
	}
	if err := m.flush(); err != nil {
		return nil, err
	}
	meta := m.meta
	meta.Trap, meta.Throw = "", nil
	meta.Run = RunInfo{Export: meta.Run.Export, Provider: meta.Run.Provider, Codec: meta.Run.Codec}
	merged := m.merged
	merged.Comments = meta.comments()
	merged.DurationNanos = int64(meta.Duration / time.Nanosecond)
	if _, err := Read(merged); err != nil {
		return nil, errors.Join(errors.New("the merged profile does not read back"), err)
	}
	return merged, nil
}
