package sourcemap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/printable"
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

// FindMap is the program's source map, checked against its JS: the map
// file given (flag, --source-map), else the one its sourceMappingURL
// comment names. A map that cannot be used is nil with a one-line
// warning: the caller then shows the bundle's positions, never wrong
// ones. nil and no warning when the program names no map. When ctx is
// done first (the user's signal), reading and checking the map is
// abandoned part-way: nil and no warning (the caller says the signal).
func FindMap(ctx context.Context, flag string, prog Program) (*Loaded, error) {
	var l Loaded
	var err error
	switch {
	case prog.Text == nil && flag != "":
		return nil, fmt.Errorf("--source-map %s: the program's JS is not at hand to check the map against (%s); showing bundle positions", flag, prog.Why)
	case prog.Text == nil:
		return nil, nil
	case flag != "":
		l, err = FromFile(ctx, flag)
	default:
		l, err = FromSource(ctx, prog.Text, prog.Path)
		if errors.Is(err, ErrNoURL) {
			return nil, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			// Say where it was looked for and how to give it.
			return nil, fmt.Errorf("source map: %s (named by %s) is not in %s: give the bundle with --source FILE, or the map with --source-map FILE; showing bundle positions",
				printable.Name(URL(prog.Text)), printable.Name(filepath.Base(prog.Path)), printable.Name(filepath.Dir(prog.Path)+string(filepath.Separator)))
		}
	}
	if err == nil {
		err = l.Check(ctx, NewGenerated(filepath.Base(prog.Path), prog.Text))
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("source map: %s; showing bundle positions", cli.FirstLine(err.Error()))
	}
	return &l, nil
}
