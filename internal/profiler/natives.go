package profiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/merge/stacks"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/internal/profiler/enginecache"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// Native functions: where the engine calls them (for the meter) and what
// they are called (for the profile), both from the engine module alone
// (package natives).

// nativeCalls locates the engine's js_call_c_function in m (the module as
// it was, before instrumenting) for the meter, or says why it cannot: the
// natives are then counted together, as the (native functions) bucket.
func nativeCalls(m *wasmcore.Module, r *dispatch.Report) (*meter.NativeCalls, error) {
	c, err := natives.FindCFunctionCalls(m, r)
	if err != nil {
		return nil, err
	}
	n := &meter.NativeCalls{Func: c.Func, TableIndex: c.TableIndex, FuncOffset: c.FuncOffset, MagicOffset: c.MagicOffset, HasMagic: c.MagicOffset != 0}
	// The class calls tell js_call_c_function apart by its table index:
	// without one, they are left alone (natives are then still identified
	// at js_call_c_function's entry).
	if c.TableIndex != 0 {
		for _, s := range c.ClassCalls {
			n.ClassCalls = append(n.ClassCalls, s.BodyOffset)
		}
	}
	return n, nil
}

// withNatives is instrument's meter options with the engine's natives
// located, unless the options say where they are already.
func withNatives(m *wasmcore.Module, r *dispatch.Report, opts meter.Options) meter.Options {
	if opts.Natives == nil {
		opts.Natives, _ = nativeCalls(m, r) // nil: prepareNatives warns
	}
	return opts
}

// prepareNatives takes the natives' names from the engine's function lists
// (natives.Scan, once per engine: engineFacts) and names the Wasm
// functions a stripped engine does not, for the profile's Wasm frames:
// each native's C function after its builtin, the interpreter and
// js_call_c_function after what they are. A QuickJS engine whose natives
// cannot be told apart is warned about.
func (s *Session) prepareNatives(plan *meter.Plan) {
	quickjs := strings.HasPrefix(s.analysis.Engine.Family, "quickjs")
	if plan.Natives == nil && quickjs {
		_, err := nativeCalls(s.engine, s.analysis)
		s.warn(fmt.Errorf("native functions are counted together as %s: %w", jsprofile.BucketNative, err))
	}
	list, err := s.engineFacts().NativesFound()
	switch {
	case err != nil && quickjs:
		s.warn(fmt.Errorf("naming native functions: %w", err))
	case err == nil:
		s.natives = nativeCatalogue(list)
	}
	names := wasmNativeNames(list)
	if names == nil {
		names = map[uint32]string{}
	}
	names[s.analysis.Dispatch.FunctionIndex] = "JS_CallInternal (interpreter)"
	if n := plan.Natives; n != nil {
		names[n.Func] = "js_call_c_function (calls natives)"
	}
	s.wasmNames = names
}

// nativeCatalogue indexes the natives kept for the engine as Scan's
// catalogue does: naming asks it which native a call runs
// (natives.Catalogue.ByCall).
func nativeCatalogue(list []enginecache.Native) *natives.Catalogue {
	ns := make([]natives.Native, len(list))
	for i, n := range list {
		ns[i] = natives.Native{Name: n.Name, Property: n.Property, Kind: n.Kind, TableIndex: n.Table, Magic: n.Magic, Func: n.Func}
	}
	return natives.NewCatalogue(ns)
}

// wasmNativeNames names each Wasm function that natives' entries point at
// after its builtins: "JSON.stringify (native)", or the builtins that share
// it joined as the catalogue joins them.
func wasmNativeNames(list []enginecache.Native) map[uint32]string {
	if list == nil {
		return nil
	}
	byFunc := map[uint32][]string{}
	for _, n := range list {
		if !slices.Contains(byFunc[n.Func], n.Name) {
			byFunc[n.Func] = append(byFunc[n.Func], n.Name)
		}
	}
	out := make(map[uint32]string, len(byFunc))
	for f, names := range byFunc {
		out[f] = natives.JoinCandidates(names) + " (native)"
	}
	return out
}

// nativeName names the native a function object holding table index i and
// magic calls: the one builtin the engine's lists declare with them; when
// several share both (one C function serving many objects, such as the
// [Symbol.species] getters), the member they all are with its owner
// unknown ("get ?.[Symbol.species]", the same on every engine), else the
// candidates joined; "" (stacks then says native@table[i]) when none is
// declared: never a guess.
func nativeName(cat *natives.Catalogue, i uint32, magic int16) string {
	if cat == nil {
		return ""
	}
	ns := cat.ByCall(i, magic)
	var names []string
	sameMember := true
	for _, n := range ns {
		if !slices.Contains(names, n.Name) {
			names = append(names, n.Name)
		}
		sameMember = sameMember && n.Property == ns[0].Property && n.Kind == ns[0].Kind
	}
	if len(names) > 1 && sameMember {
		return natives.MemberName(ns[0])
	}
	return natives.JoinCandidates(names)
}

// nativeIdentity makes id name natives from the engine's catalogue.
func (s *Session) nativeIdentity(id stacks.Identity) stacks.Identity {
	x := s.natives
	return stacks.WithNatives(id, func(i uint32, magic int16) string { return nativeName(x, i, magic) })
}
