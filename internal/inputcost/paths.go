package inputcost

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// node is a JSON value of an input, with where each object member is in
// the input's bytes. Only objects and arrays are kept: a scalar has no
// paths under it.
type node struct {
	members []member // an object's, in order
	elems   []*node  // an array's
}

// member is an object's member: its key and the bytes from its key's
// opening quote to its value's end.
type member struct {
	key        string
	start, end int
	value      *node
}

// errNotJSON is the error of an input that is not one JSON value.
var errNotJSON = errors.New("not a JSON document: each field path is a JSON input's")

// parse reads a JSON input into its tree. The input is checked by
// encoding/json first, so the scanner below reads valid JSON only.
func parse(b []byte) (*node, error) {
	if !json.Valid(b) {
		return nil, errNotJSON
	}
	s := scanner{b: b}
	s.space()
	return s.value(), nil
}

// scanner reads valid JSON, keeping objects' member spans.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && strings.IndexByte(" \t\r\n", s.b[s.i]) >= 0 {
		s.i++
	}
}

// value reads the value at s.i; nil for a scalar.
func (s *scanner) value() *node {
	switch s.b[s.i] {
	case '{':
		n := &node{}
		s.items('}', func() {
			m := member{start: s.i}
			s.str()
			_ = json.Unmarshal(s.b[m.start:s.i], &m.key) // valid: cannot fail
			s.space()
			s.i++ // ':'
			s.space()
			m.value = s.value()
			m.end = s.i
			n.members = append(n.members, m)
		})
		return n
	case '[':
		n := &node{elems: []*node{}}
		s.items(']', func() { n.elems = append(n.elems, s.value()) })
		return n
	case '"':
		s.str()
	default: // a number, true, false or null
		for s.i < len(s.b) && strings.IndexByte(",]} \t\r\n", s.b[s.i]) < 0 {
			s.i++
		}
	}
	return nil
}

// items reads the items of the object or array opening at s.i, each
// with item, up to its closing byte end.
func (s *scanner) items(end byte, item func()) {
	s.i++
	s.space()
	for s.b[s.i] != end {
		item()
		s.space()
		if s.b[s.i] == ',' {
			s.i++
			s.space()
		}
	}
	s.i++
}

// str skips the string at s.i.
func (s *scanner) str() {
	s.i++
	for s.b[s.i] != '"' {
		if s.b[s.i] == '\\' {
			s.i++
		}
		s.i++
	}
	s.i++
}

// Path is a field path of an input: object keys, and "[]" for every
// element of an array.
type Path []string

// each is the path segment of every element of an array.
const each = "[]"

// String shows p as cart.lines[].merchandise.product.tags; a key that
// would read otherwise (empty, or holding '.', '[', ']', '"' or a space)
// is quoted in brackets: cart["a.b"].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s == each:
			b.WriteString(each)
		case s == "" || strings.ContainsAny(s, `.[]"`) || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
			b.WriteString("[" + strconv.Quote(s) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}

// key is p as a map key: each segment after its length, since a key
// may hold any character.
func (p Path) key() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// found is a path of an input and the bytes its members span, over every
// element of the arrays it goes through.
type found struct {
	path  Path
	bytes int
}

// paths lists every field path of root, each once, in the order first
// met.
func paths(root *node) []found {
	var out []found
	at := map[string]int{}
	var walk func(n *node, prefix Path)
	walk = func(n *node, prefix Path) {
		if n == nil {
			return
		}
		for _, m := range n.members {
			p := append(slices.Clip(prefix), m.key)
			k := p.key()
			i, ok := at[k]
			if !ok {
				i = len(out)
				at[k] = i
				out = append(out, found{path: p})
			}
			out[i].bytes += m.end - m.start
			walk(m.value, p)
		}
		for _, e := range n.elems {
			walk(e, append(slices.Clip(prefix), each))
		}
	}
	walk(root, nil)
	return out
}

// remove is input (whose tree is root) without every member at path p,
// each taken out with the separator that joined it to its object, the
// rest of the bytes as they were: the input as one would edit it by hand.
func remove(input []byte, root *node, p Path) []byte {
	type span struct{ from, to int }
	var cuts []span
	var walk func(n *node, rest Path)
	walk = func(n *node, rest Path) {
		if n == nil || len(rest) == 0 {
			return
		}
		if rest[0] == each {
			for _, e := range n.elems {
				walk(e, rest[1:])
			}
			return
		}
		ms := n.members
		if len(rest) > 1 {
			for _, m := range ms {
				if m.key == rest[0] {
					walk(m.value, rest[1:])
				}
			}
			return
		}
		// The members to take out, in runs of neighbours: each run goes
		// with the separator after it, or, at the object's end, the one
		// before it.
		for a := 0; a < len(ms); a++ {
			if ms[a].key != rest[0] {
				continue
			}
			b := a
			for b+1 < len(ms) && ms[b+1].key == rest[0] {
				b++
			}
			switch {
			case b+1 < len(ms):
				cuts = append(cuts, span{ms[a].start, ms[b+1].start})
			case a > 0:
				cuts = append(cuts, span{ms[a-1].end, ms[b].end})
			default:
				cuts = append(cuts, span{ms[a].start, ms[b].end})
			}
			a = b
		}
	}
	walk(root, p)
	slices.SortFunc(cuts, func(x, y span) int { return cmp.Compare(x.from, y.from) })
	out := make([]byte, 0, len(input))
	at := 0
	for _, c := range cuts {
		out = append(out, input[at:c.from]...)
		at = c.to
	}
	return append(out, input[at:]...)
}
