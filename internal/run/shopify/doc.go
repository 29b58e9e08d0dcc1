// Package shopify runs Shopify Functions the way Shopify's function-runner
// (v9.2.1) runs them, so that jsprof can profile what their authors run:
// it finds the provider a function imports, encodes the input and decodes
// the output in the provider's codec, and implements the two I/O protocols
// that are not WASI. It is I/O glue around a run, not on its hot path, and
// measures nothing itself.
//
// # Providers
//
// A Shopify Function is a small Wasm module importing a provider — a
// QuickJS build for JS functions, or the Wasm API for others — whose
// namespace (import module name) says how to run it (FIELD-NOTES §8):
//
//	namespace                     codec        I/O
//	javy_quickjs_provider_vN      JSON         WASI stdin/stdout/stderr
//	shopify_functions_javy_v1     JSON         WASI
//	shopify_functions_javy_v2     MessagePack  WASI
//	shopify_functions_javy_vN≥3   MessagePack  in memory (Prepare, Finish)
//	shopify_function_v1           MessagePack  WASI
//	shopify_function_vN≥2         MessagePack  in memory
//	shopify_v1                    MessagePack  host functions (V1Host)
//
// What JS reads and writes with (checked end to end by the tests): on the
// JSON providers (javy_quickjs_provider_v*, shopify_functions_javy_v1),
// Javy.IO.readSync(0, buf) and Javy.IO.writeSync(1, bytes) over JSON text;
// on shopify_functions_javy_v2 to v4, ShopifyFunction.readInput(), which
// returns the decoded input, and ShopifyFunction.writeOutput(value) (v2
// also keeps Javy.IO; v3 and v4 have no WASI and so no Javy.IO). console
// writes the logs: stderr, or the in-memory ring buffer.
//
// Lookup gives these facts for a namespace, Identify for a function's
// imports (refusing, as function-runner does, a function that imports WASI
// with an in-memory provider). The namespace is taken from the function,
// never guessed from the provider: a provider declares its own in its
// import_namespace custom section, but javy_quickjs_provider_v1 and _v2
// have none and are otherwise indistinguishable, so CheckProvider only
// requires that what a provider declares (section, else a known file name)
// is what the function imports, and that it exports everything the function
// imports from it with the same types. FindProvider looks a namespace up in
// a folder laid out as function-runner bundles them (NAME.wasm); Resolve
// does all of it from a function and a provider file or folder.
//
// # Codecs
//
// Input files are JSON. Codec.EncodeInput turns one into what the function
// reads: for JSON, minified with Shopify's escapes ("/" as "\/", U+2028 and
// U+2029 as \u2028 and \u2029) and otherwise as serde_json writes it, keys
// in input order and numbers exactly as written; for MessagePack, converted
// with integers in their smallest form and other numbers as float64, as
// function-runner's encoder does. Codec.DecodeOutput turns the output back
// into compact JSON (MessagePack integers stay integers, floats keep a
// ".0"; bytes after a MessagePack value are a *TrailingBytes error holding
// the value, which function-runner's decoder shows, ignoring them). An
// output that does not decode is no failure of the run: function-runner
// counts it a success and shows the bytes (WriteOutput, Shown.Problem). The Raw codec passes bytes through. MessagePack is handled with
// github.com/vmihailenco/msgpack/v5's low-level encoder and decoder calls,
// over an ordered JSON tree of this package's own, because maps must keep
// their order and numbers their kind.
//
// # In-memory I/O
//
// shopify_functions_javy_v3+ and shopify_function_v2+ use no WASI. A run
// is: instantiate the provider under its namespace; Prepare (the provider's
// initialize(input_len) -> offset, and the input written there), before
// the function module is instantiated (runner.Options.BeforeMain); call the
// function's export; Finish (the provider's finalize() -> offset of six
// little-endian u32s: output offset and length, then the logs' ring buffer
// as two offset/length pairs, older part first; logs past LogLimit marked
// with LogTruncated, as function-runner marks them). Prepare and Finish run
// provider code that function-runner does not count as the function's
// instructions; a profiler should leave them out too. A static build of an
// in-memory provider (SelfProvided) exports initialize and finalize itself:
// function-runner cannot run it; Configure runs it through them, Prepare
// just before the call.
//
// # The 2021–2022 ABI
//
// Javy builds of 2021–2022 export shopify_main and import shopify_v1:
// input_len, input_copy and output_copy. V1Host implements them as a wazero
// host module, holding the input and collecting the output.
//
// # Limits
//
// limits.go owns function-runner's limits (InstructionLimit, InputLimit,
// OutputLimit) and how a scale factor scales them (ScaledLimit, Limits,
// which builds a run's jsprofile.Limits); the factor itself, from the
// function's schema, input query and input, is the subpackage
// scalelimits's. Run.ScaleFactor carries a run's.
//
// ReadInput reads a function's input file (--input) as jsprof reads the
// files it does not control (internal/fileio): a regular file only, never
// blocking (a FIFO is refused at once), bounded (internal/run/inputfile
// lists the files several --input name).
//
// This package depends on wasmcore, wazero, internal/fileio, internal/cli,
// jsframes/jsprofile (the Limits type) and internal/run/runner (Configure
// sets a runner.Options up for a
// function's I/O): the profiler calls it, not the other way round, and
// the runner knows nothing of it.
package shopify
