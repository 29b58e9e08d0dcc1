package javy

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// A program's source map, found beside its JS (sourcemap.FindMap), for
// what is not a run: a saved profile (MapSaved), the HTML source view
// (MappedSources, ReportSources) and a build's compile error
// (CompileErrorAt).

// MapSaved names a saved profile's JS positions after the map of flag
// (report --source-map, diff --source-map), checked against the
// program's JS, which the profile's module carries (found beside the
// profile or in the current directory) or sources give. A profile named
// after a map already is kept as it is. It returns the profile, read
// again when named anew, the map used, and a one-line warning when the
// map was not used.
func MapSaved(ctx context.Context, p *jsprofile.Profile, flag, profilePath string, sources []SourceFile) (*jsprofile.Profile, *sourcemap.Loaded, error) {
	if flag == "" {
		return p, nil, nil
	}
	if p.Meta.SourceMap != "" {
		return p, nil, fmt.Errorf("--source-map %s: %s's positions are named after %s already", flag, profilePath, p.Meta.SourceMap)
	}
	files := map[string]bool{}
	for _, fn := range p.Function {
		if strings.HasPrefix(fn.SystemName, "js:") && fn.Filename != "" {
			files[fn.Filename] = true
		}
	}
	if len(sources) == 0 {
		sources = ProfileModuleSource(profilePath, p.Meta.Module)
	}
	prog := sourcemap.Program{Why: "give the JS with --source, or keep the profile's module beside it"}
	for _, s := range sources {
		if files[filepath.Base(s.Name)] || files[s.Name] || len(files) == 1 {
			prog = sourcemap.Program{Text: s.Text, Path: s.Name}
			break
		}
	}
	// The program's file as the profile's functions name it.
	generated := filepath.Base(prog.Path)
	for f := range files {
		if f == prog.Path || len(files) == 1 || filepath.Base(f) == filepath.Base(prog.Path) {
			generated = f
		}
	}
	l, err := sourcemap.FindMap(ctx, flag, prog)
	if l == nil {
		return p, nil, err
	}
	named := p.Profile.Copy()
	if _, err := sourcemap.Apply(named, *l, sourcemap.NewGenerated(generated, prog.Text)); err != nil {
		return p, nil, fmt.Errorf("--source-map %s: %w", flag, err)
	}
	np, err := jsprofile.Read(named)
	if err != nil {
		return p, nil, fmt.Errorf("--source-map %s: %w", flag, err)
	}
	return np, l, nil
}

// MappedSources are the original sources of a profile named after a
// source map, for the HTML source view: the map's sourcesContent where it
// has them (the map the run used, read again: a file, or the inline map of
// the program's JS in sources), else the files on disk. The profile and
// the map are untrusted: a file either names is read only as readNamed
// allows, never a file of the user's that a crafted map or profile points
// at (/home/u/.ssh/id_rsa, ../secret) into a page meant to be shared.
func MappedSources(ctx context.Context, p *profile.Profile, meta jsprofile.Meta, l *sourcemap.Loaded, sources []SourceFile) []SourceFile {
	if meta.SourceMap == "" {
		return nil
	}
	if l == nil {
		if data, err := readNamed(meta.SourceMap); err == nil {
			if m, err := sourcemap.Parse(ctx, data, filepath.Dir(meta.SourceMap)); err == nil {
				l = &sourcemap.Loaded{Map: m, From: meta.SourceMap}
			}
		}
		if l == nil {
			for _, s := range sources {
				if loaded, err := sourcemap.FromSource(ctx, s.Text, s.Name); err == nil {
					l = &loaded
					break
				}
			}
		}
	}
	seen := map[string]bool{meta.GeneratedFile: true}
	var out []SourceFile
	if l != nil {
		for _, s := range l.Map.Sources {
			if s.HasContent && !seen[s.Path] {
				seen[s.Path] = true
				out = append(out, SourceFile{Name: s.Path, Text: []byte(s.Content), From: "sourcesContent of " + l.From})
			}
		}
	}
	for _, fn := range p.Function {
		if f := fn.Filename; strings.HasPrefix(fn.SystemName, "js:") && f != "" && !seen[f] {
			seen[f] = true
			if text, err := readNamed(f); err == nil {
				out = append(out, SourceFile{Name: f, Text: text, From: f})
			}
		}
	}
	return out
}

// ReportSources are the JS files that annotate a profile's HTML report:
// given (--source, --module), or when none was asked for (fromProfile)
// the JS of the profile's module found beside profilePath; the original
// files first when the profile is named after a source map
// (MappedSources).
func ReportSources(ctx context.Context, p *jsprofile.Profile, l *sourcemap.Loaded, given []SourceFile, fromProfile bool, profilePath string) []SourceFile {
	srcs := given
	if fromProfile {
		srcs = ProfileModuleSource(profilePath, p.Meta.Module)
	}
	return append(MappedSources(ctx, p.Profile, p.Meta, l, srcs), srcs...)
}

// compiledAt is the position a plugin's compile error gives, in the file
// every program is compiled as: "at function.mjs:2:9".
var compiledAt = regexp.MustCompile(regexp.QuoteMeta(CompiledName) + `:(\d+):(\d+)`)

// CompileErrorAt names a compile error's position after the JS file
// built, and, when the file names a source map that matches it, after
// the original file, the bundle's position beside it:
// "at src/run.ts:12:5 (function.js:40:9)"; sourcemap.FindMap's warning
// beside it.
func CompileErrorAt(ctx context.Context, msg, jsPath string, src []byte) (string, error) {
	m := compiledAt.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg, nil
	}
	line, _ := strconv.Atoi(msg[m[2]:m[3]])
	col, _ := strconv.Atoi(msg[m[4]:m[5]])
	at := fmt.Sprintf("%s:%d:%d", filepath.Base(jsPath), line, col)
	l, err := sourcemap.FindMap(ctx, "", sourcemap.Program{Text: src, Path: jsPath})
	if l != nil {
		if p, ok := l.Original(sourcemap.NewGenerated(filepath.Base(jsPath), src), line, col); ok {
			at = fmt.Sprintf("%s:%d:%d (%s)", p.File, p.Line, p.Column, at)
		}
	}
	return msg[:m[0]] + at + msg[m[1]:], err
}

// readNamed reads a file a profile or a map names, for the HTML source
// view: a relative name under the current directory (where the user runs
// jsprof, and where jsprof run resolved the map's sources), a regular
// file of at most maxFoundBytes (fileio.ReadNamed).
func readNamed(name string) ([]byte, error) { return fileio.ReadNamed(".", name, maxFoundBytes) }
