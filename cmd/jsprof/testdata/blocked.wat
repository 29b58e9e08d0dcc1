;; A dynamic Javy module for javy-plugin-1.7.0 (namespace
;; javy_chainlink_sdk) that runs its program (fib(20), printed as
;; "fib 6765"), then blocks in a host call for ever, going back to it
;; whatever it is told: _start reads stdin until a read succeeds with 0
;; bytes (end of file), poll_stdin waits for stdin to be readable.
;; TestBlockedGuestTimeout checks that --timeout stops it and the profile
;; is written. The data is overwrite.wat's program.
(module
  (import "javy_chainlink_sdk" "cabi_realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
  (import "javy_chainlink_sdk" "invoke" (func $invoke (param i32 i32 i32 i32 i32)))
  (import "javy_chainlink_sdk" "memory" (memory 0))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (func $run
    (local $bytecode i32)
    (local.set $bytecode (call $realloc (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 211)))
    (memory.init $program (local.get $bytecode) (i32.const 0) (i32.const 211))
    (call $invoke (local.get $bytecode) (i32.const 211) (i32.const 0) (i32.const 0) (i32.const 0)))
  ;; scratch allocates what the host calls use, from the plugin's
  ;; allocator: 4096 + 256 bytes, 8-aligned.
  (func $scratch (result i32)
    (call $realloc (i32.const 0) (i32.const 0) (i32.const 8) (i32.const 4352)))
  (func (export "_start")
    (local $p i32)
    (call $run)
    (local.set $p (call $scratch))
    ;; p: an iovec of 4096 bytes at p+256; p+8: bytes read
    (i32.store (local.get $p) (i32.add (local.get $p) (i32.const 256)))
    (i32.store offset=4 (local.get $p) (i32.const 4096))
    (loop $again
      (br_if $again (i32.or
        (call $fd_read (i32.const 0) (local.get $p) (i32.const 1) (i32.add (local.get $p) (i32.const 8)))
        (i32.load offset=8 (local.get $p))))))
  (func (export "poll_stdin")
    (local $p i32)
    (call $run)
    (local.set $p (call $scratch))
    ;; p: one subscription (userdata 7, tag 1: fd_read, fd 0); p+64: its
    ;; event; p+128: events written
    (i64.store (local.get $p) (i64.const 7))
    (i32.store8 offset=8 (local.get $p) (i32.const 1))
    (i32.store offset=16 (local.get $p) (i32.const 0))
    (loop $again
      (drop (call $poll_oneoff (local.get $p) (i32.add (local.get $p) (i32.const 64)) (i32.const 1) (i32.add (local.get $p) (i32.const 128))))
      (br $again)))
  (data $program "\15\05\01\18function.mjs\01\06fib\01\02n\01\0econsole\01\06log\0d\c6\03\00\00\00\00\00\0c \0a\01\a2\01\00\00\00\05\01\01 \00\c8\03\00\01\0cC\0a\01\c8\03\01\00\01\04\01\00\13\01\ca\03\00\01\00\c8\03\00\00\d3\b8\a7\ec\03\d3(\df\d3\b7\9f\f1\df\d3\b8\9f\f1\9e(\c6\03\01\01\08\07,%\14\16\0a\07\08/function fib(n){return n<2?n:fib(n-1)+fib(n-2)}\08\ec\05\c1\00\e3)9\e6\00\00\00C\e7\00\00\00\04\e4\00\00\00\df\be\14\f1$\02\00\0e\06/\c6\03\01\01\06&\004\10 \16\00"))
