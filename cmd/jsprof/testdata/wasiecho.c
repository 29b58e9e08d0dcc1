// wasiecho prints what the host granted it: its arguments, its environment,
// stdin, and the first line of each file named by an argument that starts
// with '@'. Built by build.sh; used to test the runner's isolation flags.
#include <stdio.h>
#include <string.h>

extern char **environ;

int main(int argc, char **argv) {
  for (int i = 0; i < argc; i++) printf("arg[%d]=%s\n", i, argv[i]);
  for (char **e = environ; *e; e++) printf("env %s\n", *e);
  char buf[256];
  size_t n = fread(buf, 1, sizeof buf - 1, stdin);
  buf[n] = 0;
  printf("stdin=%s\n", buf);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '@') continue;
    FILE *f = fopen(argv[i] + 1, "r");
    if (!f) { printf("open %s: failed\n", argv[i] + 1); continue; }
    if (fgets(buf, sizeof buf, f)) printf("file %s: %s", argv[i] + 1, buf);
    fclose(f);
  }
  return argc > 1 && strcmp(argv[1], "fail") == 0 ? 42 : 0;
}
