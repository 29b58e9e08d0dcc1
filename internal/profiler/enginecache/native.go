package enginecache

import "github.com/jsprof/jsprof/internal/name/natives"

// Native is what naming needs of a native natives.Scan found: its
// name and member, the C function (table index and magic) a function
// object calls it by, and the Wasm function that runs it. The prepared
// engine cache keeps the natives so, a fifth of their Catalogue.
type Native struct {
	Name     string       `json:"n"`
	Property string       `json:"p,omitempty"`
	Kind     natives.Kind `json:"k,omitempty"`
	Table    uint32       `json:"t"`
	Magic    int16        `json:"m,omitempty"`
	Func     uint32       `json:"f"`
}

// NativesOf keeps what naming needs of a catalogue's natives, in its
// order; never nil.
func NativesOf(cat *natives.Catalogue) []Native {
	out := make([]Native, 0, len(cat.Natives))
	for _, n := range cat.Natives {
		out = append(out, Native{Name: n.Name, Property: n.Property, Kind: n.Kind, Table: n.TableIndex, Magic: n.Magic, Func: n.Func})
	}
	return out
}
