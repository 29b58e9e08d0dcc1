package extension

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any toml gives an extension or an error, never a panic, and
// never a path outside the folder.
func FuzzParse(f *testing.F) {
	f.Add([]byte(twoTargets))
	f.Add([]byte("type = \"function\"\n[build]\npath = \"../x\"\n"))
	f.Add([]byte("[[extensions]]\n[[extensions.targeting]]\nexport = \"\\u202e\"\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := parse(dir, filepath.Join(dir, TOMLName), data)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\x1b\x07\n") {
				t.Fatalf("raw control bytes in %q", err)
			}
			return
		}
		paths := []string{e.Module}
		for _, tg := range e.Targets {
			if tg.InputQuery != "" {
				paths = append(paths, tg.InputQuery)
			}
		}
		for _, p := range paths {
			if r, err := filepath.Rel(dir, p); err != nil || !filepath.IsLocal(r) {
				t.Fatalf("%s is outside %s", p, dir)
			}
		}
	})
}
