// Package inputfile reads what jsprof run's --input names: the files a
// folder holds (List), and each file as one of three kinds, told apart by
// its shape (Read):
//
//   - a Shopify CLI run log, as `shopify app dev` and `shopify app logs`
//     write each function run they stream to
//     <log folder>/<client id>/<timestamp>_extensions_<handle>_<id>.json
//     (Shopify/cli's services/app-logs/utils.ts, toFormattedAppLogJson):
//     a JSON object with a "logType" string and a "payload" object. Its
//     logType must be "function_run" (network-access logs share the
//     folder), and its payload holds "input", "export" and, when
//     production ran it, "fuelConsumed": the instructions production
//     charged. `shopify app function replay` reads the same two fields;
//   - a Shopify CLI test fixture, as `shopify app function
//     generate-fixture` writes tests/fixtures/<name>.json: a JSON object
//     with "input", "output" and an "export" string, and no member beside
//     "name", "query" and "target";
//   - anything else: the function's input JSON itself, as before.
//
// Shopify CLI's own tests write a payload's input and output as JSON
// text inside a string; a string holding a JSON object or array is read
// as that value, any other value as it is.
//
// It also owns how a function's output is checked against a fixture's
// (Mismatch: as JSON values, numbers by value, not as bytes).
//
// It reads files through internal/run/shopify's ReadInput (a regular file,
// bounded) and parses untrusted bytes only with encoding/json; it runs
// nothing and knows nothing of the profile. The profiler calls it for each
// input; what is shown of its facts belongs to internal/view/report.
package inputfile
