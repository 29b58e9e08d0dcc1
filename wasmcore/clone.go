package wasmcore

import "slices"

// Clone returns a copy of the module that can be edited as Decode's
// modules are, by assignment, without changing m: its slices of items
// (types, imports, functions, globals, exports, elements, data segments,
// custom sections) are copies, and so are Start, DataCount and Names; the
// bytes the items hold (a function's Body, a segment's Init, a custom
// section's Data, a type's parameters) are shared with m, and so is what
// was decoded, which Encode compares with to keep unchanged parts
// byte-identical. It costs a few slices of headers, not a decode: edit a
// clone by replacing an item or appending to its slices (as the rewrites
// of this package do), never by writing into its shared bytes.
func (m *Module) Clone() *Module {
	c := &Module{
		Types:      slices.Clone(m.Types),
		Imports:    slices.Clone(m.Imports),
		Functions:  slices.Clone(m.Functions),
		Tables:     slices.Clone(m.Tables),
		Memories:   slices.Clone(m.Memories),
		Globals:    slices.Clone(m.Globals),
		Exports:    slices.Clone(m.Exports),
		Elements:   slices.Clone(m.Elements),
		Data:       slices.Clone(m.Data),
		Customs:    slices.Clone(m.Customs),
		Names:      m.Names.clone(),
		src:        m.src,
		rewriteErr: m.rewriteErr,
	}
	if m.Start != nil {
		start := *m.Start
		c.Start = &start
	}
	if m.DataCount != nil {
		n := *m.DataCount
		c.DataCount = &n
	}
	return c
}
