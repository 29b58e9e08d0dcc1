package inputfile_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/run/inputfile"
)

// runLog is a run log in the shape Shopify CLI writes one
// (services/app-logs/utils.ts, toFormattedAppLogJson: the app log's keys
// camelCased, its payload a FunctionRunLog, logs split into lines),
// with the values of Shopify/cli's poll-app-logs.test.ts.
const runLog = `{
  "shopId": 1,
  "apiClientId": 1830457,
  "payload": {
    "export": "run",
    "input": {
      "cart": {
        "lines": [
          {
            "quantity": 3,
            "merchandise": {
              "__typename": "ProductVariant",
              "id": "gid:\\/\\/shopify\\/ProductVariant\\/2"
            }
          }
        ]
      }
    },
    "inputBytes": 123,
    "output": {
      "discountApplicationStrategy": "FIRST",
      "discounts": []
    },
    "outputBytes": 182,
    "logs": [
      "1",
      "2"
    ],
    "functionId": "e57b4d31-2038-49ff-a0a1-1eea532414f7",
    "fuelConsumed": 512436,
    "target": "test.run"
  },
  "logType": "function_run",
  "status": "success",
  "source": "my-function",
  "sourceNamespace": "extensions",
  "logTimestamp": "2024-05-23T19:17:00.240053Z",
  "localTime": "2024-05-23 19:17:00",
  "storeName": "my-store.myshopify.com"
}`

const fixture = `{
  "name": "two-lines",
  "export": "cart-lines-discounts-generate-run",
  "query": "src/cart_lines_discounts_generate_run.graphql",
  "target": "cart.lines.discounts.generate.run",
  "input": {
    "cart": {"lines": [1.5e3, 2]}
  },
  "output": {
    "operations": []
  }
}`

// TestParse: each kind told by its shape, its input as the file has it
// (numbers as written), its export and its facts; a file of neither
// kind is the input itself, whatever members it has besides.
func TestParse(t *testing.T) {
	t.Parallel()
	stringLog := `{"logType":"function_run","payload":{"export":"run","input":"{\"a\": [1]}","output":"{}","fuelConsumed":7}}`
	tests := []struct {
		name       string
		in         string
		kind       inputfile.Kind
		json       string
		export     string
		expected   string
		production uint64
		err        string
	}{
		{"run log", runLog, inputfile.RunLog, "", "run", "", 512436, ""},
		{"run log, its input as JSON text", stringLog, inputfile.RunLog, `{"a": [1]}`, "run", "", 7, ""},
		{"run log, a string input that is not JSON", `{"logType":"function_run","payload":{"export":"run","input":"hi"}}`, inputfile.RunLog, `"hi"`, "run", "", 0, ""},
		{"fixture", fixture, inputfile.Fixture, `{
    "cart": {"lines": [1.5e3, 2]}
  }`, "cart-lines-discounts-generate-run", `{
    "operations": []
  }`, 0, ""},
		{"fixture without its optional members", `{"export":"run","input":{},"output":{"a":1}}`, inputfile.Fixture, `{}`, "run", `{"a":1}`, 0, ""},
		{"an input with another member is plain", `{"export":"run","input":{},"output":{},"cart":1}`, inputfile.Plain, `{"export":"run","input":{},"output":{},"cart":1}`, "", "", 0, ""},
		{"an input with an export that is not a string", `{"export":1,"input":{},"output":{}}`, inputfile.Plain, `{"export":1,"input":{},"output":{}}`, "", "", 0, ""},
		{"a plain input with a payload", `{"payload":{"export":"run","input":{}}}`, inputfile.Plain, `{"payload":{"export":"run","input":{}}}`, "", "", 0, ""},
		{"not an object", `[1, 2]`, inputfile.Plain, `[1, 2]`, "", "", 0, ""},
		{"not JSON", `{`, inputfile.Plain, `{`, "", "", 0, ""},
		{"network access log", `{"logType":"function_network_access.request_execution","payload":{"attempt":1}}`, 0, "", "", "", 0, `a Shopify CLI log of "function_network_access.request_execution", not of a function run`},
		{"run log without export", `{"logType":"function_run","payload":{"input":{}}}`, 0, "", "", "", 0, "without its payload's export"},
		{"run log without input", `{"logType":"function_run","payload":{"export":"run","input":null}}`, 0, "", "", "", 0, "without its payload's input"},
		{"run log with a bad fuel count", `{"logType":"function_run","payload":{"export":"run","input":{},"fuelConsumed":-1}}`, 0, "", "", "", 0, "a Shopify CLI run log: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := inputfile.Parse([]byte(tt.in))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.kind, f.Kind)
			if tt.json != "" {
				assert.Equal(t, tt.json, string(f.JSON))
			}
			assert.Equal(t, tt.export, f.Export)
			assert.Equal(t, tt.expected, string(f.Expected))
			assert.Equal(t, tt.production, f.Production)
		})
	}
	// The run log's input is the payload's, kept as written.
	f, err := inputfile.Parse([]byte(runLog))
	require.NoError(t, err)
	var in map[string]any
	require.NoError(t, json.Unmarshal(f.JSON, &in))
	assert.Contains(t, in, "cart")
	assert.Contains(t, string(f.JSON), `"gid:\\/\\/shopify`)
}

