;; Writes 42 to memory address 8, then exits: wazero closes the module (and
;; frees its memory) while the host still reads it (memory_test.go).
;; Build: wat2wasm exitmem.wat -o exitmem.wasm
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 2)
  (func (export "_start")
    (i32.store (i32.const 8) (i32.const 42))
    (call $exit (i32.const 0))))
