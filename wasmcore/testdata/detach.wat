;; A static Javy module's shape, small: _start copies passive segment 1 (the
;; "program") into memory it allocates, as Javy's code generator writes it,
;; and hands it to run. detach_long.wat is the same module with a longer
;; program. wat2wasm detach.wat -o detach.wasm (wabt).
(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (global $sum (mut i32) (i32.const 0))
  (data $other "unrelated")
  (data $program "hello, program")
  (func $cabi_realloc (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    global.get $heap
    local.set $p
    global.get $heap
    local.get 3
    i32.add
    global.set $heap
    local.get $p)
  ;; run sums the program's bytes: what the guest computes from them.
  (func $run (param $ptr i32) (param $len i32)
    (block $done
      (loop $next
        local.get $len
        i32.eqz
        br_if $done
        global.get $sum
        local.get $ptr
        i32.load8_u
        i32.add
        global.set $sum
        local.get $ptr
        i32.const 1
        i32.add
        local.set $ptr
        local.get $len
        i32.const 1
        i32.sub
        local.set $len
        br $next)))
  (func (export "_start")
    (local $p i32)
    i32.const 0
    i32.const 0
    i32.const 1
    i32.const 14
    call $cabi_realloc
    local.tee $p
    i32.const 0
    i32.const 14
    memory.init $program
    data.drop $program
    local.get $p
    i32.const 14
    call $run)
  (func (export "sum") (result i32) global.get $sum))
