// Functions compiled at run time: new Function and eval.
const add = new Function("a", "b", "return a + b;");
let s = 0;
for (let i = 0; i < 100; i++) s = add(s, i);
const twice = eval("(function twice(x) {\n  return x * 2;\n})");
for (let i = 0; i < 50; i++) s = twice(s) % 1000003;
// The same bytecode as inc below, compiled at run time.
const anon = eval("(x) => x + 1");
for (let i = 0; i < 10; i++) s = anon(s);
const inc = (x) => x + 1;
for (let i = 0; i < 20; i++) s = inc(s);
console.log("runtime: " + s);
