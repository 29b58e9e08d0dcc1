package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/jsframes/htmlview"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/sourcemap"
)

// sourceMapUsage is the --source-map flag's help.
const sourceMapUsage = "name JS positions after the source map `file` (default: the one the JS's //# sourceMappingURL= comment names, inline or beside the JS)"

// program is a program's JS as jsprof has it, to find and check its map.
type program struct {
	text []byte
	// path is where the JS file is, or would be: the directory a map
	// file or an inline map's sources are relative to.
	path string
	// why says why there is no text.
	why string
}

// moduleProgram is the JS a module carries (javy_source), or that the
// file jsprof build recorded holds, beside the module; --source (source)
// names the file instead.
func moduleProgram(wasm []byte, modulePath, source string) program {
	if source != "" {
		text, err := os.ReadFile(source)
		if err != nil {
			return program{path: source, why: err.Error()}
		}
		return program{text: text, path: source}
	}
	src, note, err := htmlview.ModuleFileSource(wasm, modulePath)
	switch {
	case err != nil:
		return program{why: err.Error()}
	case src == nil:
		return program{why: note}
	}
	name := filepath.Base(src.Name)
	if src.Name == "" {
		name = "index.js" // a Javy CLI module: only the directory matters
	}
	return program{text: src.Text, path: filepath.Join(filepath.Dir(modulePath), name)}
}

// findMap is the program's source map, checked against its JS: the map
// file given (flag), else the one its sourceMappingURL comment names.
// Any map that cannot be used is said in one line on stderr, and nil
// returned: jsprof then shows the bundle's positions, never wrong ones.
// nil and nothing said when the program names no map.
func findMap(flag string, prog program, io stdio) *sourcemap.Loaded {
	var l sourcemap.Loaded
	var err error
	switch {
	case prog.text == nil && flag != "":
		warn(io, fmt.Errorf("--source-map %s: the program's JS is not at hand to check the map against (%s); showing bundle positions", flag, prog.why))
		return nil
	case prog.text == nil:
		return nil
	case flag != "":
		l, err = sourcemap.FromFile(flag)
	default:
		l, err = sourcemap.FromSource(prog.text, prog.path)
		if errors.Is(err, sourcemap.ErrNoURL) {
			return nil
		}
	}
	if err == nil {
		err = l.Check(sourcemap.NewGenerated(filepath.Base(prog.path), prog.text))
	}
	if err != nil {
		warn(io, fmt.Errorf("source map: %s; showing bundle positions", printable.String(profiler.FirstLine(err.Error()))))
		return nil
	}
	return &l
}

// mapSaved names a saved profile's JS positions after the map of flag
// (report --source-map, diff --source-map), checked against the
// program's JS, which the profile's module carries (found beside the
// profile or in the current directory) or sources give. A profile named
// after a map already is kept as it is; a map that cannot be used is
// said in one line. It returns the profile, read again when named anew,
// and the map used.
func mapSaved(p *jsprofile.Profile, flag, profilePath string, sources []htmlview.SourceFile, io stdio) (*jsprofile.Profile, *sourcemap.Loaded) {
	if flag == "" {
		return p, nil
	}
	if p.Meta.SourceMap != "" {
		warn(io, fmt.Errorf("--source-map %s: %s's positions are named after %s already", flag, profilePath, p.Meta.SourceMap))
		return p, nil
	}
	files := map[string]bool{}
	for _, fn := range p.Function {
		if strings.HasPrefix(fn.SystemName, "js:") && fn.Filename != "" {
			files[fn.Filename] = true
		}
	}
	if len(sources) == 0 {
		sources = htmlview.ProfileModuleSource(profilePath, p.Meta.Module)
	}
	var prog program
	prog.why = "give the JS with --source, or keep the profile's module beside it"
	for _, s := range sources {
		if files[filepath.Base(s.Name)] || files[s.Name] || len(files) == 1 {
			prog = program{text: s.Text, path: s.Name}
			break
		}
	}
	// The program's file as the profile's functions name it.
	generated := filepath.Base(prog.path)
	for f := range files {
		if f == prog.path || len(files) == 1 || filepath.Base(f) == filepath.Base(prog.path) {
			generated = f
		}
	}
	l := findMap(flag, prog, io)
	if l == nil {
		return p, nil
	}
	named := p.Profile.Copy()
	if _, err := sourcemap.Apply(named, *l, sourcemap.NewGenerated(generated, prog.text)); err != nil {
		warn(io, fmt.Errorf("--source-map %s: %w", flag, err))
		return p, nil
	}
	np, err := jsprofile.Read(named)
	if err != nil {
		warn(io, fmt.Errorf("--source-map %s: %w", flag, err))
		return p, nil
	}
	return np, l
}

// mappedSources are the original sources of a profile named after a
// source map, for the HTML source view: the map's sourcesContent where it
// has them (the map the run used, read again: a file, or the inline map of
// the program's JS in sources), else the files on disk.
func mappedSources(p *profile.Profile, meta jsprofile.Meta, l *sourcemap.Loaded, sources []htmlview.SourceFile) []htmlview.SourceFile {
	if meta.SourceMap == "" {
		return nil
	}
	if l == nil {
		if loaded, err := sourcemap.FromFile(meta.SourceMap); err == nil {
			l = &loaded
		} else {
			for _, s := range sources {
				if loaded, err := sourcemap.FromSource(s.Text, s.Name); err == nil {
					l = &loaded
					break
				}
			}
		}
	}
	seen := map[string]bool{meta.GeneratedFile: true}
	var out []htmlview.SourceFile
	if l != nil {
		for _, s := range l.Map.Sources {
			if s.HasContent && !seen[s.Path] {
				seen[s.Path] = true
				out = append(out, htmlview.SourceFile{Name: s.Path, Text: []byte(s.Content), From: "sourcesContent of " + l.From})
			}
		}
	}
	for _, fn := range p.Function {
		if f := fn.Filename; strings.HasPrefix(fn.SystemName, "js:") && f != "" && !seen[f] {
			seen[f] = true
			if text, err := os.ReadFile(f); err == nil {
				out = append(out, htmlview.SourceFile{Name: f, Text: text, From: f})
			}
		}
	}
	return out
}
