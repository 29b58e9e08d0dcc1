package shopify_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/run/shopify"
)

func TestParseCodec(t *testing.T) {
	for _, c := range []shopify.Codec{shopify.JSON, shopify.MessagePack, shopify.Raw} {
		got, err := shopify.ParseCodec(c.String())
		require.NoError(t, err)
		assert.Equal(t, c, got)
	}
	_, err := shopify.ParseCodec("msgpack")
	assert.ErrorContains(t, err, `unknown codec "msgpack": want json, messagepack or raw`)
}

// TestMinifyJSON checks the input a JSON function reads against
// function-runner's (container.rs: ShopifyJsonFormatter over serde_json
// with preserve_order and arbitrary_precision).
func TestMinifyJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"whitespace and key order", "{ \"b\" : 1,\n \"a\": [ 2, {} , [] ] }", `{"b":1,"a":[2,{},[]]}`},
		{"numbers as written", `[ -0.9191460999999999, 1.0, 1E5, 1e-7, -0, 12345678901234567890123 ]`, `[-0.9191460999999999,1.0,1E5,1e-7,-0,12345678901234567890123]`},
		{"solidus escaped", `{"id":"gid://shopify/Product/1"}`, `{"id":"gid:\/\/shopify\/Product\/1"}`},
		{"solidus escaped in keys, escaped input", `{"a/b":"\/"}`, `{"a\/b":"\/"}`},
		{"line and paragraph separators", "{\"line\":\"before\u2028after\",\"paragraph\":\"before\\u2029after\"}", `{"line":"before\u2028after","paragraph":"before\u2029after"}`},
		{"serde_json's escapes", `["\"\\", "\b\f\n\r\t", "\u0001\u001f", "\u007f"]`, "[\"\\\"\\\\\",\"\\b\\f\\n\\r\\t\",\"\\u0001\\u001f\",\"\x7f\"]"},
		{"no HTML escapes, UTF-8 as is", `["<>&", "\u00e9", "é", "😀"]`, `["<>&","é","é","😀"]`},
		{"duplicate keys: first place, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"scalars", ` [true,false,null,""] `, `[true,false,null,""]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shopify.MinifyJSON([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			got, err = shopify.JSON.EncodeInput([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestInvalidInputJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "unexpected end of input"},
		{"syntax", `{"a":}`, "invalid character '}'"},
		{"truncated", `{"a":[1,`, "unexpected end of input"},
		{"trailing data", `{} {}`, "trailing data after the document"},
		{"invalid UTF-8", "\"\xff\"", "not valid UTF-8"},
		{"too deep", strings.Repeat("[", 128) + strings.Repeat("]", 128), "nested more than 127 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []shopify.Codec{shopify.JSON, shopify.MessagePack} {
				_, err := c.EncodeInput([]byte(tt.in))
				assert.ErrorContains(t, err, "invalid input JSON: ", c.String())
				assert.ErrorContains(t, err, tt.want, c.String())
			}
		})
	}
	_, err := shopify.MinifyJSON([]byte(strings.Repeat("[", 127) + strings.Repeat("]", 127)))
	assert.NoError(t, err, "127 levels are within serde_json's limit")
}

// TestJSONToMessagePack checks the bytes against what function-runner's
// rmp_serde encoding of MessagePackJsonValue produces: the smallest integer
// form (non-negative values unsigned), float64 always, str family strings.
func TestJSONToMessagePack(t *testing.T) {
	tests := []struct {
		name, in, want string // want in hex
	}{
		{"key order (function-runner's test)", `{"b":1,"a":2}`, "82a16201a16102"},
		{"float (function-runner's test)", `{"longitude":-0.9191460999999999}`, "81a96c6f6e676974756465cbbfed69a514f7dec8"},
		{"positive fixint", `[0,127]`, "92007f"},
		{"uint8, uint16, uint32, uint64", `[128,255,256,65536,4294967296,18446744073709551615]`, "96cc80ccffcd0100ce00010000cf0000000100000000cfffffffffffffffff"},
		{"negative fixint, int8, int16, int32, int64", `[-1,-32,-33,-129,-32769,-2147483649]`, "96ffe0d0dfd1ff7fd2ffff7fffd3ffffffff7fffffff"},
		{"-0 is the integer 0", `-0`, "00"},
		{"integral floats stay floats", `[1.0,1e2]`, "92cb3ff0000000000000cb4059000000000000"},
		{"beyond u64: float", `18446744073709551616`, "cb43f0000000000000"},
		{"beyond float64: the literal as a string", `1e400`, "a53165343030"},
		{"null, true, false", `[null,true,false]`, "93c0c3c2"},
		{"fixstr to str8", `["` + strings.Repeat("a", 31) + `","` + strings.Repeat("b", 32) + `"]`, "92bf" + strings.Repeat("61", 31) + "d920" + strings.Repeat("62", 32)},
		{"array16", `[` + strings.Repeat("0,", 15) + `0]`, "dc0010" + strings.Repeat("00", 16)},
		{"map16", `{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0,"k":0,"l":0,"m":0,"n":0,"o":0,"p":0}`, "de0010a16100a16200a16300a16400a16500a16600a16700a16800a16900a16a00a16b00a16c00a16d00a16e00a16f00a17000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shopify.JSONToMessagePack([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, hex.EncodeToString(got))
			got, err = shopify.MessagePack.EncodeInput([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, hex.EncodeToString(got))
		})
	}
}

