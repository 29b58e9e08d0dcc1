//go:build !linux

package naming

// touchedRegions returns all of b: without mincore, every page is read.
func touchedRegions(b []byte) [][2]int { return [][2]int{{0, len(b)}} }
