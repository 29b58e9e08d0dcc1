package inputcost

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Defaults of Options.
const (
	// DefaultMaxPaths bounds the runs of one input: its top-level paths,
	// then the largest others, at most this many in all.
	DefaultMaxPaths = 40
	// DefaultMinShare is the share of the input's bytes under which a
	// path (other than a top-level one) is not measured.
	DefaultMinShare = 0.01
)

// Options choose which paths Measure measures.
type Options struct {
	MaxPaths int     // 0: DefaultMaxPaths
	MinShare float64 // 0: DefaultMinShare
	// Query, when set, names the input query's field of a path
	// (PathCost.Query; "" when it has none): the hook for an app's
	// src/*.graphql (QueryFields makes one from a field mapping).
	Query func(Path) string
	// QueryFile, when set and Query is not, is the input query read for
	// Query (ReadQuery).
	QueryFile string
}

// Measure runs the prepared function p on each input, then on the same
// input without each of its field paths (Options choose which), all in
// parallel on p (Prepared.RunInputs), and says for each input what each
// removal saved in the input-decoding phase as the profile reports it,
// and whether the output changed. An input that is not JSON, or whose
// run makes no profile, has its Error set; an error is one of the
// temporary files the inputs without a path are written to.
func Measure(ctx context.Context, p *profiler.Prepared, inputs []string, o Options) ([]report.InputCost, error) {
	o.MaxPaths = cmp.Or(o.MaxPaths, DefaultMaxPaths)
	o.MinShare = cmp.Or(o.MinShare, DefaultMinShare)
	if o.QueryFile != "" && o.Query == nil {
		fields, err := ReadQuery(o.QueryFile)
		if err != nil {
			return nil, err
		}
		o.Query = QueryFields(fields)
	}
	dir, err := os.MkdirTemp("", "jsprof-input-cost-")
	if err != nil {
		return nil, fmt.Errorf("--input-cost: %w", err)
	}
	defer os.RemoveAll(dir)
	costs := make([]report.InputCost, len(inputs))
	type run struct {
		input int
		path  int // -1: the whole input
	}
	var files []string
	var runs []run
	for i, in := range inputs {
		costs[i] = report.InputCost{Input: in, MinShare: o.MinShare, Limit: shopify.InstructionLimit}
		b, err := shopify.ReadInput(in)
		var root *node
		if err == nil {
			root, err = parse(b)
		}
		if err != nil {
			costs[i].Error = fmt.Errorf("%s: %w", in, err).Error()
			continue
		}
		c := &costs[i]
		c.InputBytes = uint64(len(b))
		chosen := choose(paths(root), len(b), o, c)
		files, runs = append(files, in), append(runs, run{i, -1})
		for j, f := range chosen {
			without := remove(b, root, f.path)
			name := filepath.Join(dir, strconv.Itoa(i)+"-"+strconv.Itoa(j)+".json")
			if err := os.WriteFile(name, without, 0o600); err != nil {
				return nil, fmt.Errorf("--input-cost: %w", err)
			}
			pc := report.PathCost{Path: f.path.String(), TopLevel: len(f.path) == 1, Bytes: uint64(len(b) - len(without))}
			if o.Query != nil {
				pc.Query = o.Query(f.path)
			}
			c.Paths = append(c.Paths, pc)
			files, runs = append(files, name), append(runs, run{i, j})
		}
	}
	type measured struct {
		decoding, total uint64
		output          []byte
		failed          bool
		err             string
	}
	got := make([]measured, len(files))
	p.RunInputs(ctx, files, 0, func(k int, r profiler.InputRun) {
		m := measured{output: r.Output}
		switch {
		case r.Err != nil:
			m.err, m.failed = cli.FirstLine(r.Err.Error()), true
		case r.Done.Outcome == nil || r.Done.Outcome.Tables == nil:
			m.err = "the run made no profile to read its input decoding from"
		default:
			out := r.Done.Outcome
			m.total, m.failed = out.Tables.TotalWasmInstructions, r.Done.ExitCode != 0 || out.Throw != nil
			for _, ph := range out.Tables.Phases {
				if ph.Name == jsprofile.PhaseInput {
					m.decoding = ph.WasmInstructions
				}
			}
			if l := out.Tables.Run.Limits; l != nil && l.Instructions > 0 {
				costs[runs[k].input].Limit = l.Instructions
			}
		}
		got[k] = m
	})
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	var base measured
	for k, r := range runs {
		c, m := &costs[r.input], got[k]
		if r.path < 0 {
			base = m
			c.Decoding, c.Total, c.Failed, c.Error = m.decoding, m.total, m.failed, m.err
			if m.err != "" {
				c.Error = "the run on the whole input: " + m.err
			}
			continue
		}
		pc := &c.Paths[r.path]
		switch {
		case base.err != "" && !base.failed:
			pc.Error = base.err
			continue
		case m.err != "" && !m.failed:
			pc.Error = m.err
			continue
		case m.failed && !base.failed:
			pc.Output = report.OutputFailed
		case m.failed == base.failed && bytes.Equal(m.output, base.output):
			pc.Output = report.OutputUnchanged
		default:
			pc.Output = report.OutputChanged
		}
		pc.Saved, pc.TotalSaved = int64(base.decoding)-int64(m.decoding), int64(base.total)-int64(m.total)
		if base.decoding > 0 {
			pc.OfDecoding = float64(pc.Saved) / float64(base.decoding)
		}
		pc.OfLimit = float64(pc.Saved) / float64(c.Limit)
		if pc.TopLevel {
			c.TopLevel += pc.Saved
		}
	}
	for i := range costs {
		slices.SortStableFunc(costs[i].Paths, func(a, b report.PathCost) int { return cmp.Compare(b.Saved, a.Saved) })
	}
	return costs, nil
}

// choose picks the paths of an input of n bytes to measure: every
// top-level path, then the others holding at least o.MinShare of its
// bytes, the largest first, o.MaxPaths in all; c counts those left out.
func choose(all []found, n int, o Options, c *report.InputCost) []found {
	var top, rest []found
	for _, f := range all {
		switch {
		case len(f.path) == 1:
			top = append(top, f)
		case float64(f.bytes) >= o.MinShare*float64(n):
			rest = append(rest, f)
		default:
			c.Small++
		}
	}
	slices.SortStableFunc(rest, func(a, b found) int { return cmp.Compare(b.bytes, a.bytes) })
	chosen := append(top, rest...)
	if len(chosen) > o.MaxPaths {
		c.LeftOut = len(chosen) - o.MaxPaths
		chosen = chosen[:o.MaxPaths]
	}
	return chosen
}
