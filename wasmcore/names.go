package wasmcore

import (
	"maps"
	"slices"
)

// Name subsection ids (extended name section proposal).
const (
	nameModule = 0
	nameFunc   = 1
	nameLocal  = 2
	nameGlobal = 7
	nameData   = 9
)

// parseNames parses the payload of a "name" custom section; off is its file
// offset, for errors. Subsections other than module, function, local,
// global and data segment names are returned raw so they survive a rewrite.
func parseNames(data []byte, off int) (*NameSection, []nameSub, error) {
	ns := &NameSection{
		Funcs:        map[uint32]string{},
		Locals:       map[uint32]map[uint32]string{},
		Globals:      map[uint32]string{},
		DataSegments: map[uint32]string{},
	}
	var extra []nameSub
	r := &reader{b: data, end: len(data), base: off, what: "name section"}
	seen := map[byte]bool{}
	for r.pos < r.end {
		id, err := r.byte()
		if err != nil {
			return nil, nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, nil, err
		}
		payload, err := r.bytes(int(min(size, 1<<31-1)))
		if err != nil {
			return nil, nil, err
		}
		if seen[id] {
			return nil, nil, r.errAt(r.pos, malformed("duplicate name subsection %d", id))
		}
		seen[id] = true
		sr := &reader{b: data, pos: r.pos - len(payload), end: r.pos, base: off, what: "name subsection"}
		switch id {
		case nameModule:
			ns.Module, err = sr.name()
		case nameFunc:
			err = readNameMap(sr, ns.Funcs)
		case nameGlobal:
			err = readNameMap(sr, ns.Globals)
		case nameData:
			err = readNameMap(sr, ns.DataSegments)
		case nameLocal:
			var n int
			if n, err = sr.count(2); err != nil {
				return nil, nil, err
			}
			for i := 0; i < n && err == nil; i++ {
				var fi uint32
				if fi, err = sr.u32(); err != nil {
					break
				}
				m := ns.Locals[fi]
				if m == nil {
					m = map[uint32]string{}
					ns.Locals[fi] = m
				}
				err = readNameMap(sr, m)
			}
		default:
			extra = append(extra, nameSub{id: id, payload: payload})
			sr.pos = sr.end
		}
		if err != nil {
			return nil, nil, err
		}
		if sr.pos != sr.end {
			return nil, nil, sr.errAt(sr.pos, malformed("name subsection %d size mismatch", id))
		}
	}
	return ns, extra, nil
}

func readNameMap(r *reader, m map[uint32]string) error {
	n, err := r.count(2)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		idx, err := r.u32()
		if err != nil {
			return err
		}
		s, err := r.name()
		if err != nil {
			return err
		}
		m[idx] = s
	}
	return nil
}

func (ns *NameSection) clone() *NameSection {
	if ns == nil {
		return nil
	}
	c := &NameSection{
		Module:       ns.Module,
		Funcs:        maps.Clone(ns.Funcs),
		Globals:      maps.Clone(ns.Globals),
		DataSegments: maps.Clone(ns.DataSegments),
	}
	if ns.Locals != nil {
		c.Locals = make(map[uint32]map[uint32]string, len(ns.Locals))
		for k, v := range ns.Locals {
			c.Locals[k] = maps.Clone(v)
		}
	}
	return c
}

// equalNameMaps treats nil and empty maps alike.
func equalNameMaps(a, b map[uint32]string) bool {
	return len(a) == len(b) && maps.Equal(a, b)
}

func (ns *NameSection) equal(o *NameSection) bool {
	if ns == nil || o == nil {
		return ns == o
	}
	if ns.Module != o.Module || !equalNameMaps(ns.Funcs, o.Funcs) || !equalNameMaps(ns.Globals, o.Globals) ||
		!equalNameMaps(ns.DataSegments, o.DataSegments) {
		return false
	}
	// Functions with an empty local map are the same as absent ones.
	count := func(m map[uint32]map[uint32]string) int {
		n := 0
		for _, v := range m {
			if len(v) > 0 {
				n++
			}
		}
		return n
	}
	if count(ns.Locals) != count(o.Locals) {
		return false
	}
	for k, v := range ns.Locals {
		if len(v) > 0 && !equalNameMaps(v, o.Locals[k]) {
			return false
		}
	}
	return true
}

// encodeNames writes a name section payload from ns plus the raw
// subsections kept from the original, in subsection id order as the
// extended name section proposal requires.
func encodeNames(ns *NameSection, extra []nameSub) []byte {
	type sub struct {
		id      byte
		payload []byte
	}
	var subs []sub
	if ns.Module != "" {
		subs = append(subs, sub{nameModule, appendName(nil, ns.Module)})
	}
	if len(ns.Funcs) > 0 {
		subs = append(subs, sub{nameFunc, appendNameMap(nil, ns.Funcs)})
	}
	var locals []byte
	var nfuncs uint32
	for _, fi := range slices.Sorted(maps.Keys(ns.Locals)) {
		if len(ns.Locals[fi]) == 0 {
			continue
		}
		nfuncs++
		locals = appendU32(locals, fi)
		locals = appendNameMap(locals, ns.Locals[fi])
	}
	if nfuncs > 0 {
		subs = append(subs, sub{nameLocal, append(appendU32(nil, nfuncs), locals...)})
	}
	if len(ns.Globals) > 0 {
		subs = append(subs, sub{nameGlobal, appendNameMap(nil, ns.Globals)})
	}
	if len(ns.DataSegments) > 0 {
		subs = append(subs, sub{nameData, appendNameMap(nil, ns.DataSegments)})
	}
	for _, e := range extra {
		subs = append(subs, sub{e.id, e.payload})
	}
	slices.SortStableFunc(subs, func(a, b sub) int { return int(a.id) - int(b.id) })
	var out []byte
	for _, s := range subs {
		out = append(out, s.id)
		out = appendU32(out, uint32(len(s.payload)))
		out = append(out, s.payload...)
	}
	return out
}

func appendNameMap(b []byte, m map[uint32]string) []byte {
	b = appendU32(b, uint32(len(m)))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b = appendU32(b, k)
		b = appendName(b, m[k])
	}
	return b
}
