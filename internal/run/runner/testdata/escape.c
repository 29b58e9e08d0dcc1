// escape.c: a WASI guest that tries to leave the directory it was granted,
// and checks that ordinary file operations inside it still work. The test
// (TestDirMountCannotBeLeft) mounts a host directory at /sandbox, with a
// sibling directory "outside" holding secret.txt, and pre-existing symlinks
// in the mount that point out of it (prerel, preabs, predir).
//
// Each line of output is "name: ok[ value]" or "name: <strerror>"; the test
// compares them with what it expects.
//
// Build: see build.sh (clang-14 --target=wasm32-wasi --sysroot=/usr).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void report(const char *name, int rc) {
	if (rc < 0)
		printf("%s: %s\n", name, strerror(errno));
	else
		printf("%s: ok\n", name);
}

// readfile prints the first line of a file, or why it cannot be read.
static void readfile(const char *name, const char *path) {
	char buf[128];
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		report(name, -1);
		return;
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0) {
		report(name, -1);
		return;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	printf("%s: ok %s\n", name, buf);
}

static void writefile(const char *name, const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		report(name, -1);
		return;
	}
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	report(name, n == (ssize_t)strlen(text) ? 0 : -1);
}

static int cmp(const void *a, const void *b) {
	return strcmp(*(char *const *)a, *(char *const *)b);
}

// listdir prints a directory's entries, sorted, without . and ..
static void listdir(const char *name, const char *path) {
	DIR *d = opendir(path);
	if (!d) {
		report(name, -1);
		return;
	}
	char *names[64];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 64) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof names[0], cmp);
	printf("%s: ok", name);
	for (int i = 0; i < n; i++)
		printf("%s%s", i ? "," : " ", names[i]);
	printf("\n");
}

int main(void) {
	struct stat st;

	// Escapes: a link the guest makes, relative or absolute.
	report("symlink-relative", symlink("../outside/secret.txt", "/sandbox/rel"));
	readfile("read-relative", "/sandbox/rel");
	report("symlink-deep", symlink("../../../../../../../../etc/passwd", "/sandbox/passwd"));
	readfile("read-deep", "/sandbox/passwd");
	report("symlink-dangling", symlink("../outside/created.txt", "/sandbox/dangling"));
	writefile("write-dangling", "/sandbox/dangling", "escaped\n");
	report("symlink-absolute", symlink("/etc/passwd", "/sandbox/abs"));
	readfile("read-absolute", "/sandbox/abs");
	report("stat-relative", stat("/sandbox/rel", &st));
	report("lstat-relative", lstat("/sandbox/rel", &st));

	// Escapes: links that were there before the guest ran.
	readfile("read-prerel", "/sandbox/prerel");
	writefile("write-prerel", "/sandbox/prerel", "overwritten\n");
	readfile("read-preabs", "/sandbox/preabs");
	readfile("read-predir", "/sandbox/predir/secret.txt");
	listdir("list-predir", "/sandbox/predir");
	report("mkdir-predir", mkdir("/sandbox/predir/made", 0755));

	// Escapes: .. in paths.
	readfile("read-dotdot", "/sandbox/../outside/secret.txt");
	readfile("read-sub-dotdot", "/sandbox/sub/../../outside/secret.txt");
	report("rename-out", rename("/sandbox/data.txt", "/sandbox/../outside/moved.txt"));

	// Inside: everything works.
	writefile("write", "/sandbox/new.txt", "new file\n");
	readfile("read", "/sandbox/new.txt");
	report("stat", stat("/sandbox/new.txt", &st));
	printf("size: ok %lld\n", (long long)st.st_size);
	report("mkdir", mkdir("/sandbox/made", 0755));
	report("rename", rename("/sandbox/new.txt", "/sandbox/made/moved.txt"));
	readfile("read-moved", "/sandbox/made/moved.txt");
	report("symlink-inside", symlink("made/moved.txt", "/sandbox/inlink"));
	readfile("read-inside-link", "/sandbox/inlink");
	report("symlink-inside-dotdot", symlink("sub/../data.txt", "/sandbox/dotlink"));
	readfile("read-inside-dotdot", "/sandbox/dotlink");
	char target[64] = {0};
	ssize_t n = readlink("/sandbox/inlink", target, sizeof target - 1);
	if (n < 0)
		report("readlink", -1);
	else
		printf("readlink: ok %s\n", target);
	listdir("list", "/sandbox");
	report("unlink", unlink("/sandbox/made/moved.txt"));
	report("rmdir", rmdir("/sandbox/made"));
	report("unlink-dir", unlink("/sandbox/sub"));
	report("rmdir-file", rmdir("/sandbox/data.txt"));
	return 0;
}