// TestRead: a file is read bounded and named in its errors.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "net.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"logType":"x","payload":{}}`), 0o644))
	_, err := inputfile.Read(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input "+bad+": ")
	_, err = inputfile.Read(dir)
	assert.Error(t, err, "a folder is no input file")
}

// TestMismatch: outputs compared as JSON values; the places that differ
// named, at most MaxDifferences of them.
func TestMismatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want, got string
		diff            []string
	}{
		{"equal, members in another order, spaces", `{"a": 1, "b": [true, null, "x"]}`, `{"b":[true,null,"x"],"a":1}`, nil},
		{"numbers by value", `{"n": 10, "m": 1.5e3}`, `{"n":10.0,"m":1500}`, nil},
		{"a number differs", `{"discounts":[{"value":{"percentage":{"value":10}}}]}`, `{"discounts":[{"value":{"percentage":{"value":15}}}]}`,
			[]string{"$.discounts[0].value.percentage.value: want 10, got 15"}},
		{"members missing and extra", `{"a":1,"b c":2}`, `{"a":1,"d":"x"}`, []string{`$["b c"]: want 2, got nothing`, `$.d: want nothing, got "x"`}},
		{"lengths", `[1,2,3]`, `[1,2]`, []string{"$: want 3 elements, got 2"}},
		{"kinds", `{"a":{},"b":[],"c":"1"}`, `{"a":[],"b":{},"c":1}`, []string{"$.a: want an object, got an array", "$.b: want an array, got an object", `$.c: want "1", got 1`}},
		{"no output", `{}`, ``, []string{"$: want {}, got no JSON output"}},
		{"output not JSON", `{}`, `export1`, []string{"$: want {}, got no JSON output"}},
		{"many", `[1,2,3,4,5,6,7]`, `[0,0,0,0,0,0,0]`, []string{"$[0]: want 1, got 0", "$[1]: want 2, got 0", "$[2]: want 3, got 0", "$[3]: want 4, got 0", "$[4]: want 5, got 0", "and 2 more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.diff, inputfile.Mismatch([]byte(tt.want), []byte(tt.got)))
		})
	}
}

// TestList: a folder is its *.json files by name; what is not a file or
// folder, or a folder without one, is an error.
func TestList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"b.json", "a.json", "c.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d.json"), 0o755))
	one := filepath.Join(dir, "c.txt")
	got, err := inputfile.List([]string{dir, one})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), one}, got)
	_, err = inputfile.List([]string{filepath.Join(dir, "d.json")})
	assert.ErrorContains(t, err, "no *.json file in the folder")
	_, err = inputfile.List([]string{filepath.Join(dir, "none")})
	assert.ErrorContains(t, err, "--input: ")
}
