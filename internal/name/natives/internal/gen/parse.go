package main

import (
	"fmt"
	"regexp"
	"strings"
)

// entry is one JSCFunctionListEntry initializer as the source writes it.
type entry struct {
	Name   string // the property name (C string literal, unquoted); "" when not a literal
	Kind   string // cfunc, getset, getset_magic, string, int32, int64, double, undefined, object, alias, atom, bool, "?"
	Length string // cfunc: the length argument
	Cproto string // cfunc: generic, generic_magic, iterator_next, constructor, f_f, ...
	Func   string // cfunc: the C function; getset: the getter
	Func2  string // getset: the setter
	Value  string // string: the literal; object: the table; alias: the aliased name
	Magic  string // the magic argument as written ("" = 0)
	Cond   string // enclosing preprocessor conditions, "" when unconditional
	Macro  string // the macro used (for unknown ones)
}

type array struct {
	Name    string
	Entries []entry
}

var arrayDecl = regexp.MustCompile(`^JSCFunctionListEntry\s+(?:const\s+)?(\w+)\s*\[\s*\]\s*=\s*\{`)

// parseArrays finds every JSCFunctionListEntry array defined in src.
func parseArrays(src string) ([]array, error) {
	var out []array
	const kw = "JSCFunctionListEntry"
	for i := 0; ; {
		j := strings.Index(src[i:], kw)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(kw)
		end := min(len(src), at+200)
		m := arrayDecl.FindStringSubmatchIndex(src[at:end])
		if m == nil {
			continue
		}
		name := src[at+m[2] : at+m[3]]
		body, err := braceBody(src, at+m[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		es, err := parseEntries(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, array{Name: name, Entries: es})
	}
	return out, nil
}

// braceBody returns the text from start up to the brace closing the one
// just before start.
func braceBody(src string, start int) (string, error) {
	depth := 1
	for i := start; i < len(src); i++ {
		switch src[i] {
		case '"':
			j := skipString(src, i)
			i = j - 1
		case '/':
			if i+1 < len(src) && src[i+1] == '*' {
				j := strings.Index(src[i+2:], "*/")
				if j < 0 {
					return "", fmt.Errorf("unterminated comment")
				}
				i += j + 3
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return src[start:i], nil
			}
		}
	}
	return "", fmt.Errorf("unterminated array")
}

func skipString(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			j := skipString(s, i)
			b.WriteString(s[i:j])
			i = j - 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			// keep line structure for the preprocessor
			b.WriteString(strings.Repeat("\n", strings.Count(s[i:i+2+j+2], "\n")))
			b.WriteByte(' ')
			i += j + 3
		case strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return b.String()
			}
			i += j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func parseEntries(body string) ([]entry, error) {
	body = stripComments(body)
	var conds []string
	var pending strings.Builder
	var out []entry
	flush := func() error {
		items := splitTop(pending.String())
		pending.Reset()
		for _, it := range items {
			it = strings.TrimSpace(it)
			if it == "" {
				continue
			}
			e, err := parseItem(it)
			if err != nil {
				return err
			}
			e.Cond = strings.Join(conds, " && ")
			out = append(out, e)
		}
		return nil
	}
	// Preprocessor lines may continue on the next with a backslash (local
	// #define DEF(...) inside an array).
	body = strings.ReplaceAll(body, "\\\n", " ")
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			// An entry never spans a preprocessor line, except through a
			// trailing comma: split what is pending first.
			if err := flush(); err != nil {
				return nil, err
			}
			d := strings.TrimSpace(strings.TrimPrefix(t, "#"))
			switch {
			case strings.HasPrefix(d, "if"):
				conds = append(conds, d)
			case strings.HasPrefix(d, "elif"), strings.HasPrefix(d, "else"):
				if len(conds) > 0 {
					conds[len(conds)-1] = "!(" + conds[len(conds)-1] + ") " + d
				}
			case strings.HasPrefix(d, "endif"):
				if len(conds) > 0 {
					conds = conds[:len(conds)-1]
				}
			}
			continue
		}
		pending.WriteString(line)
		pending.WriteByte('\n')
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// splitTop splits at commas outside parentheses, braces and strings.
func splitTop(s string) []string {
	var out []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = skipString(s, i) - 1
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + 1
			}
		}
	}
	return append(out, s[last:])
}

