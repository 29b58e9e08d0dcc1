package sourcemap

import (
	"testing"
)

// FuzzParse: a map is untrusted bytes. Whatever they are, Parse returns a
// map or an error, and every lookup, Check and the inline-map finder on
// what it returns answer without a panic.
func FuzzParse(f *testing.F) {
	f.Add(minifiedMap(f), []byte(minified))
	f.Add([]byte(`{"version":3,"sections":[{"offset":{"line":0,"column":3},"map":{"version":3,"sources":["a"],"names":["n"],"mappings":"AAAAA;CACA"}}]}`), []byte("abc\ndef"))
	f.Add([]byte(`{"version":3,"sources":[null],"sourcesContent":[null],"mappings":";;gBAAA,C"}`), []byte("\r\n\r\n"))
	f.Add([]byte(`{"version":3,"sources":["webpack://app/./src/x.ts"],"sourceRoot":"/r","mappings":"AAAA"}`), []byte("é𝄞x"))
	f.Fuzz(func(t *testing.T, data, program []byte) {
		m, err := Parse(data, "dir")
		if err != nil {
			return
		}
		g := NewGenerated("p.js", program)
		_ = Loaded{Map: m, From: "fuzz"}.Check(g)
		for line := 0; line <= 3; line++ {
			for col := -1; col <= 40; col++ {
				m.Lookup(line, col)
				m.At(line, col)
				g.UTF16Column(line, col)
			}
		}
		FromSource(append(program, "\n//# sourceMappingURL=data:application/json;base64,e30=\n"...), "p.js")
	})
}
