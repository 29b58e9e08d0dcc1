;; A dynamic Javy module for javy-plugin-1.7.0 (namespace
;; javy_chainlink_sdk) that runs its program (fib(20), printed as
;; "fib 6765"), then fills its whole memory with one byte, as a hostile
;; guest may: the profiler's counters live there. Each export fills with
;; another byte (_start 0xff, fill_7f 0x7f, fill_00 0x00) and exits 3, so
;; that a test can tell the guest's exit code from jsprof's.
;; The data is the program's bytecode as javy-plugin-1.7.0 compiles
;; function fib(n){return n<2?n:fib(n-1)+fib(n-2)}
;; console.log("fib", fib(20));
(module
  (import "javy_chainlink_sdk" "cabi_realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
  (import "javy_chainlink_sdk" "invoke" (func $invoke (param i32 i32 i32 i32 i32)))
  (import "javy_chainlink_sdk" "memory" (memory 0))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (func $run (param $fill i32)
    (local $bytecode i32)
    (local.set $bytecode (call $realloc (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 211)))
    (memory.init $program (local.get $bytecode) (i32.const 0) (i32.const 211))
    (call $invoke (local.get $bytecode) (i32.const 211) (i32.const 0) (i32.const 0) (i32.const 0))
    (memory.fill (i32.const 0) (local.get $fill) (i32.shl (memory.size) (i32.const 16)))
    (call $exit (i32.const 3)))
  (func (export "_start") (call $run (i32.const 0xff)))
  (func (export "fill_7f") (call $run (i32.const 0x7f)))
  (func (export "fill_00") (call $run (i32.const 0x00)))
  (data $program "\15\05\01\18function.mjs\01\06fib\01\02n\01\0econsole\01\06log\0d\c6\03\00\00\00\00\00\0c \0a\01\a2\01\00\00\00\05\01\01 \00\c8\03\00\01\0cC\0a\01\c8\03\01\00\01\04\01\00\13\01\ca\03\00\01\00\c8\03\00\00\d3\b8\a7\ec\03\d3(\df\d3\b7\9f\f1\df\d3\b8\9f\f1\9e(\c6\03\01\01\08\07,%\14\16\0a\07\08/function fib(n){return n<2?n:fib(n-1)+fib(n-2)}\08\ec\05\c1\00\e3)9\e6\00\00\00C\e7\00\00\00\04\e4\00\00\00\df\be\14\f1$\02\00\0e\06/\c6\03\01\01\06&\004\10 \16\00"))
