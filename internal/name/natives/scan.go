package natives

// scanner holds what one Scan reads of the module.
type scanner struct {
	img   image
	table funcTable
}

// run is a sequence of well-formed entries at consecutive addresses.
type run struct {
	entries []rawEntry
}

// findRuns returns every maximal run of well-formed entries, in address
// order. Entries are looked for at every 8-byte boundary that overlaps a
// chunk (an entry is 8-aligned: its union holds an int64 and a double),
// then chained at the entry stride.
func (s *scanner) findRuns() []run {
	var runs []run
	var next uint64 // addresses below it are scanned or inside a run
	for ci := range s.img.Chunks {
		c := &s.img.Chunks[ci]
		end := c.Base + uint64(len(c.Data))
		a := max(next, (c.Base+1-min(c.Base+1, entrySize)+7)&^7)
		for ; a < end; a += 8 {
			e, ok := s.decodeEntry(uint32(a))
			if !ok {
				continue
			}
			r := run{entries: []rawEntry{e}}
			b := a + entrySize
			for ; b+entrySize <= 1<<32; b += entrySize {
				e, ok := s.decodeEntry(uint32(b))
				if !ok {
					break
				}
				r.entries = append(r.entries, e)
			}
			runs = append(runs, r)
			a = b - 8 // go on after the run
		}
		next = max(next, a)
	}
	return runs
}
