package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/cachedir"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// Comparison is the same JS built with two plugins (the base, then the
// new) and each module run alike, in exact mode, through
// profiler.Execute (jsprof compare).
type Comparison struct {
	SourcePath string    // the JS file
	Plugins    [2]string // the base's and the new's
	// Function builds a Shopify Function (dynamic, run with the plugin as
	// its provider), Input then its JSON input (--input).
	Function bool
	// Input is the file the guests are given as stdin (a function's
	// input, else --stdin); "": none, an empty stdin.
	Input string
	// SourceMap is the map file given (--source-map): sourcemap.FindMap
	// finds the JS's map, checked against it, and names both profiles'
	// JS positions after the files it was bundled from
	// (profiler.Options.SourceMap); a map that cannot be used is a
	// warning.
	SourceMap string
	Args      []string
	Cost      wasmcore.CostModel
	Timeout   time.Duration
	Cache     cachedir.Cache
	Stderr    io.Writer // the guests'
	Warn      func(error)
	// Run runs a side's job: profiler.Execute when nil (a test gives
	// another).
	Run Runner
	// OutDir, when set, is made, and each side once it has run is kept
	// there (base.wasm, base.pb.gz, base.stdout, new.…), written in Files:
	// created before anything is built, none of them a file the
	// comparison reads (the JS, its map, the plugins, the input) or one of
	// Outputs, the command's other outputs (--html), which may not be a
	// file it reads either.
	OutDir  string
	Files   *outfile.Set
	Outputs []outfile.Named
}

// Runner runs a job as profiler.Execute does.
type Runner func(context.Context, profiler.Job) (*profiler.Done, error)

// Side is one engine's build and run: its tables are the ones Finish
// built (Done.Outcome.Tables), not built again.
type Side struct {
	Label      string // "base" or "new"
	PluginPath string
	Module     []byte
	Stdout     bytes.Buffer
	Done       *profiler.Done
}

// Compare builds both modules, then runs them one after the other; a
// context done after the first stops before the second (the error is then
// ctx's cause). Errors name the JS file and the plugin.
func Compare(ctx context.Context, c Comparison) ([2]*Side, error) {
	sides := [2]*Side{{Label: "base", PluginPath: c.Plugins[0]}, {Label: "new", PluginPath: c.Plugins[1]}}
	src, smap, stdin, err := c.read(ctx)
	if err != nil {
		return sides, err
	}
	kept, err := c.keeping()
	if err != nil {
		return sides, err
	}
	defer func() {
		for _, f := range kept {
			f.Discard()
		}
	}()
	c.Cache = c.Cache.Trusted() // said once, here, not again by each run
	cache, err := c.Cache.Open()
	if err != nil {
		return sides, err
	}
	for _, s := range sides {
		plugin, err := link.LoadPlugin(s.PluginPath)
		if err != nil {
			return sides, err
		}
		if s.Module, err = javy.BuildJS(ctx, plugin.Info, plugin.Wasm, plugin.Module, src, c.Function, cache); err != nil {
			if be := (*javy.BuildError)(nil); errors.As(err, &be) {
				return sides, fmt.Errorf("%s %s with %s: %w", be.Step, c.SourcePath, s.PluginPath, be.Err)
			}
			return sides, fmt.Errorf("%s (with %s): %w", c.SourcePath, s.PluginPath, err)
		}
	}
	run := c.Run
	if run == nil {
		run = profiler.Execute
	}
	for _, s := range sides {
		// A Shopify Function is linked with its provider, the plugin it
		// was built against, as jsprof run links it.
		s.Done, err = run(ctx, profiler.Job{Module: s.Module, Plugins: []string{s.PluginPath},
			Guest: runner.Options{Name: s.Label + ".wasm", Args: c.Args, Stdin: bytes.NewReader(stdin), Stdout: &s.Stdout, Stderr: c.Stderr, Cache: cache},
			// Named after the user's file, as jsprof build names a module's.
			Profile: profiler.Options{Mode: profiler.Exact, Cost: c.Cost, Warn: c.Warn, SourceMap: smap, GeneratedText: src,
				Source: filepath.Base(c.SourcePath)},
			NeedProfile: true, Timeout: c.Timeout, Cache: c.Cache,
			Hooks: profiler.Hooks{OutputError: c.Warn},
		})
		if err != nil {
			return sides, fmt.Errorf("running %s built with %s: %w", c.SourcePath, s.PluginPath, err)
		}
		if p := s.Done.Output.Problem; p != "" && c.Warn != nil {
			c.Warn(fmt.Errorf("%s built with %s: %s", c.SourcePath, s.PluginPath, p))
		}
		if kept != nil {
			if err := s.keep(kept); err != nil {
				return sides, fmt.Errorf("--out-dir: %w", err)
			}
		}
		if ctx.Err() != nil {
			// Interrupted: what was kept is kept; the other side is not run.
			return sides, context.Cause(ctx)
		}
	}
	return sides, nil
}

