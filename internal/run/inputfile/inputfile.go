package inputfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/wasmcore"
)

// Kind is what an input file is (package doc).
type Kind int

// Kinds of input file.
const (
	Plain   Kind = iota // the input's JSON itself
	RunLog              // a Shopify CLI run log
	Fixture             // a Shopify CLI test fixture
)

func (k Kind) String() string {
	switch k {
	case RunLog:
		return "run log"
	case Fixture:
		return "fixture"
	}
	return ""
}

// File is an input file read (Read).
type File struct {
	Kind Kind
	// JSON is the input's JSON text, as the file has it.
	JSON []byte
	// Export is the export the input is for ("" for a plain input: the
	// run's).
	Export string
	// Expected is a fixture's output, JSON text.
	Expected []byte
	// Production is the instructions production charged (a run log's
	// fuelConsumed); 0: none said.
	Production uint64
}

// runLog is what Read takes of a Shopify CLI run log.
type runLog struct {
	LogType string `json:"logType"`
	Payload *struct {
		Input        json.RawMessage `json:"input"`
		Export       *string         `json:"export"`
		FuelConsumed *uint64         `json:"fuelConsumed"`
	} `json:"payload"`
}

// fixtureMembers are the members of a fixture generate-fixture writes.
var fixtureMembers = []string{"name", "export", "query", "target", "input", "output"}

// Read reads the input file path (shopify.ReadInput: a regular file,
// bounded) and tells its kind by its shape. A run log that is not a
// function run's, or lacks its input or export, is an error naming the
// file.
func Read(path string) (File, error) {
	b, err := shopify.ReadInput(path)
	if err != nil {
		return File{}, err
	}
	f, err := Parse(b)
	if err != nil {
		return File{}, fmt.Errorf("input %s: %w", path, err)
	}
	return f, nil
}

// Parse is Read of a file's bytes.
func Parse(b []byte) (File, error) {
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return File{Kind: Plain, JSON: b}, nil // not an object: an input
	}
	if isString(members["logType"]) && isObject(members["payload"]) {
		return parseRunLog(b)
	}
	if isFixture(members) {
		var exp string
		if err := json.Unmarshal(members["export"], &exp); err != nil {
			return File{}, err
		}
		return File{Kind: Fixture, JSON: inner(members["input"]), Export: exp, Expected: inner(members["output"])}, nil
	}
	return File{Kind: Plain, JSON: b}, nil
}

func parseRunLog(b []byte) (File, error) {
	var l runLog
	if err := json.Unmarshal(b, &l); err != nil {
		return File{}, fmt.Errorf("a Shopify CLI run log: %w", err)
	}
	switch p := l.Payload; {
	case l.LogType != "function_run":
		return File{}, fmt.Errorf("a Shopify CLI log of %q, not of a function run", l.LogType)
	case p.Export == nil || *p.Export == "":
		return File{}, errors.New("a Shopify CLI run log without its payload's export")
	case len(p.Input) == 0 || string(p.Input) == "null":
		return File{}, errors.New("a Shopify CLI run log without its payload's input (production did not log it)")
	}
	f := File{Kind: RunLog, JSON: inner(l.Payload.Input), Export: *l.Payload.Export}
	if l.Payload.FuelConsumed != nil {
		f.Production = *l.Payload.FuelConsumed
	}
	return f, nil
}

// isFixture says members are a fixture's: input, output and an export
// string, and nothing generate-fixture does not write.
func isFixture(members map[string]json.RawMessage) bool {
	for k := range members {
		if !slices.Contains(fixtureMembers, k) {
			return false
		}
	}
	_, in := members["input"]
	_, out := members["output"]
	return in && out && isString(members["export"])
}

// inner is a logged value: a string holding a JSON object or array is
// that value, anything else itself.
func inner(v json.RawMessage) []byte {
	var s string
	if isString(v) && json.Unmarshal(v, &s) == nil {
		t := bytes.TrimSpace([]byte(s))
		if len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
			return t
		}
	}
	return v
}

func isString(v json.RawMessage) bool { return len(v) > 0 && v[0] == '"' }
func isObject(v json.RawMessage) bool { return len(v) > 0 && v[0] == '{' }

// CheckExport says whether m exports the export f is for: an error
// naming the input and the export when it does not.
func (f File) CheckExport(path string, m *wasmcore.Module) error {
	if f.Export == "" || m == nil {
		return nil
	}
	if _, ok := m.ExportedFunc(f.Export); !ok {
		return fmt.Errorf("input %s is for export %s (its %s), which the module does not export", path, f.Export, f.Kind)
	}
	return nil
}

// List lists the inputs paths name, in order: a regular file is itself,
// a folder each *.json file in it (not below), by name. A folder with
// none is an error naming it, as is a path that is neither
// (shopify.NotRegular): checked before anything runs.
func List(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--input: %w", err)
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				return nil, shopify.NotRegular(p)
			}
			files = append(files, p)
			continue
		}
		in, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", p, err)
		}
		var found []string
		for _, f := range in {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				found = append(found, f)
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--input %s: no *.json file in the folder", p)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}
