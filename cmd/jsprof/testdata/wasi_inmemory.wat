;; A function that imports an in-memory provider and WASI too: function-runner
;; refuses it, since in-memory providers run with no WASI at all.
(module
  (import "shopify_functions_javy_v3" "invoke" (func (param i32 i32 i32 i32 i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))