// read reads what the comparison is given, before anything is built: the
// JS, its map (a map that cannot be used is said, c.Warn, and not used),
// and the guests' stdin; and makes the OutDir.
func (c Comparison) read(ctx context.Context) (src []byte, smap *sourcemap.Loaded, stdin []byte, err error) {
	if src, err = os.ReadFile(c.SourcePath); err != nil {
		return nil, nil, nil, err
	}
	if smap, err = sourcemap.FindMap(ctx, c.SourceMap, sourcemap.Program{Text: src, Path: c.SourcePath}); err != nil {
		c.Warn(err)
	}
	if c.Input != "" {
		flag := "--stdin"
		if c.Function {
			flag = "--input"
		}
		if c.Function {
			stdin, err = shopify.ReadInput(c.Input)
		} else if stdin, err = fileio.ReadRegular(c.Input, shopify.MaxInputBytes); err != nil {
			err = fmt.Errorf("%s: %w", flag, err)
		}
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if c.OutDir != "" {
		if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
			return nil, nil, nil, fmt.Errorf("--out-dir: %w", err)
		}
	}
	return src, smap, stdin, nil
}

// keptExts are the files OutDir keeps of a side, by their extension.
func keptExts() []string { return []string{".wasm", ".pb.gz", ".stdout"} }

// keeping checks the comparison's outputs against what it reads, and
// creates, in Files, the files OutDir keeps (nil without OutDir), by
// their name there (base.wasm, …).
func (c Comparison) keeping() (map[string]*outfile.File, error) {
	reads := []outfile.Named{{What: "the JS file", Path: c.SourcePath}, {What: "the --source-map", Path: c.SourceMap},
		{What: "the base --plugin", Path: c.Plugins[0]}, {What: "the new --plugin", Path: c.Plugins[1]}, {What: "the guests' input", Path: c.Input}}
	outs := c.Outputs
	if c.OutDir != "" {
		for _, label := range []string{"base", "new"} {
			for _, ext := range keptExts() {
				outs = append(outs, outfile.Named{What: "--out-dir", Path: filepath.Join(c.OutDir, label+ext)})
			}
		}
	}
	if err := outfile.Distinct(outs, reads); err != nil || c.OutDir == "" {
		return nil, err
	}
	kept := map[string]*outfile.File{}
	for _, o := range outs[len(c.Outputs):] {
		f, err := c.Files.Create(o.Path)
		if err != nil {
			for _, f := range kept {
				f.Discard()
			}
			return nil, fmt.Errorf("--out-dir: %w", err)
		}
		kept[filepath.Base(o.Path)] = f
	}
	return kept, nil
}

// keep writes the side's module, profile and output into their files of
// kept (Comparison.keeping).
func (s *Side) keep(kept map[string]*outfile.File) error {
	content := map[string]func(w *os.File) error{
		".wasm":   func(w *os.File) error { _, err := w.Write(s.Module); return err },
		".pb.gz":  func(w *os.File) error { return jsprofile.Write(w, s.Done.Outcome.Profile) },
		".stdout": func(w *os.File) error { _, err := w.Write(s.Stdout.Bytes()); return err },
	}
	for _, ext := range keptExts() {
		if err := kept[s.Label+ext].Commit(content[ext]); err != nil {
			return err
		}
	}
	return nil
}

// TimedOut says which sides their timeout stopped ("the base was
// stopped"), as their profiles record it; "" when none.
func TimedOut(sides [2]*Side) string {
	b := strings.HasPrefix(sides[0].Done.Outcome.Tables.Trap, profiler.TimeoutPrefix)
	n := strings.HasPrefix(sides[1].Done.Outcome.Tables.Trap, profiler.TimeoutPrefix)
	switch {
	case b && n:
		return "both guests were stopped"
	case b:
		return "the base was stopped"
	case n:
		return "the new was stopped"
	}
	return ""
}

// Mismatch says how the two sides' guests behaved differently, "" when
// they printed the same and exited alike.
func Mismatch(sides [2]*Side) string {
	base, new := sides[0], sides[1]
	var why []string
	if base.Done.ExitCode != new.Done.ExitCode {
		why = append(why, fmt.Sprintf("the base exited with %d, the new with %d", base.Done.ExitCode, new.Done.ExitCode))
	}
	if !bytes.Equal(base.Stdout.Bytes(), new.Stdout.Bytes()) {
		b := strings.Split(base.Stdout.String(), "\n")
		n := strings.Split(new.Stdout.String(), "\n")
		i := 0
		for i < len(b) && i < len(n) && b[i] == n[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return fmt.Sprintf("%q", l[i])
			}
			return "nothing"
		}
		why = append(why, fmt.Sprintf("the outputs differ from line %d: the base printed %s, the new %s", i+1, line(b), line(n)))
	}
	return strings.Join(why, "; ")
}

// LineCount reads "1 line", "12 lines", "no output".
func LineCount(b []byte) string {
	if len(b) == 0 {
		return "no output"
	}
	n := bytes.Count(b, []byte("\n"))
	if b[len(b)-1] != '\n' {
		n++
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// Profiles are both sides' profiles, as jsprof diff reads saved ones
// (their flame graphs: jsprof compare --html).
func Profiles(sides [2]*Side) ([2]*jsprofile.Profile, error) {
	var out [2]*jsprofile.Profile
	for i, s := range sides {
		p, err := jsprofile.Read(s.Done.Outcome.Profile)
		if err != nil {
			return out, fmt.Errorf("the %s profile: %w", s.Label, err)
		}
		out[i] = p
	}
	return out, nil
}
