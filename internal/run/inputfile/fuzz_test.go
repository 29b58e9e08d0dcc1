package inputfile_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/run/inputfile"
)

// FuzzParse: input files are the user's (or production's), so any bytes
// give an error or a file whose input is what the bytes hold: the bytes
// themselves when plain, valid JSON otherwise (a run log's export
// always said); a fixture's expected
// output is valid JSON too.
func FuzzParse(f *testing.F) {
	for _, s := range []string{runLog, fixture, `{"logType":"function_run","payload":{"export":"run","input":"{\"a\":1}"}}`,
		`{"export":"e","input":"[1]","output":"x"}`, `{"payload":1,"logType":2}`, `[]`, `"x"`, ``, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := inputfile.Parse(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("Parse(%q): an error of more than one line: %v", b, err)
			}
			return
		}
		switch got.Kind {
		case inputfile.Plain:
			if string(got.JSON) != string(b) || got.Export != "" {
				t.Fatalf("Parse(%q): a plain input changed: %+v", b, got)
			}
		default:
			if !json.Valid(got.JSON) || got.Kind == inputfile.RunLog && got.Export == "" {
				t.Fatalf("Parse(%q) = %+v: its input is not JSON, or a run log's export missing", b, got)
			}
			if got.Kind == inputfile.Fixture && !json.Valid(got.Expected) {
				t.Fatalf("Parse(%q) = %+v: its output is not JSON", b, got)
			}
		}
	})
}

// FuzzMismatch: outputs are the guest's, so any bytes compare without
// failing; a value always matches itself, and a JSON value never matches
// an output that is not JSON (the negative control).
func FuzzMismatch(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.0,"x",null,true]}`, `1e400`, `{"a":1,"a":2}`, `[[[]]]`, `export1`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			if d := inputfile.Mismatch([]byte(`{}`), b); len(d) == 0 {
				t.Fatalf("Mismatch({}, %q): no difference with an output that is not JSON", b)
			}
			return
		}
		if d := inputfile.Mismatch(b, b); len(d) != 0 {
			t.Fatalf("Mismatch(%q, itself) = %q", b, d)
		}
	})
}
