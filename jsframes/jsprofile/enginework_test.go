package jsprofile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEngineWork: QuickJS's freeing, collector and interrupt functions
// (names from the Javy 1.1.0 plugin's name section) are told; others, an
// unnamed function and a libc free that is not QuickJS's, are not.
func TestEngineWork(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"__JS_FreeValueRT", EngineFreeing},
		{"free_gc_object", EngineFreeing},
		{"js_free_shape0", EngineFreeing},
		{"js_array_finalizer", EngineFreeing},
		{"JS_RunGC", EngineGC},
		{"gc_decref", EngineGC},
		{"__js_poll_interrupts", EngineInterrupts},
		{"JS_NewObject", ""},
		{"free", ""},
		{"finalizer", ""},
		{"wasm-function[413]", ""},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EngineWork(tt.name), tt.name)
	}
}
