;; A small module that exercises the post-MVP features wasmcore decodes:
;; multi-value (type-indexed block types, multiple results), reference
;; types (tables of funcref/externref, ref.*, table.*, typed select), bulk
;; memory (passive segments, memory.init/copy/fill, data.drop, elem.drop,
;; table.init/copy), SIMD, saturating truncation, sign extension, atomics on
;; a shared memory, tail calls, and every element segment encoding.
;; Rebuild with:
;;   wat2wasm --enable-threads --enable-tail-call --debug-names features.wat -o features.wasm
;; (--enable-all would also turn on typed function references, under which
;; ref.func has a non-nullable type this MVP-style module does not use.)
(module $features
  (type $pair (func (param i32) (result i32 i32)))
  (type $v (func))
  (import "env" "imported" (func $imported (param i32) (result i32)))
  (import "env" "g" (global $ig (mut i32)))
  (memory $mem 1 2 shared)
  (table $t0 4 funcref)
  (table $t1 2 externref)
  (global $counter (mut i32) (i32.const 0))
  (global $fref funcref (ref.func $swap))
  (global $f64 f64 (f64.const 1.5))

  (func $swap (type $pair) (local $tmp i64)
    local.get 0
    i32.const 1
    i32.add
    local.get 0)

  (func $multi (param $x i32) (result i32)
    local.get $x
    (block $b (type $pair) (param i32) (result i32 i32)
      call $swap)
    i32.add
    (loop $l (result i32)
      i32.const 7
      br_if $l
      i32.const 3)
    drop
    (if (result i32) (local.get $x)
      (then i32.const 1)
      (else i32.const 2))
    i32.add
    i32.extend8_s
    (block $a
      (block $c
        local.get $x
        br_table $a $c $a))
    (select (result i32) (i32.const 1) (i32.const 2) (local.get $x))
    i32.add)

  (func $refs (param externref) (result i32)
    ref.func $swap
    ref.is_null
    drop
    i32.const 0
    local.get 0
    table.set $t1
    (table.grow $t1 (ref.null extern) (i32.const 1))
    drop
    (table.fill $t0 (i32.const 0) (ref.func $multi) (i32.const 1))
    (table.init $t0 $passive (i32.const 0) (i32.const 0) (i32.const 1))
    elem.drop $declared
    (table.copy $t0 $t0 (i32.const 0) (i32.const 1) (i32.const 1))
    (table.get $t0 (i32.const 0))
    ref.is_null
    table.size $t1
    i32.add)

  (func $bulk (param i32)
    (memory.init $passive_data (local.get 0) (i32.const 0) (i32.const 4))
    data.drop $passive_data
    (memory.copy (i32.const 0) (i32.const 16) (i32.const 8))
    (memory.fill (i32.const 0) (i32.const 255) (i32.const 8))
    (drop (memory.grow (i32.const 0)))
    (drop (memory.size))
    (drop (i32.trunc_sat_f32_s (f32.const 3.5)))
    (drop (i64.trunc_sat_f64_u (f64.const -1))))

  (func $simd (param i32) (result i32)
    (local $v v128)
    (v128.const i32x4 1 2 3 4)
    (v128.load offset=16 align=8 (local.get 0))
    i32x4.add
    (i8x16.shuffle 0 17 2 19 4 21 6 23 8 25 10 27 12 29 14 31 (local.get $v))
    local.set $v
    (v128.store8_lane offset=3 7 (local.get 0) (local.get $v))
    (v128.load32_zero (local.get 0))
    (i8x16.replace_lane 15 (i32.const 9))
    (f32x4.demote_f64x2_zero)
    (i16x8.extadd_pairwise_i8x16_u)
    (i32x4.extract_lane 3))

  (func $atomics (param i32) (result i32)
    (i32.atomic.store offset=4 (local.get 0) (i32.const 1))
    (drop (i32.atomic.rmw.add (local.get 0) (i32.const 2)))
    (drop (i64.atomic.rmw32.cmpxchg_u (local.get 0) (i64.const 1) (i64.const 2)))
    (drop (memory.atomic.notify (local.get 0) (i32.const 1)))
    (drop (memory.atomic.wait32 (local.get 0) (i32.const 0) (i64.const 0)))
    atomic.fence
    (i32.atomic.load8_u (local.get 0)))

  (func $tail (param i32) (result i32)
    (return_call $imported (local.get 0)))

  (func $tail_indirect (param i32) (result i32)
    (return_call_indirect $t0 (param i32) (result i32) (local.get 0) (i32.const 0)))

  (func $start
    (global.set $counter (i32.add (global.get $ig) (i32.const 1))))

  (start $start)
  (export "multi" (func $multi))
  (export "mem" (memory $mem))
  (export "counter" (global $counter))
  (export "t0" (table $t0))

  ;; Element segments in several encodings.
  (elem (i32.const 0) $swap $multi)                                ;; flags 0
  (elem $passive func $swap $refs)                                 ;; flags 1
  (elem (table $t0) (i32.const 2) func $bulk)                      ;; flags 2
  (elem $declared declare func $simd)                              ;; flags 3
  (elem (i32.const 3) funcref (ref.func $atomics))                 ;; flags 4
  (elem funcref (ref.null func) (ref.func $tail))                  ;; flags 5
  (elem (table $t1) (i32.const 0) externref (ref.null extern))     ;; flags 6
  (elem declare funcref (ref.func $tail_indirect))                 ;; flags 7

  (data (i32.const 0) "active")
  (data $passive_data "passive")
  (data (memory $mem) (i32.const 64) "explicit"))
