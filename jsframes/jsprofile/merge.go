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
	var meta Meta
	copies := make([]*profile.Profile, len(ps))
	for i, p := range ps {
		jp, err := Read(p)
		if err != nil {
			return nil, fmt.Errorf("the profile of %s: %w", inputs[i], err)
		}
		m := jp.Meta
		if i == 0 {
			meta = m
			meta.TotalInstructions, meta.Duration, meta.Checked, meta.CheckFailures = 0, 0, 0, nil
			code := 0
			meta.ExitCode = &code
		} else if m.Mode != meta.Mode || m.CostModel != meta.CostModel {
			return nil, fmt.Errorf("the profile of %s: %s mode, %s cost, the first's %s, %s", inputs[i], m.Mode, m.CostModel, meta.Mode, meta.CostModel)
		}
		meta.TotalInstructions += m.TotalInstructions
		meta.Duration += m.Duration
		meta.Checked += m.Checked
		meta.CheckFailures = append(meta.CheckFailures, m.CheckFailures...)
		if m.ExitCode != nil && *m.ExitCode != 0 && *meta.ExitCode == 0 {
			*meta.ExitCode = *m.ExitCode
		}
		c := p.Copy()
		for _, s := range c.Sample {
			labels := make(map[string][]string, len(s.Label)+1)
			for k, v := range s.Label {
				labels[k] = v
			}
			labels[InputLabel] = []string{inputs[i]}
			s.Label = labels
		}
		c.Comments = nil
		copies[i] = c
	}
	meta.Trap, meta.Throw = "", nil
	meta.Run = RunInfo{Export: meta.Run.Export, Provider: meta.Run.Provider, Codec: meta.Run.Codec}
	merged, err := profile.Merge(copies)
	if err != nil {
		return nil, fmt.Errorf("merging the inputs' profiles: %w", err)
	}
	merged.Comments = meta.comments()
	merged.DurationNanos = int64(meta.Duration / time.Nanosecond)
	if _, err := Read(merged); err != nil {
		return nil, errors.Join(errors.New("the merged profile does not read back"), err)
	}
	return merged, nil
}
