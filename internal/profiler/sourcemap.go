package profiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/htmlview"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Program is a program's JS as jsprof has it, to find and check its map.
type Program struct {
	Text []byte
	// Path is where the JS file is, or would be: the directory a map
	// file or an inline map's sources are relative to.
	Path string
	// Why says why there is no text.
	Why string
}

// ModuleProgram is the JS a module carries (javy_source), or that the
// file jsprof build recorded holds, beside the module; source (--source)
// names the file instead.
func ModuleProgram(wasm []byte, modulePath, source string) Program {
	if source != "" {
		text, err := os.ReadFile(source)
		if err != nil {
			return Program{Path: source, Why: err.Error()}
		}
		return Program{Text: text, Path: source}
	}
	src, note, err := htmlview.ModuleFileSource(wasm, modulePath)
	switch {
	case err != nil:
		return Program{Why: err.Error()}
	case src == nil:
		return Program{Why: note}
	}
	name := filepath.Base(src.Name)
	if src.Name == "" {
		name = "index.js" // a Javy CLI module: only the directory matters
	}
	return Program{Text: src.Text, Path: filepath.Join(filepath.Dir(modulePath), name)}
}

// FindMap is the program's source map, checked against its JS: the map
// file given (flag, --source-map), else the one its sourceMappingURL
// comment names. A map that cannot be used is nil with a one-line
// warning: the caller then shows the bundle's positions, never wrong
// ones. nil and no warning when the program names no map.
func FindMap(flag string, prog Program) (*sourcemap.Loaded, error) {
	var l sourcemap.Loaded
	var err error
	switch {
	case prog.Text == nil && flag != "":
		return nil, fmt.Errorf("--source-map %s: the program's JS is not at hand to check the map against (%s); showing bundle positions", flag, prog.Why)
	case prog.Text == nil:
		return nil, nil
	case flag != "":
		l, err = sourcemap.FromFile(flag)
	default:
		l, err = sourcemap.FromSource(prog.Text, prog.Path)
		if errors.Is(err, sourcemap.ErrNoURL) {
			return nil, nil
		}
	}
	if err == nil {
		err = l.Check(sourcemap.NewGenerated(filepath.Base(prog.Path), prog.Text))
	}
	if err != nil {
		return nil, fmt.Errorf("source map: %s; showing bundle positions", printable.String(cli.FirstLine(err.Error())))
	}
	return &l, nil
}

// ReadProgram reads the job's module file into Module and Decoded, and
// its program's JS and source map (ModuleProgram, FindMap with the map
// file given, --source-map) into Profile, before the run: a map that
// cannot be used is said before the guest runs, not after. The error is
// FindMap's warning; a module that cannot be read is left to Execute to
// say.
func (j *Job) ReadProgram(sourceMap string) error {
	wasm, decoded, err := ReadModule(j.ModulePath)
	if err != nil {
		return nil
	}
	j.Module, j.Decoded = wasm, decoded
	prog := ModuleProgram(wasm, j.ModulePath, j.Profile.Source)
	j.Profile.GeneratedText = prog.Text
	j.Profile.SourceMap, err = FindMap(sourceMap, prog)
	return err
}

// MapSaved names a saved profile's JS positions after the map of flag
// (report --source-map, diff --source-map), checked against the
// program's JS, which the profile's module carries (found beside the
// profile or in the current directory) or sources give. A profile named
// after a map already is kept as it is. It returns the profile, read
// again when named anew, the map used, and a one-line warning when the
// map was not used.
func MapSaved(p *jsprofile.Profile, flag, profilePath string, sources []htmlview.SourceFile) (*jsprofile.Profile, *sourcemap.Loaded, error) {
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
		sources = htmlview.ProfileModuleSource(profilePath, p.Meta.Module)
	}
	prog := Program{Why: "give the JS with --source, or keep the profile's module beside it"}
	for _, s := range sources {
		if files[filepath.Base(s.Name)] || files[s.Name] || len(files) == 1 {
			prog = Program{Text: s.Text, Path: s.Name}
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
	l, err := FindMap(flag, prog)
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
// the program's JS in sources), else the files on disk.
func MappedSources(p *profile.Profile, meta jsprofile.Meta, l *sourcemap.Loaded, sources []htmlview.SourceFile) []htmlview.SourceFile {
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

// ReportSources are the JS files that annotate a profile's HTML report
// (d, its tables): given (--source, --module), or when none was asked for
// (fromProfile) the JS of the profile's module found beside profilePath;
// the original files first when the profile is named after a source map
// (MappedSources). left are those that name no JS file of the profile,
// but the bundle, all of whose lines the map named after other files.
func ReportSources(p *jsprofile.Profile, d *report.Tables, l *sourcemap.Loaded, given []htmlview.SourceFile, fromProfile bool, profilePath string) (srcs, left []htmlview.SourceFile) {
	srcs = given
	if fromProfile {
		srcs = htmlview.ProfileModuleSource(profilePath, p.Meta.Module)
	}
	srcs = append(MappedSources(p.Profile, p.Meta, l, srcs), srcs...)
	_, unmatched := htmlview.MatchSources(d, srcs)
	for _, s := range unmatched {
		if p.Meta.SourceMap == "" || filepath.Base(s.Name) != filepath.Base(p.Meta.GeneratedFile) {
			left = append(left, s)
		}
	}
	return srcs, left
}

// compiledAt is the position a plugin's compile error gives, in the file
// every program is compiled as: "at function.mjs:2:9".
var compiledAt = regexp.MustCompile(regexp.QuoteMeta(javy.CompiledName) + `:(\d+):(\d+)`)

// CompileErrorAt names a compile error's position after the JS file
// built, and, when the file names a source map that matches it, after
// the original file, the bundle's position beside it:
// "at src/run.ts:12:5 (function.js:40:9)"; FindMap's warning beside it.
func CompileErrorAt(msg, jsPath string, src []byte) (string, error) {
	m := compiledAt.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg, nil
	}
	line, _ := strconv.Atoi(msg[m[2]:m[3]])
	col, _ := strconv.Atoi(msg[m[4]:m[5]])
	at := fmt.Sprintf("%s:%d:%d", filepath.Base(jsPath), line, col)
	l, err := FindMap("", Program{Text: src, Path: jsPath})
	if l != nil {
		if p, ok := l.Original(sourcemap.NewGenerated(filepath.Base(jsPath), src), line, col); ok {
			at = fmt.Sprintf("%s:%d:%d (%s)", p.File, p.Line, p.Column, at)
		}
	}
	return msg[:m[0]] + at + msg[m[1]:], err
}
