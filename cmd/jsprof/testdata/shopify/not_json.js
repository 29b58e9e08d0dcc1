// A function for a JSON provider that runs to completion but writes an
// output that is not JSON ("export1"): function-runner shows it as
// "Invalid Output" and counts the run a success.
Javy.IO.writeSync(1, new Uint8Array([101, 120, 112, 111, 114, 116, 49]));