var itemRe = regexp.MustCompile(`(?s)^(\w+)\s*\((.*)\)$`)

func parseItem(it string) (entry, error) {
	m := itemRe.FindStringSubmatch(it)
	if m == nil {
		return entry{Kind: "?", Macro: it}, nil
	}
	macro := m[1]
	args := splitTop(m[2])
	for i := range args {
		args[i] = strings.Join(strings.Fields(args[i]), " ")
	}
	e := entry{Macro: macro}
	if len(args) > 0 {
		e.Name = cstring(args[0])
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch macro {
	case "JS_CFUNC_DEF", "JS_CFUNC_DEF2":
		e.Kind, e.Length, e.Cproto, e.Func = "cfunc", arg(1), "generic", arg(2)
	case "JS_CFUNC_MAGIC_DEF":
		e.Kind, e.Length, e.Cproto, e.Func, e.Magic = "cfunc", arg(1), "generic_magic", arg(2), arg(3)
	case "JS_CFUNC_SPECIAL_DEF":
		e.Kind, e.Length, e.Cproto, e.Func = "cfunc", arg(1), arg(2), arg(3)
	case "JS_ITERATOR_NEXT_DEF":
		e.Kind, e.Length, e.Cproto, e.Func, e.Magic = "cfunc", arg(1), "iterator_next", arg(2), arg(3)
	case "JS_CGETSET_DEF", "JS_CGETSET_DEF2":
		e.Kind, e.Func, e.Func2 = "getset", arg(1), arg(2)
	case "JS_CGETSET_MAGIC_DEF":
		e.Kind, e.Func, e.Func2, e.Magic = "getset_magic", arg(1), arg(2), arg(3)
	case "JS_PROP_STRING_DEF":
		e.Kind, e.Value = "string", cstring(arg(1))
	case "JS_PROP_INT32_DEF":
		e.Kind, e.Value = "int32", arg(1)
	case "JS_PROP_INT64_DEF":
		e.Kind, e.Value = "int64", arg(1)
	case "JS_PROP_DOUBLE_DEF", "JS_PROP_U2D_DEF":
		e.Kind, e.Value = "double", arg(1)
	case "JS_PROP_UNDEFINED_DEF":
		e.Kind = "undefined"
	case "JS_PROP_ATOM_DEF", "JS_PROP_SYMBOL_DEF":
		e.Kind, e.Value = "atom", arg(1)
	case "JS_PROP_BOOL_DEF":
		e.Kind, e.Value = "bool", arg(1)
	case "JS_OBJECT_DEF":
		e.Kind, e.Value = "object", arg(1)
	case "JS_ALIAS_DEF", "JS_ALIAS_BASE_DEF":
		e.Kind, e.Value = "alias", cstring(arg(1))
	default:
		e.Kind = "?"
	}
	if e.Func == "NULL" {
		e.Func = ""
	}
	if e.Func2 == "NULL" {
		e.Func2 = ""
	}
	if e.Magic == "0" {
		e.Magic = ""
	}
	return e, nil
}

// cstring returns the value of a C string literal (adjacent literals
// joined), or "" when s is not one.
func cstring(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, `"`) {
		return ""
	}
	var b strings.Builder
	for len(s) > 0 {
		if s[0] != '"' {
			return ""
		}
		j := skipString(s, 0)
		lit := s[1 : j-1]
		for i := 0; i < len(lit); i++ {
			if lit[i] == '\\' && i+1 < len(lit) {
				i++
				switch lit[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '0':
					b.WriteByte(0)
				default:
					b.WriteByte(lit[i])
				}
				continue
			}
			b.WriteByte(lit[i])
		}
		s = strings.TrimSpace(s[j:])
	}
	return b.String()
}
