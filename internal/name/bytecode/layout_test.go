package bytecode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
)

// TestSelectLayout: the identified release and the version byte choose
// the layout; ambiguity is an error naming the candidates.
func TestSelectLayout(t *testing.T) {
	ng := dispatch.FamilyQuickJSNG
	b := dispatch.FamilyQuickJS
	tests := []struct {
		name    string
		spec    EngineSpec
		version byte
		want    string   // layout, or "" for an error
		cands   []string // of an ambiguity error
		msg     string
	}{
		{"NG v0.16", EngineSpec{Family: ng, Tables: []string{"quickjs-ng-2026-05-17-ec2a5ad9"}}, 0x1b, "NG13", nil, ""},
		{"NG v0.15 (Shopify v4)", EngineSpec{Family: ng, TableID: "quickjs-ng-2026-05-17-ec2a5ad9"}, 0x1a, "NG13", nil, ""},
		{"NG v0.12", EngineSpec{Family: ng, TableID: "quickjs-ng-2026-01-29-909fd718"}, 0x17, "NG12", nil, ""},
		{"NG v0.13", EngineSpec{Family: ng, TableID: "quickjs-ng-2026-01-29-909fd718"}, 0x18, "NG13", nil, ""},
		{"NG v0.11", EngineSpec{Family: ng, TableID: "quickjs-ng-2025-04-02-bd5be754"}, 0x15, "NG10", nil, ""},
		{"NG v0.9", EngineSpec{Family: ng, TableID: "quickjs-ng-2025-02-06-42c3faee"}, 0x13, "NG09", nil, ""},
		{"NG v0.1", EngineSpec{Family: ng, TableID: "quickjs-ng-2023-11-13-8063c530"}, 2, "NG01", nil, ""},
		{"Bellard 2023-12-09", EngineSpec{Family: b, TableID: "bellard-2023-12-07-15a9fce6"}, 2, "B2020", nil, ""},
		{"Bellard 2021-03-27 (qjsc)", EngineSpec{Family: b, TableID: "bellard-2020-11-08-c731a14a"}, 2, "B2020", nil, ""},
		{"rquickjs 0.5", EngineSpec{Family: b, TableID: "bellard-2020-11-08-c731a14a", RQuickJS: "0.5.1"}, 2, "B2rq", nil, ""},
		{"rquickjs 0.6", EngineSpec{Family: b, Tables: []string{"bellard-2024-01-09-6d2d6e9f", "bellard-2024-02-10-1e182125"}, RQuickJS: "0.6.1"}, 0x43, "B3rq", nil, ""},
		{"Bellard 2024-03", EngineSpec{Family: b, TableID: "bellard-2024-02-10-1e182125/no-bignum"}, 3, "B3", nil, ""},
		{"Bellard 2024-01-13", EngineSpec{Family: b, TableID: "bellard-2024-01-09-6d2d6e9f"}, 2, "B2024", nil, ""},
		{"Bellard 2025-04-26", EngineSpec{Family: b, TableID: "bellard-2025-04-16-f20fb110"}, 4, "B4", nil, ""},
		{"Bellard 2025-09-13", EngineSpec{Family: b, TableID: "bellard-2025-05-20-814a7cba"}, 5, "B5b", nil, ""},
		{"Bellard head", EngineSpec{Family: b, TableID: "bellard-2025-12-22-7b98ddf0"}, 5, "B5d", nil, ""},
		{"between 2023-12-09 and 2024-01-13", EngineSpec{Family: b, TableID: "bellard-2024-01-02-f471907c"}, 2, "", []string{"B2020", "B2024"}, "ambiguous"},
		{"2025-11 commits", EngineSpec{Family: b, TableID: "bellard-2025-11-03-d9385213"}, 5, "", []string{"B5c", "B5d"}, "ambiguous"},
		{"no release: version alone", EngineSpec{}, 0x15, "NG10", nil, ""},
		{"no release: version 2", EngineSpec{}, 2, "", []string{"B2020", "B2020a", "B2024", "NG01"}, "ambiguous"},
		{"wrong version", EngineSpec{Family: ng, TableID: "quickjs-ng-2025-04-02-bd5be754"}, 2, "", nil, "unsupported serialization version 0x2: quickjs-ng (opcode table quickjs-ng-2025-04-02-bd5be754) writes 0x14, 0x15"},
		{"transitional", EngineSpec{Family: ng, TableID: "quickjs-ng-2026-01-08-8ea427a4"}, 22, "", nil, "only unreleased commits"},
		{"byte-swapped", EngineSpec{Family: b, TableID: "bellard-2023-12-07-15a9fce6"}, 0x42, "", nil, "byte-swapped"},
		{"pre-v0.1", EngineSpec{Family: ng, TableID: "quickjs-ng-2023-11-06-bbdc8638"}, 2, "", nil, "no layout is known"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := SelectLayout(tt.spec, tt.version)
			if tt.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, l.Name)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			var le *LayoutError
			require.True(t, errors.As(err, &le))
			assert.Equal(t, tt.cands, le.Candidates)
		})
	}
}

