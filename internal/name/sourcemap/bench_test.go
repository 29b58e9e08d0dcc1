package sourcemap

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// hostileMap is a map of n segments as hostile inputs write them, with
// the program it claims to map: "A," segments (one field, 2 bytes each:
// the most segments a byte can ask for), or "AAAA," segments pointing at
// column 4090 of a 4,095-byte line of a non-ASCII sourcesContent (the
// line Check walked from its start for every segment).
func hostileMap(n int, deep bool) (mapJSON, program []byte) {
	var b strings.Builder
	if !deep {
		b.WriteString(`{"version":3,"sources":["a.js"],"mappings":"`)
		b.WriteString(strings.Repeat("A,", n-1))
		b.WriteString(`A"}`)
		return []byte(b.String()), []byte("x\n")
	}
	line := "é" + strings.Repeat("x", 4090) + "y = 1" // 4,097 bytes, 4,096 UTF-16 units
	line = line[:4095]
	b.WriteString(`{"version":3,"sources":["a.js"],"sourcesContent":[` + strconv.Quote(line) + `],"mappings":"AAA2/D`)
	b.WriteString(strings.Repeat(",AAAA", n-1))
	b.WriteString(`"}`)
	return []byte(b.String()), []byte("y = 1\n")
}

// BenchmarkParseCheck reads and checks a hostile map of 1M segments:
// bytes/op over the map's size (2 MiB, 5 MiB) is what a byte of map
// costs in memory, ns/op its time. Before the bound (54d7805): A 140 MB,
// 208 ms; col4090 143 MB, 7.07 s. After: 27 MB, 169 ms; 30 MB, 0.30 s.
func BenchmarkParseCheck(b *testing.B) {
	for _, tt := range []struct {
		name string
		deep bool
	}{{"A", false}, {"col4090", true}} {
		b.Run(tt.name, func(b *testing.B) {
			data, prog := hostileMap(1<<20, tt.deep)
			g := NewGenerated("p.js", prog)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				m, err := Parse(context.Background(), data, "")
				if err != nil {
					b.Fatal(err)
				}
				_ = Loaded{Map: m}.Check(context.Background(), g)
			}
			b.StopTimer()
		})
	}
}
