// A long-running mix of what JS programs spend their time on (JSON, sorting,
// strings, regular expressions, objects and closures), for the overhead
// benchmarks: busy.js measures calls, this the rest of the interpreter.
class Vec {
  constructor(x, y) { this.x = x; this.y = y; }
  add(o) { return new Vec(this.x + o.x, this.y + o.y); }
  get len() { return Math.sqrt(this.x * this.x + this.y * this.y); }
}

function round(r) {
  const records = [];
  for (let i = 0; i < 200; i++) {
    records.push({ id: i, name: "item" + ((i * r) % 97), tags: ["t" + (i % 3), "t" + (i % 5)], price: (i * 37 + r) % 100 });
  }
  const back = JSON.parse(JSON.stringify(records));
  back.sort((a, b) => a.price - b.price || a.id - b.id);

  let text = "";
  for (const rec of back) text += rec.name + ":" + rec.price + ";";
  const words = text.split(";").filter((w) => /item[0-9]+:[0-9]+/.test(w));
  const upper = words.map((w) => w.toUpperCase()).join(",");

  let v = new Vec(0, 0);
  for (let i = 0; i < 300; i++) v = v.add(new Vec(i % 7, i % 11));

  const counts = new Map();
  for (const w of words) {
    const k = w.slice(0, 6);
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  return upper.length + counts.size + Math.round(v.len);
}

let sum = 0;
for (let r = 0; r < 60; r++) sum += round(r);
console.log("mixed: " + sum);
