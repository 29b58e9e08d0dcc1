package shopify_test

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/jsprof/jsprof/internal/run/shopify"
)

// FuzzMinifyJSON: input files are the user's, so any bytes must give an
// error or valid JSON, and minifying is idempotent (the escapes it adds
// read back as the same strings).
func FuzzMinifyJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[2,{"c":"gid://x\u2028"}]}`, `[-0.5e-3,1E5,true,null,"\"\\\/\u0001"]`, `{"a":1,"a":2}`, `[[[[]]]]`, "\"\xff\"", `1 2`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := shopify.MinifyJSON(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("MinifyJSON(%q) = %q, not valid JSON", in, out)
		}
		again, err := shopify.MinifyJSON(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("MinifyJSON(%q) = %q, not a fixed point: %q, %v", in, out, again, err)
		}
		if _, err := shopify.JSONToMessagePack(in); err != nil {
			t.Fatalf("JSONToMessagePack(%q) fails where MinifyJSON does not: %v", in, err)
		}
	})
}

// FuzzMessagePackToJSON: outputs are the guest's, so any bytes must give an
// error or valid JSON, which converts back to MessagePack that gives the
// same JSON again.
func FuzzMessagePackToJSON(f *testing.F) {
	for _, s := range []string{"82a162a3612f62a161c0", "96007fccffd0dfcfffffffffffffffffd38000000000000000",
		"93cb3ff0000000000000cb0000000000000000cb8000000000000000", "ca3dcccccd", "92cb7ff8000000000000c4", "ddffffffff", "8101a161"} {
		b, err := hex.DecodeString(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := shopify.MessagePackToJSON(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("MessagePackToJSON(%x) = %q, not valid JSON", in, out)
		}
		mp, err := shopify.JSONToMessagePack(out)
		if err != nil {
			t.Fatalf("JSONToMessagePack(%q): %v", out, err)
		}
		again, err := shopify.MessagePackToJSON(mp)
		if err != nil || string(again) != string(out) {
			t.Fatalf("MessagePackToJSON(%x) = %q, but after a round trip %q, %v", in, out, again, err)
		}
	})
}
