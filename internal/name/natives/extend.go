package natives

// extend claims the unclaimed entries next to a catalogued array that
// the array has in other versions: a patched engine adds or changes a
// member (Javy's 2024 QuickJS declares Function.prototype.columnNumber
// with JS_CGETSET_DEF where Bellard's later releases use
// JS_CGETSET_MAGIC_DEF), and the rest of the array still matches. An entry
// is claimed from one side only: going outwards from the array, entry by
// entry, while each has a namesake of the same kind (function, accessor,
// value) in some version of that array. An entry both neighbours could
// claim stays unclaimed.
func extend(es []rawEntry, claims []claim) {
	n := len(es)
	for a := 0; a < n; {
		if len(claims[a].versions) > 0 {
			a++
			continue
		}
		b := a
		for b < n && len(claims[b].versions) == 0 {
			b++
		}
		left := make([]claim, b-a)
		right := make([]claim, b-a)
		if a > 0 {
			if arr := soleArray(&claims[a-1]); arr != nil {
				for k := a; k < b; k++ {
					c, ok := namesake(arr, &es[k])
					if !ok {
						break
					}
					left[k-a] = c
				}
			}
		}
		if b < n {
			if arr := soleArray(&claims[b]); arr != nil {
				for k := b - 1; k >= a; k-- {
					c, ok := namesake(arr, &es[k])
					if !ok {
						break
					}
					right[k-a] = c
				}
			}
		}
		for k := a; k < b; k++ {
			l, r := left[k-a], right[k-a]
			switch {
			case len(l.versions) > 0 && len(r.versions) > 0:
				// claimed from both sides: leave it unattributed
			case len(l.versions) > 0:
				claims[k] = l
			case len(r.versions) > 0:
				claims[k] = r
			}
		}
		a = b
	}
}

// soleArray returns the catalogued arrays an entry's claim names when
// they are one C array (in one family or both), or nil.
func soleArray(c *claim) []*catArray {
	var arrs []*catArray
	for _, v := range c.versions {
		if len(arrs) > 0 && (v.array.name != arrs[0].name || v.array.owner != arrs[0].owner) {
			return nil
		}
		seen := false
		for _, a := range arrs {
			seen = seen || a == v.array
		}
		if !seen {
			arrs = append(arrs, v.array)
		}
	}
	return arrs
}

// namesake returns a claim on e by the versions of arrs that have an
// entry of e's name and kind.
func namesake(arrs []*catArray, e *rawEntry) (claim, bool) {
	c := claim{extended: true}
	for _, arr := range arrs {
		for _, v := range arr.versions {
			for j := range v.entries {
				ce := &v.entries[j]
				if ce.name == e.name && sameKind(ce.defType, int(e.defType)) {
					c.versions = append(c.versions, v)
					c.at = append(c.at, j)
					break
				}
			}
		}
	}
	return c, len(c.versions) > 0
}

// sameKind compares def_types by what they declare: a function, an
// accessor (with or without magic), or a value.
func sameKind(a, b int) bool {
	class := func(t int) int {
		switch t {
		case defCFunc:
			return 0
		case defCGetSet, defCGetSetMagic:
			return 1
		}
		return 2
	}
	return class(a) == class(b)
}
