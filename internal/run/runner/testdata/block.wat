;; block.wat: a guest that blocks in a host call for ever, and goes back to
;; it whatever it is told (a hostile loop). argv[1]'s first letter says how:
;;   r  read stdin until end of file
;;   s  sleep an hour at a time (poll_oneoff on a relative clock)
;;   p  wait for stdin to be readable (poll_oneoff on fd 0)
;;   w  write to stdout
;; TestBlockedGuestIsCancelled checks that the run's context stops each.
;; Build: see build.sh (wat2wasm block.wat -o block.wasm).
(module
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0: an iovec of 4096 bytes at 1024; 16: bytes read or written, events;
  ;; 64: one subscription; 128: its event; 256: argv; 512: argv's strings.
  (data (i32.const 0) "\00\04\00\00\00\10\00\00")

  (func $mode (result i32)
    (drop (call $args_get (i32.const 256) (i32.const 512)))
    (i32.load8_u (i32.load (i32.const 260))))

  ;; subscribe sets the subscription at 64: tag 0 (clock) with a relative
  ;; timeout of an hour, or tag 1 (fd_read) on fd 0.
  (func $subscribe (param $tag i32)
    (i64.store (i32.const 64) (i64.const 7))
    (i32.store8 (i32.const 72) (local.get $tag))
    (i32.store (i32.const 80) (i32.const 0))
    (i64.store (i32.const 88) (i64.const 3600000000000))
    (i64.store (i32.const 96) (i64.const 0))
    (i32.store16 (i32.const 104) (i32.const 0)))

  (func (export "_start")
    (local $m i32)
    (local.set $m (call $mode))
    (if (i32.eq (local.get $m) (i32.const 114)) ;; r
      (then
        (loop $again
          ;; until a read succeeds with 0 bytes: end of file
          (br_if $again (i32.or
            (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 16))
            (i32.load (i32.const 16)))))
        (return)))
    (if (i32.eq (local.get $m) (i32.const 119)) ;; w
      (then
        (loop $again
          (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 16)))
          (br $again))))
    (call $subscribe (i32.ne (local.get $m) (i32.const 115))) ;; s: clock, p: fd_read
    (loop $again
      (drop (call $poll_oneoff (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 16)))
      (br $again)))
)
