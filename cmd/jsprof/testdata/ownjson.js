// A plain Javy program: JSON.parse and JSON.stringify on its own data,
// nothing read from stdin nor written as an output (issue 39).
const records = [];
for (let i = 0; i < 200; i++) {
  records.push(JSON.parse('{"id":' + i + ',"name":"item ' + i + '","tags":["a","b"]}'));
}
const text = JSON.stringify(records);
console.log(text.length);
