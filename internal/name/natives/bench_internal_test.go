package natives

import "testing"

// BenchmarkParseCatalog is the one-time cost of the first Scan.
func BenchmarkParseCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseCatalog(catalogJSON); err != nil {
			b.Fatal(err)
		}
	}
}
