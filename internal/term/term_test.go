package term

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUseColor(t *testing.T) {
	t.Parallel()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	assert.True(t, UseColor(true, env(nil)))
	assert.False(t, UseColor(false, env(nil)), "not a terminal")
	assert.False(t, UseColor(true, env(map[string]string{"NO_COLOR": "1"})))
	assert.False(t, UseColor(true, env(map[string]string{"TERM": "dumb"})))
	assert.Equal(t, "\x1b[1;31mx\x1b[0m", Paint(true, Red, "x"))
	assert.Equal(t, "x", Paint(false, Red, "x"))
}

func TestVersion(t *testing.T) {
	t.Parallel()
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"release", "v1.2.3", settings("vcs.revision", "0123abcd", "vcs.time", "2026-11-27T08:00:00Z", "vcs.modified", "false"),
			"jsprof v1.2.3, revision 0123abcd (2026-11-27T08:00:00Z), go1.25.0"},
		{"modified tree", "(devel)", settings("vcs.revision", "0123abcd", "vcs.modified", "true"),
			"jsprof (devel), revision 0123abcd, modified, go1.25.0"},
		{"no VCS", "", nil, "jsprof (devel), revision unknown (built without VCS information), go1.25.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Version: tt.version}, Settings: tt.settings}
			assert.Equal(t, tt.want, Version(bi))
		})
	}
}
