package inputfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// MaxDifferences is how many differing places Mismatch names; past them
// it says how many more there are.
const MaxDifferences = 5

// Mismatch compares a function's output (JSON text, as decoded from its
// codec) with a fixture's expected output as JSON values: object members
// in any order, numbers by value as float64 (10 and 10.0 are equal), strings and
// the rest exactly. It returns the places that differ, each "PATH: want
// W, got G" (PATH as $.a.b[0]["c d"]), at most MaxDifferences and a last "and N
// more"; nil when they are equal. Output that is not JSON differs at $.
func Mismatch(expected, output []byte) []string {
	var d differ
	want, werr := decode(expected)
	got, gerr := decode(output)
	switch {
	case werr != nil:
		d.add("$", "the fixture's output is not JSON: "+werr.Error(), "")
	case gerr != nil:
		d.add("$", short(expected), "no JSON output")
	default:
		d.compare("$", want, got)
	}
	if d.more > 0 {
		d.out = append(d.out, fmt.Sprintf("and %d more", d.more))
	}
	return d.out
}

func decode(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more after the value")
	}
	return v, nil
}

type differ struct {
	out  []string
	more int
}

func (d *differ) add(path, want, got string) {
	if len(d.out) >= MaxDifferences {
		d.more++
		return
	}
	d.out = append(d.out, fmt.Sprintf("%s: want %s, got %s", path, want, got))
}

func (d *differ) compare(path string, want, got any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			d.add(path, "an object", show(got))
			return
		}
		keys := slices.Sorted(maps.Keys(w))
		for _, k := range keys {
			p := member(path, k)
			if gv, ok := g[k]; ok {
				d.compare(p, w[k], gv)
			} else {
				d.add(p, show(w[k]), "nothing")
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				d.add(member(path, k), "nothing", show(g[k]))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			d.add(path, "an array", show(got))
			return
		}
		if len(w) != len(g) {
			d.add(path, fmt.Sprintf("%d elements", len(w)), fmt.Sprintf("%d", len(g)))
		}
		for i := range min(len(w), len(g)) {
			d.compare(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	case json.Number:
		if g, ok := got.(json.Number); !ok || !sameNumber(w, g) {
			d.add(path, show(want), show(got))
		}
	default:
		if want != got {
			d.add(path, show(want), show(got))
		}
	}
}

// member is the path of an object's member k: .k for a name, else ["k"].
func member(path, k string) string {
	for i, r := range k {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return path + "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return path + `[""]`
	}
	return path + "." + k
}

// sameNumber compares two JSON numbers by value as JavaScript holds
// them (float64): 10, 10.0 and 1e1 are one number.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, errx := strconv.ParseFloat(string(a), 64)
	y, erry := strconv.ParseFloat(string(b), 64)
	return errx == nil && erry == nil && x == y
}

// show is a value as the difference shows it: JSON, shortened.
func show(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	b, _ := json.Marshal(v)
	return short(b)
}

// short is JSON text cut to 60 bytes.
func short(b []byte) string {
	const most = 60
	if len(b) > most {
		return string(b[:most]) + "…"
	}
	return string(b)
}
