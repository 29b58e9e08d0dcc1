package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layoutRows returns the paths README.md's "Layout" table names, in order.
func layoutRows(readme string) []string {
	_, table, _ := strings.Cut(readme, "\n## Layout\n")
	table, _, _ = strings.Cut(table, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)`")
	var paths []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		paths = append(paths, m[1])
	}
	return paths
}

// goPackages returns the folders of the repository's Go packages that
// hold code of jsprof's own: every folder with a non-test .go file, but
// fixtures (test programs and data, described by fixtures' own row) and
// the generators under an internal/gen, which belong to their parent.
func goPackages(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || rel == "fixtures" || strings.HasSuffix(rel, "internal/gen")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(rel))
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return dirs
}

// TestLayoutMatchesTree holds README.md's layout table to the tree: every
// package of jsprof's own has a row and a doc.go, and every row names a
// folder that exists. A newcomer reads the stages from that table.
func TestLayoutMatchesTree(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	rows := layoutRows(string(readme))
	require.NotEmpty(t, rows, "README.md has a Layout table")

	for _, dir := range goPackages(t, root) {
		assert.Contains(t, rows, dir, "package %s has a row in README.md's Layout table", dir)
		assert.FileExists(t, filepath.Join(root, dir, "doc.go"), "package %s says what it owns in a doc.go", dir)
	}
	for _, row := range rows {
		for _, path := range strings.Split(row, ", ") {
			assert.DirExists(t, filepath.Join(root, path), "README.md's Layout row %q", row)
		}
	}
}

// TestLayoutCheckBites is the negative control of TestLayoutMatchesTree:
// a table without a package's row, or with a row for no folder, is seen.
func TestLayoutCheckBites(t *testing.T) {
	t.Parallel()
	readme := "# x\n\n## Layout\n\n| path | owns |\n|---|---|\n| `cmd/jsprof` | the command |\n| `scripts`, `.ci` | jobs |\n\n## Next\n\n| `not/a/row` | x |\n"
	assert.Equal(t, []string{"cmd/jsprof", "scripts"}, layoutRows(readme), "rows are read from the Layout section alone")

	pkgs := goPackages(t, filepath.Join("..", ".."))
	assert.Contains(t, pkgs, "internal/profiler")
	assert.Contains(t, pkgs, "jsframes/jsprofile")
	assert.NotContains(t, pkgs, "fixtures", "fixtures has its own row, not one per package")
	assert.NotContains(t, pkgs, "dispatch/internal/gen", "a generator belongs to its parent")
	assert.NotContains(t, layoutRows(readme), "internal/profiler", "a package missing from the table is seen")
}

// The bounds of the packages that tend to become catch-alls (issues 27
// and 37): the command's own code (flags, their checks, messages and
// exit codes; a run's work belongs to internal/profiler and the stages
// it calls), and the pipeline's (the order of a run's steps and what
// passes between them; each step's work belongs to its stage's package).
// A package that grows past its bound is doing another's work. The
// command's went from 1,300 to 1,400 with issue 42's flags and their
// checks (--schema-path, --query-path, --fail-invalid-output,
// --input-cost, --export, diff's --fail-floor and --by line) and the
// function folder standing for a module; what those do is in
// internal/run/extension, inputfile, shopify/scalelimits, inputcost and
// view/diff.
const (
	maxCommandLines  = 1400
	maxPipelineLines = 2500
	maxPipelineFile  = 600
)

// TestCommandStaysThin counts the lines of the non-test files of the
// command and of the pipeline, in all and in each file.
func TestCommandStaysThin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir           string
		total, inFile int // 0: no bound
	}{
		{".", maxCommandLines, 0},
		{filepath.Join("..", "..", "internal", "profiler"), maxPipelineLines, maxPipelineFile},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(tt.dir, "*.go"))
			require.NoError(t, err)
			lines := 0
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				n := strings.Count(string(b), "\n")
				lines += n
				if tt.inFile > 0 {
					assert.LessOrEqual(t, n, tt.inFile, "%s: split it by job", f)
				}
			}
			require.Greater(t, lines, 500, "the count reads the package's files")
			assert.LessOrEqual(t, lines, tt.total, "%s's non-test lines: move what is not its job to the package that owns it", tt.dir)
		})
	}
}
