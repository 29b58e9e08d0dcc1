package wasmcore

import "fmt"

// RecursionHeads returns the defined functions (by function index) that
// every cycle of the module's call graph passes through at least one of:
// the targets of the back edges of a depth-first walk from the entry
// points, as loop headers are in a function's control flow. Calls that
// cannot be followed statically are taken to reach every function that can
// be reached that way: a call_indirect reaches every function of its
// signature in a table or named by ref.func, and a call of an import (a
// host function, which may call back) reaches every exported function.
//
// Any run of instructions that does not pass a loop's top either returns or
// enters one of these functions within a bounded number of instructions,
// which is what lets CountInstructions check the count only there and at
// loop tops, and not at the entry of every small function.
func (m *Module) RecursionHeads() (map[uint32]bool, error) {
	imported := m.NumImportedFuncs()
	n := len(m.Functions)
	// Node i is defined function i; node n stands for the exported
	// functions, which a host function may call; then one node per
	// function signature stands for the functions a call_indirect of that
	// signature may reach (wasm checks the signature at the call).
	exported := n
	succ := make([][]int, n+1)
	sigNodes := map[string]int{}
	sigNode := func(typeIdx uint32) int {
		key := "?"
		if int(typeIdx) < len(m.Types) {
			key = m.Types[typeIdx].String()
		}
		if node, ok := sigNodes[key]; ok {
			return node
		}
		succ = append(succ, nil)
		sigNodes[key] = len(succ) - 1
		return len(succ) - 1
	}
	addTarget := func(fn uint32) {
		if fn >= imported && int(fn-imported) < n {
			node := sigNode(m.Functions[fn-imported].Type)
			succ[node] = append(succ[node], int(fn-imported))
		}
	}
	refFuncs := func(in Instr) error {
		if in.Op == OpRefFunc {
			addTarget(in.Index)
		}
		return nil
	}
	for _, e := range m.Elements {
		for _, f := range e.Funcs {
			addTarget(f)
		}
		for _, x := range e.Exprs {
			if err := forEachInstr(x.Code, refFuncs); err != nil {
				return nil, err
			}
		}
	}
	for _, x := range m.Exports {
		if x.Kind == ExternFunc && x.Index >= imported && int(x.Index-imported) < n {
			succ[exported] = append(succ[exported], int(x.Index-imported))
		}
	}
	for i, f := range m.Functions {
		err := forEachInstr(f.Body, func(in Instr) error {
			switch in.Op {
			case OpCall, OpReturnCall:
				if in.Index < imported {
					succ[i] = append(succ[i], exported)
				} else if int(in.Index-imported) < n {
					succ[i] = append(succ[i], int(in.Index-imported))
				}
			case OpCallIndirect, OpReturnCallIndirect:
				succ[i] = append(succ[i], sigNode(in.Index))
			case OpRefFunc:
				addTarget(in.Index)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", imported+uint32(i), err)
		}
	}
	heads := backEdgeTargets(succ, exported, n)
	out := make(map[uint32]bool, len(heads))
	for _, i := range heads {
		out[imported+uint32(i)] = true
	}
	return out, nil
}

// backEdgeTargets walks succ depth first from root, then from every node
// not yet reached, and returns the real nodes (below real) that back edges
// lead to. A back edge to a pseudo-node (real and above) stands for its
// successor on the walk's path, which is on the same cycle.
func backEdgeTargets(succ [][]int, root, real int) []int {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]byte, len(succ))
	marked := make([]bool, len(succ))
	var out []int
	type frame struct{ v, edge int }
	var path []frame
	walk := func(start int) {
		path = append(path[:0], frame{start, 0})
		state[start] = onPath
		for len(path) > 0 {
			f := &path[len(path)-1]
			if f.edge == len(succ[f.v]) {
				state[f.v] = done
				path = path[:len(path)-1]
				continue
			}
			w := succ[f.v][f.edge]
			f.edge++
			switch state[w] {
			case unseen:
				state[w] = onPath
				path = append(path, frame{w, 0})
			case onPath:
				head := w
				if w >= real { // the real node after it on the path
					for i := range path {
						if path[i].v == w && i+1 < len(path) {
							head = path[i+1].v
							break
						}
					}
				}
				if head < real && !marked[head] {
					marked[head] = true
					out = append(out, head)
				}
			}
		}
	}
	walk(root)
	for v := range succ {
		if state[v] == unseen {
			walk(v)
		}
	}
	return out
}
