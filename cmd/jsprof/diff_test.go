package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiffCommand(t *testing.T) {
	base, new := fixtureProfile("fib-base.pb.gz"), fixtureProfile("fib-new.pb.gz")
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"text", []string{base, new}, "diff.txt"},
		{"top", []string{"--top", "3", base, new}, "diff-top3.txt"},
		{"csv", []string{"--csv", base, new}, "diff.csv"},
		{"json", []string{"--json", base, new}, "diff.json"},
		{"flags between and after", []string{base, "--top", "3", new}, "diff-top3.txt"},
		{"by opcode", []string{"--by", "opcode", base, new}, "diff.txt"},
		{"by wasm", []string{"--by", "wasm", "--top", "12", fixtureProfile(filepath.Join("real", "sort-quickjs-2024-sample.pb.gz")),
			fixtureProfile(filepath.Join("real", "sort-quickjs-ng-0.10-sample.pb.gz"))}, "real-diff-sort-sample-by-wasm.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"diff"}, tt.args...)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Empty(t, got.stderr)
			assert.Equal(t, goldenOf(t, "diff", tt.golden), got.stdout)
		})
	}

	page := filepath.Join(t.TempDir(), "diff.html")
	got := jsprof(t, "", "diff", "--html", page, base, new)
	require.Equal(t, 0, got.code, got.stderr)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<title>jsprof diff: fib-base.pb.gz → fib-new.pb.gz</title>")
	assert.Equal(t, 19, strings.Count(string(b), `<tr class="opcode-change" `))
	assert.Contains(t, string(b), `<script type="application/json" id="flame-data">{"mode":"exact","diff":true,`, "the new run's flame graph, with the base's values")
}

func TestDiffCommandErrors(t *testing.T) {
	base := fixtureProfile("fib-base.pb.gz")
	missing := filepath.Join(t.TempDir(), "nope.pb.gz")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one profile", []string{base}, exitUsage, "want two profiles, BASE and NEW, have 1"},
		{"missing new", []string{base, missing}, exitFailure, "nope.pb.gz"},
		{"csv and json", []string{"--csv", "--json", base, base}, exitUsage, "choose one"},
		{"bad top", []string{"--top", "-5", base, base}, exitUsage, "--top -5"},
		{"bad view", []string{"--by", "line", base, base}, exitUsage, "diff: --by line: want opcode or wasm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"diff"}, tt.args...)...)
			assert.Equal(t, tt.code, got.code)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
}
