// A function for shopify_functions_javy_v2 (MessagePack over WASI) that
// writes {"a":1} in MessagePack and one byte after it, as Javy's 2022
// default benchmark does: function-runner's decoder (rmp_serde) reads
// the value and ignores the byte.
Javy.IO.writeSync(1, new Uint8Array([0x81, 0xa1, 0x61, 0x01, 0x00]));
