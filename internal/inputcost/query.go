package inputcost

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/printable"
)

// QueryFields is an Options.Query from an input query's fields: each
// field's path in the query (its response keys, alias or name, joined by
// dots: cart.lines.merchandise.product.tags) to what names it for its
// author (src/run.graphql:14: tags). An input's JSON keys are the
// query's response keys, and its arrays are the query's list fields, so
// a path's query field is its keys, its [] left out.
func QueryFields(fields map[string]string) func(Path) string {
	return func(p Path) string {
		var keys []string
		for _, s := range p {
			if s != each {
				keys = append(keys, s)
			}
		}
		return fields[strings.Join(keys, ".")]
	}
}

// maxQueryBytes bounds an input query file: Shopify's are a few KB.
const maxQueryBytes = 1 << 20

// ReadQuery reads an input query (GraphQL, the file shopify.extension.toml
// names as input_query) into the fields QueryFields takes: each field's
// path of response keys to name:line: the field as written.
func ReadQuery(name string) (map[string]string, error) {
	b, err := fileio.ReadRegular(name, maxQueryBytes)
	if err != nil {
		return nil, fmt.Errorf("--query-path: %w", err)
	}
	fields, err := parseQuery(b, name)
	if err != nil {
		return nil, fmt.Errorf("--query-path %s: %w", name, err)
	}
	return fields, nil
}

// token is a GraphQL token: a name, a punctuator ("{", "...", ":"), a
// string or a number, and its line.
type token struct {
	text string
	line int
}

// lex splits a GraphQL document into tokens, leaving out white space,
// commas, comments and what strings hold.
func lex(b []byte) []token {
	var out []token
	line := 1
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == ',':
			i++
		case c == '#':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == '"':
			end := `"`
			if bytes.HasPrefix(b[i:], []byte(`"""`)) {
				end = `"""`
			}
			i += len(end)
			for i < len(b) && !bytes.HasPrefix(b[i:], []byte(end)) {
				if b[i] == '\\' {
					i++
				} else if b[i] == '\n' {
					line++
				}
				i++
			}
			i = min(i+len(end), len(b))
			out = append(out, token{`"`, line})
		case bytes.HasPrefix(b[i:], []byte("...")):
			out = append(out, token{"...", line})
			i += 3
		case isNameByte(c, false) || c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(b) && isNameByte(b[j], true) {
				j++
			}
			out = append(out, token{string(b[i:j]), line})
			i = j
		default:
			out = append(out, token{string(c), line})
			i++
		}
	}
	return out
}

// maxQueryDepth bounds how deep selection sets nest.
const maxQueryDepth = 64

// parseQuery reads the fields of a GraphQL document's operations: their
// selection sets, through inline fragments (... on Type { }); a named
// fragment's spread is not followed, nor are fragment definitions read.
func parseQuery(b []byte, name string) (map[string]string, error) {
	q := querier{toks: lex(b), name: name, fields: map[string]string{}}
	for q.i < len(q.toks) {
		switch q.toks[q.i].text {
		case "fragment": // fragment Name on Type { }: not followed
			for q.i < len(q.toks) && q.toks[q.i].text != "{" {
				q.i++
			}
			q.skip("{", "}")
		case "(":
			q.skip("(", ")")
		case "{":
			if err := q.selections("", 0); err != nil {
				return nil, err
			}
		default:
			q.i++
		}
	}
	return q.fields, nil
}

// querier reads a document's tokens.
type querier struct {
	toks   []token
	i      int
	name   string
	fields map[string]string
}

// at is the text of the token at q.i, "" past the end.
func (q *querier) at() string {
	if q.i < len(q.toks) {
		return q.toks[q.i].text
	}
	return ""
}

// skip passes over the balanced open…close at q.i.
func (q *querier) skip(open, close string) {
	depth := 0
	for ; q.i < len(q.toks); q.i++ {
		switch q.toks[q.i].text {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				q.i++
				return
			}
		}
	}
}

// directives passes over any @name(args) at q.i.
func (q *querier) directives() {
	for q.at() == "@" {
		q.i += 2
		if q.at() == "(" {
			q.skip("(", ")")
		}
	}
}

// selections reads the selection set opening at q.i, its fields' paths
// under prefix.
func (q *querier) selections(prefix string, depth int) error {
	if depth > maxQueryDepth {
		return fmt.Errorf("selections nest deeper than %d", maxQueryDepth)
	}
	q.i++ // {
	for q.i < len(q.toks) && q.at() != "}" {
		tok := q.toks[q.i]
		switch {
		case tok.text == "...":
			q.i++
			if q.at() == "on" {
				q.i += 2
			} else if q.at() != "{" && q.at() != "@" {
				q.i++ // a named fragment's spread: not followed
			}
			q.directives()
			if q.at() == "{" {
				if err := q.selections(prefix, depth+1); err != nil {
					return err
				}
			}
		case isName(tok.text):
			key, written := tok.text, tok.text
			q.i++
			if q.at() == ":" && q.i+1 < len(q.toks) {
				written = key + ": " + q.toks[q.i+1].text
				q.i += 2
			}
			if q.at() == "(" {
				q.skip("(", ")")
			}
			q.directives()
			path := key
			if prefix != "" {
				path = prefix + "." + key
			}
			if _, ok := q.fields[path]; !ok {
				q.fields[path] = fmt.Sprintf("%s:%d: %s", printable.Name(q.name), tok.line, written)
			}
			if q.at() == "{" {
				if err := q.selections(path, depth+1); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("line %d: %q where a field was expected", tok.line, printable.String(tok.text))
		}
	}
	q.i++ // }
	return nil
}

// isName says whether s is a GraphQL name.
func isName(s string) bool {
	for i, c := range []byte(s) {
		if !isNameByte(c, i > 0) {
			return false
		}
	}
	return s != ""
}

// isNameByte says whether c may be in a GraphQL name (first: at its
// start).
func isNameByte(c byte, inside bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || inside && c >= '0' && c <= '9'
}
