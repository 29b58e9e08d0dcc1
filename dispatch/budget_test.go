package dispatch_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/wasmcore"
)

// maxStepsPerCodeByte bounds the steps of a whole analysis per byte of
// code on the modules we know (they take 2 to 4, docs/performance.md): far
// below the per-function budget (dispatch.StepsPerByte), so that a budget
// that would only just suffice, or a regression making the analysis
// superlinear, shows here rather than as a slow jsprof analyze.
const maxStepsPerCodeByte = 12

func codeBytes(m *wasmcore.Module) int {
	n := 0
	for _, f := range m.Functions {
		n += len(f.Body)
	}
	return n
}

// withCopies returns m with copies of every function but skip appended
// (unreferenced, so the module stays valid and its dispatch unique) until
// its code reaches size bytes.
func withCopies(tb testing.TB, m *wasmcore.Module, skip uint32, size int) *wasmcore.Module {
	tb.Helper()
	b, err := m.Encode()
	require.NoError(tb, err)
	big, err := wasmcore.Decode(b)
	require.NoError(tb, err)
	nImp := big.NumImportedFuncs()
	defined := len(big.Functions)
	for total := codeBytes(big); total < size; {
		for i := range defined {
			if nImp+uint32(i) == skip {
				continue
			}
			f := big.Functions[i]
			big.AddFunction(wasmcore.Function{Type: f.Type, Locals: f.Locals, Body: f.Body})
			total += len(f.Body)
		}
	}
	out, err := big.Encode()
	require.NoError(tb, err)
	big, err = wasmcore.Decode(out)
	require.NoError(tb, err)
	return big
}

// TestAnalysisBudget: the asyncify builds (whose naive reading took more
// than 19 minutes) and a 5 MB module made of copies of one are analysed
// within a number of steps linear in their code, no function running out of
// budget, and the dispatch found as in the build without asyncify.
func TestAnalysisBudget(t *testing.T) {
	cases := []struct {
		engine    string
		funcIndex uint32
		opcodes   int
		family    string
	}{
		{"jitl-asyncify-0.32.0", 222, 244, dispatch.FamilyQuickJS},
		{"jitl-ng-asyncify-0.32.0", 252, 246, dispatch.FamilyQuickJSNG},
	}
	for _, tc := range cases {
		t.Run(tc.engine, func(t *testing.T) {
			m := decodeFile(t, fixtures.EnginePath(t, tc.engine))
			check := func(t *testing.T, m *wasmcore.Module) {
				rep, st, err := dispatch.AnalyzeStats(context.Background(), m, nil)
				require.NoError(t, err)
				code := codeBytes(m)
				t.Logf("%d bytes of code, %d functions interpreted: %d steps (%.2f per byte), at most %d (%.1f%% of its budget) in one function",
					code, st.Functions, st.Steps, float64(st.Steps)/float64(code), st.MaxSteps, 100*st.MaxShare)
				assert.Empty(t, st.Exhausted, "functions out of budget")
				assert.LessOrEqual(t, st.Steps, int64(maxStepsPerCodeByte*code))
				d := rep.Dispatch
				require.NotNil(t, d, rep.Reason)
				assert.Equal(t, tc.funcIndex, d.FunctionIndex)
				assert.Equal(t, tc.opcodes, d.OpcodeCount)
				assert.Equal(t, int64(1), d.Selector.Bias)
				assert.Equal(t, 1.0, d.Confidence)
				assert.Equal(t, tc.family, rep.Engine.Family)
				require.NotNil(t, d.BytecodePointer)
				assert.Equal(t, []uint64{32, 20}, d.BytecodePointer.Path)
				assert.NotContains(t, rep.Reason, "budget")
			}
			t.Run("as shipped", func(t *testing.T) { check(t, m) })
			t.Run("5 MB", func(t *testing.T) {
				if testing.Short() {
					t.Skip("analyses a 5 MB module")
				}
				check(t, withCopies(t, m, tc.funcIndex, 5<<20))
			})
		})
	}
}

// TestAnalysisBudgetAll: every module the tests know is analysed in steps
// linear in its code, without any function running out of budget (which
// would change its evidence).
func TestAnalysisBudgetAll(t *testing.T) {
	paths := map[string]string{}
	for _, tc := range engineCases {
		paths[tc.name] = fixtures.EnginePath(t, tc.name)
	}
	mods, err := interp.Modules()
	require.NoError(t, err)
	for _, md := range mods {
		paths[md.File] = interp.Path(md.File)
	}
	paths["plain"] = fixtures.Path("plain", "plain-O2.wasm")
	if !testing.Short() {
		paths["gowasi"] = buildGoWASI(t)
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(p); err != nil {
				t.Skip(err)
			}
			m := decodeFile(t, p)
			_, st, err := dispatch.AnalyzeStats(context.Background(), m, nil)
			require.NoError(t, err)
			code := codeBytes(m)
			t.Logf("%d bytes of code: %d steps (%.2f per byte; interpreting %.2f, tracing %.2f), at most %d (%.1f%% of its budget) in one function",
				code, st.Steps, float64(st.Steps)/float64(code), float64(st.Interpret)/float64(code), float64(st.Trace)/float64(code), st.MaxSteps, 100*st.MaxShare)
			assert.Empty(t, st.Exhausted)
			assert.LessOrEqual(t, st.Steps, int64(maxStepsPerCodeByte*code)+dispatch.CheckEvery)
		})
	}
}

