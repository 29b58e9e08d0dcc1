package runner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMount(t *testing.T) {
	tests := []struct {
		in      string
		want    Mount
		wantErr string
	}{
		{"data", Mount{Host: "data", Guest: "data"}, ""},
		{"./data:/data", Mount{Host: "./data", Guest: "/data"}, ""},
		{"", Mount{}, "empty --dir"},
		{":/data", Mount{}, "want HOST[:GUEST]"},
		{"data:", Mount{}, "want HOST[:GUEST]"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMount(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
