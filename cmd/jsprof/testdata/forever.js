// Never ends on its own: for --timeout, --max-instructions and signals.
let i = 0;
for (;;) {
  i = (i + 1) % 1000003;
}