// TestLayoutsCoverCatalog: every release of the opcode catalog has a
// layout for each version byte it writes, so "unsupported serialization
// version" never names a release's own version; the registry names only
// layouts it has.
func TestLayoutsCoverCatalog(t *testing.T) {
	var tables []struct {
		ID        string   `json:"id"`
		ShippedIn []string `json:"shipped_in"`
	}
	b, err := dispatchCatalog()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &tables))
	for _, tb := range tables {
		byVersion, ok := tableLayouts[tb.ID]
		if !ok {
			// Only QuickJS-NG's commits before v0.1.0 lack one.
			assert.True(t, strings.HasPrefix(tb.ID, "quickjs-ng-2023-11-") && len(tb.ShippedIn) == 0, "table %s has no layouts", tb.ID)
			continue
		}
		for v, layouts := range byVersion {
			for _, l := range layouts {
				byName, ok := LayoutByName(l.Name)
				assert.True(t, ok && byName == l, "%s %#x: %s", tb.ID, v, l)
			}
			if len(tb.ShippedIn) > 0 {
				l, err := SelectLayout(EngineSpec{TableID: tb.ID, Releases: tb.ShippedIn}, v)
				if err != nil {
					// Only rquickjs's patch can leave a release ambiguous
					// without the module's crate paths.
					assert.Contains(t, err.Error(), "ambiguous", tb.ID)
					_, err = SelectLayout(EngineSpec{TableID: tb.ID, RQuickJS: "0.6.1"}, v)
				}
				assert.NoError(t, err, "%s %#x", tb.ID, v)
				_ = l
			}
		}
	}
}

// TestChecksum: NG13's checksum is checked, and 0xffffffff (not
// computed) accepted.
func TestChecksum(t *testing.T) {
	spec := formatsSpec(t, "shopify_functions_javy_v4")
	good := readFormats(t, "shopify_functions_javy_v4", "fib")
	bad := append([]byte(nil), good...)
	bad[len(bad)-1] ^= 1
	_, err := Parse(bad, spec)
	assert.ErrorContains(t, err, "offset 0x1: checksum")
	skip := append([]byte(nil), good...)
	copy(skip[1:5], []byte{0xff, 0xff, 0xff, 0xff})
	_, err = Parse(skip, spec)
	assert.NoError(t, err)
	assert.Equal(t, uint32(0), bcChecksum(nil, false))
	// A tail of exactly four bytes adds nothing (the engine's switch has
	// no case 4); QuickJS-NG 0.17 still multiplies.
	k := uint32(0x9e370001)
	assert.Equal(t, uint32(0), bcChecksum([]byte{1, 0, 0, 0}, false))
	assert.Equal(t, uint32(0), bcChecksum([]byte{1, 0, 0, 0}, true))
	assert.Equal(t, 1*k*k, bcChecksum([]byte{1, 0, 0, 0, 2, 0, 0, 0}, true))
	assert.Equal(t, 1*k, bcChecksum([]byte{1, 0, 0, 0, 2, 0, 0, 0}, false))
	assert.Equal(t, (1*k+2)*k, bcChecksum([]byte{1, 0, 0, 0, 2}, false))
}

// dispatchCatalog reads the opcode catalog dispatch embeds.
func dispatchCatalog() ([]byte, error) {
	return os.ReadFile(filepath.Join("..", "..", "..", "dispatch", "opcodetables.json"))
}
