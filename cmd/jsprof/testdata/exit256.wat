;; A command that exits with code 256 through WASI proc_exit: WASI allows
;; any u32, a process no more than 255.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (i32.const 256))))
