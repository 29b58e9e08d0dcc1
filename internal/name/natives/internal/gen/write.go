package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// The catalogue file holds one JSON object per line (an array's history in
// one family), so that changes read well in a diff:
//
//	{"family":…, "array":…, "owner":…, "versions":[{"first":…, "last":…,
//	 "releases":[…], "entries":[[name, kind, length, cproto, func, func2,
//	 value, magic, cond], …]}, …]}
type outArray struct {
	Family   string       `json:"family"`
	Array    string       `json:"array"`
	Owner    string       `json:"owner"`
	Versions []outVersion `json:"versions"`
}

type outVersion struct {
	First    string      `json:"first"`
	Last     string      `json:"last"`
	Releases []string    `json:"releases,omitempty"`
	Entries  [][9]string `json:"entries"`
}

func writeCatalog(path string, arrays []*arrayHistory) error {
	var buf bytes.Buffer
	for _, a := range arrays {
		oa := outArray{Family: a.Family, Array: a.Name, Owner: a.Owner}
		for _, v := range a.Versions {
			ov := outVersion{First: v.First, Last: v.Last, Releases: v.Releases}
			for _, e := range v.Entries {
				ov.Entries = append(ov.Entries, [9]string{e.Name, e.Kind, e.Length, e.Cproto, e.Func, e.Func2, e.Value, e.Magic, e.Cond})
			}
			oa.Versions = append(oa.Versions, ov)
		}
		b, err := json.Marshal(oa)
		if err != nil {
			return fmt.Errorf("%s: %w", a.Name, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