// TestAnalyzeCancelledMidway: cancelled at any point of the analysis of the
// asyncify build — fingerprint, interpretation, tracing, the final
// dispatch — Analyze returns context.Canceled within a few thousand steps.
func TestAnalyzeCancelledMidway(t *testing.T) {
	m := decodeFile(t, fixtures.EnginePath(t, "jitl-asyncify-0.32.0"))
	_, full, err := dispatch.AnalyzeStats(context.Background(), m, nil)
	require.NoError(t, err)
	for _, at := range []int64{0, 1, full.Steps / 100, full.Steps / 10, full.Steps / 2, full.Steps * 9 / 10, full.Steps - dispatch.CheckEvery} {
		ctx, cancel := context.WithCancel(context.Background())
		cancelledAt := int64(-1)
		rep, st, err := dispatch.AnalyzeStats(ctx, m, func(steps int64) {
			if steps >= at && cancelledAt < 0 {
				cancelledAt = steps
				cancel()
			}
		})
		cancel()
		require.Error(t, err, "cancelled after %d of %d steps", at, full.Steps)
		assert.Nil(t, rep)
		assert.True(t, errors.Is(err, context.Canceled), "%v", err)
		require.GreaterOrEqual(t, cancelledAt, int64(0))
		assert.LessOrEqual(t, st.Steps-cancelledAt, int64(2*dispatch.CheckEvery), "steps taken after the cancellation at %d", cancelledAt)
	}
}

// TestAnalysisBudgetExhausted: a function whose merges cost more than its
// budget (4096 locals needing phis at each of 40000 ifs) is read as
// unknown past that point: the analysis stops within the budget and the
// reason says so.
func TestAnalysisBudgetExhausted(t *testing.T) {
	ifElse := []wasmcore.Instr{{Op: wasmcore.OpI32Const}, {Op: wasmcore.OpIf, Block: wasmcore.BlockEmpty}, {Op: wasmcore.OpElse}, {Op: wasmcore.OpEnd}}
	m, err := wasmcore.Decode(hostileModule(t, 4096, 4096, ifElse, 40_000))
	require.NoError(t, err)
	rep, st, err := dispatch.AnalyzeStats(context.Background(), m, nil)
	require.NoError(t, err)
	assert.Equal(t, []uint32{0}, st.Exhausted)
	budget := dispatch.FunctionBudget(len(m.Functions[0].Body))
	assert.LessOrEqual(t, st.MaxSteps, 2*budget+4096, "interpretation and tracing, a merge of 4096 locals may overshoot")
	assert.Contains(t, rep.Reason, "analysis budget")
	assert.Contains(t, rep.Reason, "ran out in function 0")
	// The byte-driven br_table after the widening is still a candidate.
	require.NotEmpty(t, rep.Candidates)
	assert.Equal(t, "direct", rep.Candidates[0].Selector)
}

// TestAnalysisModuleBudget: 64 functions each worth its whole budget (as in
// TestAnalysisBudgetExhausted) cost no more than the module's budget:
// those interpreted after it ran out are read as unknown at once.
func TestAnalysisModuleBudget(t *testing.T) {
	ifElse := []wasmcore.Instr{{Op: wasmcore.OpI32Const}, {Op: wasmcore.OpIf, Block: wasmcore.BlockEmpty}, {Op: wasmcore.OpElse}, {Op: wasmcore.OpEnd}}
	one, err := wasmcore.Decode(hostileModule(t, 4096, 4096, ifElse, 2000))
	require.NoError(t, err)
	m := withCopies(t, one, ^uint32(0), 64*codeBytes(one))
	require.GreaterOrEqual(t, len(m.Functions), 64)
	rep, st, err := dispatch.AnalyzeStats(context.Background(), m, nil)
	require.NoError(t, err)
	code := codeBytes(m)
	t.Logf("%d functions, %d bytes of code: %d steps, %d functions out of budget", len(m.Functions), code, st.Steps, len(st.Exhausted))
	// Interpretation and tracing have a budget each; a merge of 4096
	// locals may overshoot.
	assert.LessOrEqual(t, st.Steps, 2*int64(dispatch.ModuleStepsPerByte*code+dispatch.ModuleBaseSteps+4096))
	assert.Len(t, st.Exhausted, len(m.Functions))
	assert.Contains(t, rep.Reason, "more: what follows in them was read as unknown")
}
