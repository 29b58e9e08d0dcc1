;; A small module whose function references all move when an import is
;; added: calls, ref.func in a global and in code, element segments,
;; exports and the start function. Used by the rewrite tests.
;; Rebuild with: wat2wasm --debug-names calls.wat -o calls.wasm
(module $calls
  (type $i2i (func (param i32) (result i32)))
  (import "env" "add1" (func $add1 (param i32) (result i32)))
  (global $g (mut i32) (i32.const 0))
  (global $fr funcref (ref.func $double))
  (table $t 4 funcref)
  (elem (i32.const 0) $double $triple)
  (elem declare func $viaref)
  (func $double (param i32) (result i32)
    (i32.mul (local.get 0) (i32.const 2)))
  (func $triple (param $x i32) (result i32) (local $tmp i32)
    (local.set $tmp (call $double (local.get $x)))
    (i32.add (local.get $tmp) (local.get $x)))
  (func $viaref (param i32) (result i32)
    (call_indirect $t (type $i2i) (local.get 0) (i32.const 1)))
  (func $init
    (global.set $g (call $add1 (call $triple (i32.const 1)))))
  (func $run (export "run") (param i32) (result i32)
    (i32.add (call $viaref (local.get 0)) (global.get $g)))
  (func $getref (export "getref") (result funcref)
    (ref.func $viaref))
  (start $init))
