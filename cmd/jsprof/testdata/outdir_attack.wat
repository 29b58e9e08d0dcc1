;; A WASI command that attacks --out-dir in the directory it is granted
;; (preopened as fd 3): it renames "out" to "moved" and puts a link to
;; "../elsewhere" in its place, so that a jsprof resolving --out-dir by
;; path after the guest ran would write every input's profile there.
(module
  (import "wasi_snapshot_preview1" "path_rename" (func $rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "out")
  (data (i32.const 16) "moved")
  (data (i32.const 32) "../elsewhere")
  (func (export "_start")
    (drop (call $rename (i32.const 3) (i32.const 0) (i32.const 3) (i32.const 3) (i32.const 16) (i32.const 5)))
    (drop (call $symlink (i32.const 32) (i32.const 12) (i32.const 3) (i32.const 0) (i32.const 3)))))
