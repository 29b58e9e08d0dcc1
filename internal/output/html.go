package output

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/htmlview"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// HTML is --html: the run's self-contained HTML report (its hot spots,
// tables, flame graph and annotated source), written to Path; the page
// jsprof report --html writes of the same profile. Options are the
// report's view (By, Top, Function, Source); Sources, when set, are the
// JS files the page annotates, found from the profile once it is made.
// InputCost, when set, is filled (jsprof run --input-cost) before the
// page is written, which has a section of it.
type HTML struct {
	Path      string
	Options   report.ReportOptions
	InputCost *[]report.InputCost
	Sources   func(ctx context.Context, p *jsprofile.Profile) []javy.SourceFile
	file      *outfile.File
}

// RunHTML is the HTML report of jsprof run --html: the page jsprof
// report --html writes by default, annotated with the JS the module
// (wasm, read from modulePath) carries or names, and the original files
// of its source map l (nil: none) when the profile is named after it.
// profilePath is -o's, which the page names as its source; cost is
// where --input-cost's measurements will be.
func RunHTML(path, profilePath string, wasm []byte, modulePath string, l *sourcemap.Loaded, cost *[]report.InputCost) *HTML {
	return &HTML{Path: path, Options: report.ReportOptions{By: report.ByOpcode, Source: filepath.Base(profilePath)}, InputCost: cost,
		Sources: func(ctx context.Context, p *jsprofile.Profile) []javy.SourceFile {
			var prog []javy.SourceFile
			if src, _, err := javy.ModuleFileSource(wasm, modulePath); err == nil && src != nil {
				prog = append(prog, *src)
			}
			return javy.ReportSources(ctx, p, l, prog, false, profilePath)
		}}
}

// Files names the page's file.
func (h *HTML) Files() []outfile.Named { return []outfile.Named{{What: "--html", Path: h.Path}} }

// Open creates the file.
func (h *HTML) Open(_ context.Context, o Opening) (err error) {
	h.file, err = o.Files.Create(h.Path)
	return err
}

// Write writes the page of r's profile and tables (computed from the
// profile when r has none).
func (h *HTML) Write(ctx context.Context, r Result) error {
	defer h.file.Discard()
	p, err := jsprofile.Read(r.Profile)
	if err != nil {
		return err
	}
	tables := r.Tables
	if tables == nil {
		tables = report.New(p)
	}
	rep, err := report.NewReport(tables, h.Options)
	if err != nil {
		return err
	}
	o := htmlview.ReportOptions{Flame: htmlview.NewFlame(p, htmlview.FlameOptions{Function: h.Options.Function}), InputCost: deref(h.InputCost)}
	if h.Sources != nil {
		o.Sources = h.Sources(ctx, p)
	}
	err = h.file.Commit(func(w *os.File) error { return htmlview.WriteReport(w, rep, o) })
	if err != nil && !strings.Contains(err.Error(), h.Path) {
		err = fmt.Errorf("--html %s: %w", h.Path, err)
	}
	return err
}

// Discard releases the file if it was not written.
func (h *HTML) Discard() { h.file.Discard() }
