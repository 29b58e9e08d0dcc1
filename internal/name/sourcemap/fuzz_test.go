package sourcemap

import (
	"context"
	"testing"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// FuzzParse: a map is untrusted bytes. Whatever they are, Parse returns a
// map or an error, and every lookup, Check and the inline-map finder on
// what it returns answer without a panic, and Apply names a profile
// after it that reads back.
func FuzzParse(f *testing.F) {
	f.Add(minifiedMap(f), []byte(minified))
	f.Add([]byte(`{"version":3,"sections":[{"offset":{"line":0,"column":3},"map":{"version":3,"sources":["a"],"names":["n"],"mappings":"AAAAA;CACA"}}]}`), []byte("abc\ndef"))
	f.Add([]byte(`{"version":3,"sources":[null],"sourcesContent":[null],"mappings":";;gBAAA,C"}`), []byte("\r\n\r\n"))
	f.Add([]byte(`{"version":3,"sources":["webpack://app/./src/x.ts"],"sourceRoot":"/r","mappings":"AAAA"}`), []byte("é𝄞x"))
	f.Fuzz(func(t *testing.T, data, program []byte) {
		m, err := Parse(context.Background(), data, "dir")
		if err != nil {
			return
		}
		g := NewGenerated("p.js", program)
		_ = Loaded{Map: m, From: "fuzz"}.Check(context.Background(), g)
		for line := 0; line <= 3; line++ {
			for col := -1; col <= 40; col++ {
				m.Lookup(line, col)
				m.At(line, col)
				g.UTF16Column(line, col)
			}
		}
		FromSource(context.Background(), append(program, "\n//# sourceMappingURL=data:application/json;base64,e30=\n"...), "p.js")

		// Apply trusts a map that passed Check, but must not fail on
		// one that did not.
		b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeSample})
		for i, pos := range [][2]int{{1, 1}, {1, 9}, {2, 3}, {3, 0}, {9, 99}} {
			f := jsprofile.JSFrameAt("t", "p.js", 1, 1+i%2, pos[0], pos[1], 0x100, uint32(i))
			b.Add([]jsprofile.Frame{jsprofile.JSFrameAt("<eval>", "p.js", 1, 0, 1, 3, 0x200, uint32(i)), f}, 1, 0, 0)
		}
		p, err := b.Profile()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Apply(p, Loaded{Map: m, From: "fuzz"}, g); err != nil {
			t.Fatal(err)
		}
		if _, err := jsprofile.Read(p); err != nil {
			t.Fatalf("the named profile does not read back: %v", err)
		}
	})
}
