package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSuggest(t *testing.T) {
	t.Parallel()
	commands := []string{"run", "build", "analyze", "report", "diff", "compare", "version"}
	flags := []string{"plugin", "input", "o", "e", "q", "report", "report-json", "mode", "top", "dir", "env"}
	tests := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"reprot", commands, "report"}, // a swap is one edit
		{"reports", commands, "report"},
		{"buidl", commands, "build"},
		{"Report", commands, "report"},
		{"rn", commands, "run"},
		{"plugn", flags, "plugin"},
		{"reprot", flags, "report"},
		{"inptu", flags, "input"},
		{"report-jsn", flags, "report-json"},
		// Negative controls: nothing near, a one-letter flag is no
		// slip of another, two equally near are no suggestion.
		{"profile", commands, ""},
		{"bogus", flags, ""},
		{"x", flags, ""},
		{"0", flags, ""},
		{"di", []string{"dir", "din"}, ""},
		{"", commands, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Suggest(tt.word, tt.candidates), "%q", tt.word)
	}
	assert.Equal(t, 0, editDistance("same", "same"))
	assert.Equal(t, 1, editDistance("reprot", "report"))
	assert.Equal(t, 2, editDistance("abc", "cba"))
	assert.Equal(t, 3, editDistance("", "abc"))
}