// TestMessagePackToJSON checks the output a MessagePack function's bytes
// are shown as: serde_json's rendering of what rmp_serde decodes.
func TestMessagePackToJSON(t *testing.T) {
	tests := []struct {
		name, in, want string // in as hex
	}{
		{"map order, strings unescaped", "82a162a3612f62a161c0", `{"b":"a/b","a":null}`},
		{"integers", "96007fccffd0dfcfffffffffffffffffd38000000000000000", `[0,127,255,-33,18446744073709551615,-9223372036854775808]`},
		{"integral floats keep .0", "93cb3ff0000000000000cb0000000000000000cb8000000000000000", `[1.0,0.0,-0.0]`},
		{"plain up to 16 digits", "92cb430c6bf526340000cb4341c37937e08000", `[1000000000000000.0,1e16]`},
		{"small floats", "93cb3f1a36e2eb1c432dcb3ee4f8b588e368f1cb3eb0c6f7a0b5ed8d", `[0.0001,0.00001,1e-6]`},
		{"large and tiny floats", "93cb7e37e43c8800759ccb0000000000000001cb40fe240c9fbe76c9", `[1e300,5e-324,123456.789]`},
		{"float32 widened", "ca3dcccccd", `0.10000000149011612`},
		{"NaN and infinity are null", "92cb7ff8000000000000cbfff0000000000000", `[null,null]`},
		{"duplicate keys merged", "83a16101a16202a16103", `{"a":3,"b":2}`},
		{"control characters escaped", "a3220a01", `"\"\n\u0001"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := hex.DecodeString(tt.in)
			require.NoError(t, err)
			got, err := shopify.MessagePackToJSON(in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			got, err = shopify.MessagePack.DecodeOutput(in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestInvalidMessagePackOutput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"binary", "c40100", "offset 0: binary data (code 0xc4)"},
		{"extension", "d40100", "offset 0: an extension type (code 0xd4)"},
		{"integer map key", "8101a161", "offset 1: map key of code 0x1 is not a string"},
		{"string not UTF-8", "91a1ff", "offset 1: string \"\\xff\" is not valid UTF-8"},
		{"trailing bytes", "0001", "1 bytes after the MessagePack value (at offset 1)"},
		{"truncated", "92cd01", "MessagePack at offset 1: unexpected EOF"},
		{"empty", "", "truncated MessagePack at offset 0"},
		{"claimed length beyond the data", "ddffffffff", "array of 4294967295 elements in 0 remaining bytes"},
		{"reserved code", "c1", "unknown code 0xc1"},
		{"too deep", strings.Repeat("91", 128) + "00", "nested more than 127 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := hex.DecodeString(tt.in)
			require.NoError(t, err)
			_, err = shopify.MessagePackToJSON(in)
			assert.ErrorContains(t, err, "output is not MessagePack that JSON can hold: ")
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestRoundTrips(t *testing.T) {
	docs := []string{
		`{"hello":"world","cart":{"lines":[{"quantity":2,"price":"9.99","weight":0.25,"merchandise":{"id":"gid://shopify/ProductVariant/1"}}]},"discountNode":{"metafield":null},"flags":[true,false],"big":18446744073709551615,"neg":-9223372036854775808}`,
		`[1.5,-2.25,1e300,0.001,"é\u2028😀",[],{}]`,
		`"just a string"`,
	}
	for _, doc := range docs {
		mp, err := shopify.MessagePack.EncodeInput([]byte(doc))
		require.NoError(t, err)
		back, err := shopify.MessagePack.DecodeOutput(mp)
		require.NoError(t, err)
		assert.JSONEq(t, doc, string(back))

		minified, err := shopify.JSON.EncodeInput([]byte(doc))
		require.NoError(t, err)
		back, err = shopify.JSON.DecodeOutput(minified)
		require.NoError(t, err)
		assert.JSONEq(t, doc, string(back))
		assert.NotContains(t, string(back), `\/`, "output is shown without Shopify's input escapes")
	}
}

func TestDecodeOutputEdges(t *testing.T) {
	for _, c := range []shopify.Codec{shopify.JSON, shopify.MessagePack} {
		_, err := c.DecodeOutput(nil)
		assert.ErrorIs(t, err, shopify.ErrNoOutput, c.String())
	}
	_, err := shopify.JSON.DecodeOutput([]byte(`{"a":`))
	assert.ErrorContains(t, err, "output is not JSON: unexpected end of input")
	_, err = shopify.Raw.DecodeOutput([]byte{1, 2})
	assert.ErrorIs(t, err, shopify.ErrRawOutput)
	in, err := shopify.Raw.EncodeInput([]byte("not json at all"))
	require.NoError(t, err)
	assert.Equal(t, "not json at all", string(in))
}
