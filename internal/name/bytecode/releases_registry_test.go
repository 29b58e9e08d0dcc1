package bytecode

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/naming.md's release table from the registry")

// knownReleases is every release jsprof knows of outside the registry:
// the opcode tables of dispatch's catalog, and the goldens of
// testdata/releases with the version byte their bytecode starts with.
type knownReleases struct {
	tables  []string
	goldens map[string][2]string // golden name → {table, version}
}

func readKnownReleases(t *testing.T) knownReleases {
	t.Helper()
	b, err := dispatchCatalog()
	require.NoError(t, err)
	var tables []struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(b, &tables))
	k := knownReleases{goldens: map[string][2]string{}}
	for _, tb := range tables {
		k.tables = append(k.tables, tb.ID)
	}
	descs, err := filepath.Glob(filepath.Join("testdata", "releases", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, descs, "the goldens")
	for _, d := range descs {
		var desc struct {
			Table string `json:"table"`
		}
		data, err := os.ReadFile(d)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &desc))
		name := strings.TrimSuffix(filepath.Base(d), ".json")
		bc, err := os.ReadFile(filepath.Join("testdata", "releases", name+"-fib.bc"))
		require.NoError(t, err)
		k.goldens[name] = [2]string{desc.Table, fmt.Sprintf("%#x", bc[0])}
	}
	return k
}

// checkRegistry says what the records leave out of what is known: a
// layout, a catalog table or a golden without a record, or a record that
// is not complete.
func checkRegistry(records []Release, known knownReleases) error {
	var errs []error
	byLayout := map[string]int{}
	for _, r := range records {
		l := r.Layout
		if l == nil {
			errs = append(errs, errors.New("a release without its layout"))
			continue
		}
		byLayout[l.Name]++
		if len(r.Versions) == 0 || r.Tested == "" || l.Releases == "" {
			errs = append(errs, fmt.Errorf("release %s: incomplete (versions, tests and the releases' names are required)", l.Name))
		}
		for table, versions := range r.Tables {
			family := dispatch.FamilyQuickJS
			if strings.HasPrefix(table, "quickjs-ng-") {
				family = dispatch.FamilyQuickJSNG
			}
			if family != l.Family {
				errs = append(errs, fmt.Errorf("release %s (%s): table %s is %s's", l.Name, l.Family, table, family))
			}
			for _, v := range versions {
				if !slices.Contains(r.Versions, v) {
					errs = append(errs, fmt.Errorf("release %s: table %s writes version %#x, not among its versions", l.Name, table, v))
				}
			}
		}
		if m := r.Memory; m != nil {
			for _, table := range m.Tables {
				if _, ok := r.Tables[table]; !ok {
					errs = append(errs, fmt.Errorf("release %s: memory checked on table %s, not its", l.Name, table))
				}
			}
		}
	}
	for _, l := range Layouts() {
		if byLayout[l.Name] != 1 {
			errs = append(errs, fmt.Errorf("layout %s: %d releases in the registry, want 1", l.Name, byLayout[l.Name]))
		}
	}
	written := map[string]map[string]bool{} // table → versions, as "%#x"
	for _, r := range records {
		for table, versions := range r.Tables {
			if written[table] == nil {
				written[table] = map[string]bool{}
			}
			for _, v := range versions {
				written[table][fmt.Sprintf("%#x", v)] = true
			}
		}
	}
	for _, table := range known.tables {
		// QuickJS-NG's commits before v0.1.0 have no layout: they were
		// never released (SelectLayout says so).
		if written[table] == nil && !strings.HasPrefix(table, "quickjs-ng-2023-11-0") && !strings.HasPrefix(table, "quickjs-ng-2023-11-10") && !strings.HasPrefix(table, "quickjs-ng-2023-11-12") {
			errs = append(errs, fmt.Errorf("opcode table %s: no release in the registry", table))
		}
	}
	for name, g := range known.goldens {
		if !written[g[0]][g[1]] {
			errs = append(errs, fmt.Errorf("golden %s (table %s, version %s): no release in the registry", name, g[0], g[1]))
		}
	}
	return errors.Join(errs...)
}

// TestReleaseRegistryComplete: every release known anywhere — each layout
// of the parser, each opcode table of dispatch's catalog, each golden —
// has one complete record in the registry.
func TestReleaseRegistryComplete(t *testing.T) {
	t.Parallel()
	known := readKnownReleases(t)
	require.NoError(t, checkRegistry(Releases(), known))

	// The negative control: without any one record, the check fails,
	// naming what lost its record.
	for i, r := range releases {
		t.Run("without "+r.Name, func(t *testing.T) {
			fewer := slices.Delete(slices.Clone(releases), i, i+1)
			err := checkRegistry(fewer, known)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "layout "+r.Name+": 0 releases")
		})
	}
	// A golden of a release the registry does not know is named.
	known.goldens["quickjs-ng-v9.9.9"] = [2]string{"quickjs-ng-2099-01-01-00000000", "0x63"}
	assert.ErrorContains(t, checkRegistry(releases, known), "golden quickjs-ng-v9.9.9")
}

// TestReleaseTableInDocs: docs/naming.md's release table is the
// registry's (go test ./internal/name/bytecode -run TestReleaseTableInDocs
// -update-docs rewrites it).
func TestReleaseTableInDocs(t *testing.T) {
	const begin, end = "<!-- release table: generated from internal/name/bytecode/releases.go (go test ./internal/name/bytecode -run TestReleaseTableInDocs -update-docs) -->\n", "<!-- end of the release table -->\n"
	path := filepath.Join("..", "..", "..", "docs", "naming.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "docs/naming.md has no %q", begin)
	table, after, ok := strings.Cut(rest, end)
	require.True(t, ok, "docs/naming.md has no %q", end)
	if *updateDocs {
		require.NoError(t, os.WriteFile(path, []byte(before+begin+ReleaseTable()+end+after), 0o644))
		return
	}
	assert.Equal(t, ReleaseTable(), table, "docs/naming.md's release table differs from the registry: run with -update-docs")
}
