package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArrays(t *testing.T) {
	src := `
static const JSCFunctionListEntry js_json_funcs[] = {
    JS_CFUNC_DEF("parse", 2, js_json_parse ), /* a comment, with commas */
    JS_CFUNC_MAGIC_DEF("max", 2, js_math_min_max, 1 ),
#ifdef CONFIG_BIGNUM
    JS_CFUNC_SPECIAL_DEF("abs", 1, f_f, fabs ),
#endif
    JS_CGETSET_DEF("size", js_map_get_size, NULL ),
    JS_PROP_STRING_DEF("[Symbol.toStringTag]", "JSON", JS_PROP_CONFIGURABLE ),
    JS_ALIAS_DEF("keys", "values" ),
#define DEF(x) JS_PROP_INT32_DEF(#x, x, 0), \
    JS_PROP_INT32_DEF("y", 0, 0)
    DEF(A)
#undef DEF
};
static const JSCFunctionListEntry * const not_an_array[2] = { a, b };
`
	arrays, err := parseArrays(src)
	require.NoError(t, err)
	require.Len(t, arrays, 1)
	a := arrays[0]
	assert.Equal(t, "js_json_funcs", a.Name)
	require.Len(t, a.Entries, 7)
	assert.Equal(t, entry{Name: "parse", Kind: "cfunc", Length: "2", Cproto: "generic", Func: "js_json_parse", Macro: "JS_CFUNC_DEF"}, a.Entries[0])
	assert.Equal(t, "1", a.Entries[1].Magic)
	assert.Equal(t, "generic_magic", a.Entries[1].Cproto)
	assert.Equal(t, "f_f", a.Entries[2].Cproto)
	assert.Equal(t, "ifdef CONFIG_BIGNUM", a.Entries[2].Cond)
	assert.Equal(t, entry{Name: "size", Kind: "getset", Func: "js_map_get_size", Macro: "JS_CGETSET_DEF"}, a.Entries[3])
	assert.Equal(t, "JSON", a.Entries[4].Value)
	assert.Equal(t, "values", a.Entries[5].Value)
	assert.Equal(t, entry{Kind: "?", Macro: "DEF"}, a.Entries[6])
}
