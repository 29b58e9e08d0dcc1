// Package report computes the cost tables of a jsprof profile (Tables:
// per opcode, per JS function and opcode, per line, per Wasm function with
// the opcodes and natives that reached it, and the buckets) from
// the profile alone, and shows them as text, CSV and JSON: the views of
// jsprof report and of jsprof run --report and --report-json (Report;
// Format picks one of the three writers, for a report or a diff).
//
// It also writes jsprof run's text tables for a Shopify Function
// (function.go): the one-line summary in function-runner's words and
// units (WriteFunctionSummary, HumanInstructions, HumanSize), the limits
// a run went over (OverLimit), and, for several inputs, a row per input
// (WriteInputsTable, InputOverLimit), limits scaled by @scaleLimits
// reading "11M × 2 = 22M" in each; and the lines that follow a run of
// one input or several (inputcheck.go): the uncaught errors, the gates,
// production's count beside jsprof's, a fixture's output checked, an
// output function-runner shows as it is (WriteInputThrows,
// WriteInputVerdicts); and the table of jsprof run --input-cost (inputcost.go: InputCost,
// PathCost, WriteInputCost, and WithCostliest for the table of inputs),
// which package inputcost measures.
//
// It is the one computation of those tables: whatever prints a cost reads
// it from here, so every output agrees. It reads profiles through package
// jsprofile and must not depend on how they were measured. It shows one
// profile only: comparing two is package diff's, HTML pages are package
// htmlview's, and it must not import either (they import it).
package report
