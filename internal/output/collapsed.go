package output

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Collapsed is --collapsed: the run's stacks in collapsed format
// (WriteCollapsed), counting Wasm instructions, written to Path.
type Collapsed struct {
	Path string
	file *outfile.File
}

// Files names the stacks' file.
func (c *Collapsed) Files() []outfile.Named {
	return []outfile.Named{{What: "--collapsed", Path: c.Path}}
}

// Open creates the file.
func (c *Collapsed) Open(_ context.Context, o Opening) (err error) {
	c.file, err = o.Files.Create(c.Path)
	return err
}

// Write writes r's stacks.
func (c *Collapsed) Write(_ context.Context, r Result) error {
	return c.file.Commit(func(w *os.File) error { return WriteCollapsed(w, r.Profile, jsprofile.ValueInstructions) })
}

// Discard releases the file if it was not written.
func (c *Collapsed) Discard() { c.file.Discard() }

// WriteCollapsed writes p's stacks in the collapsed-stack format of
// flamegraph.pl and speedscope: "root;...;leaf count" per line, counting
// sample value index; stacks that read the same are merged, and sorted for
// stable output. The format has no escapes: a ';' in a name becomes ':',
// and line breaks (U+0085, U+2028 and U+2029 too), other control
// characters and bidirectional controls become spaces
// (printable.String), so that every stack stays one line and reads as it
// is.
func WriteCollapsed(w io.Writer, p *profile.Profile, index int) error {
	counts := map[string]int64{}
	for _, s := range p.Sample {
		if index >= len(s.Value) || s.Value[index] == 0 {
			continue
		}
		names := make([]string, 0, len(s.Location))
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			for j := len(loc.Line) - 1; j >= 0; j-- {
				ln := loc.Line[j]
				if ln.Function == nil {
					continue
				}
				name := ln.Function.Name
				if ln.Function.Filename != "" && ln.Line > 0 {
					name = fmt.Sprintf("%s (%s:%d)", name, ln.Function.Filename, ln.Line)
				}
				names = append(names, printable.String(strings.ReplaceAll(name, ";", ":")))
			}
		}
		counts[strings.Join(names, ";")] += s.Value[index]
	}
	stacks := make([]string, 0, len(counts))
	for k := range counts {
		stacks = append(stacks, k)
	}
	sort.Strings(stacks)
	for _, k := range stacks {
		if _, err := fmt.Fprintf(w, "%s %d\n", k, counts[k]); err != nil {
			return err
		}
	}
	return nil
}
