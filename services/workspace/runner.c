/*
 * The runner of the `terminal` verifier's bwrap backend: the one program Verdict starts inside each
 * test sandbox (services/workspace/index.ts starts it; verifiers/terminal/README.md has the
 * contract and the threat table).
 *
 * It runs as the sandbox's uid 0 with only CAP_SETUID, SETGID, KILL, CHOWN, FOWNER and
 * DAC_READ_SEARCH, and in order:
 *   1. copies the read-only workspace at /.workspace into the size-capped workdir tmpfs, every entry
 *      given to the test uid, links never followed, setuid/setgid bits dropped, devices, fifos and
 *      sockets left out;
 *   2. runs `bash /tests/test.sh` in the workdir as the test uid (no groups, no capabilities,
 *      no_new_privs, rlimits of the test run), its output into /logs/verifier/test-stdout.txt;
 *   3. once test.sh has ended, kills every process left (kill(-1) reaches all but itself and pid 1);
 *   4. reports on its stdout, which nothing of the test can reach: one line
 *        @@VERDICT@@ ran <exit code> <left: 0|1> <full: 0|1>
 *      (or `@@VERDICT@@ copy_failed disk_full|nesting`: the workspace does not fit; or
 *      `@@VERDICT@@ failed <why>`: the runner could not do its part), then the three files as `<name> <length>\n<bytes>`
 *      (`<name> -` when absent or not a regular file): the first <head> bytes of reward.txt and
 *      reward.json, the last <tail> bytes of test-stdout.txt.
 *
 * It is C rather than a shell script for speed only: one static exec in place of sh, cp, setpriv
 * and tar saves ~3 ms a run, a third of a bare sandbox's cost (`npm run bench -- terminal`).
 *
 * Usage: runner <uid> <workdir> <cpu s> <address space KiB> <file size KiB> <head bytes> <tail bytes>
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORD "@@VERDICT@@"
/* Deeper folders than this are not copied: each level holds three descriptors open. */
#define MAX_DEPTH 256

static uid_t test_uid;

/* Why a copy stopped: the workspace's fault (space, nesting) or the runner's (anything else). */
static const char *copy_error;

static void fail_copy(const char *why) {
  if (copy_error == NULL) copy_error = why;
}

static void note_errno(void) {
  fail_copy(errno == ENOSPC || errno == EDQUOT ? "disk_full" : strerror(errno));
}

static int write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

static int copy_bytes(int from, int to) {
  char buffer[65536];
  for (;;) {
    ssize_t n = read(from, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return 0;
    if (write_all(to, buffer, (size_t)n) < 0) return -1;
  }
}

/* Owner, permission bits (setuid and setgid dropped: the test user gains nothing by them) and times. */
static void settle(int fd, const struct stat *st) {
  if (fchown(fd, test_uid, test_uid) < 0) note_errno();
  if (fchmod(fd, st->st_mode & 01777) < 0) note_errno();
  struct timespec times[2] = {st->st_atim, st->st_mtim};
  if (futimens(fd, times) < 0) note_errno();
}

static void copy_tree(int from, int to, int depth);

static void copy_entry(int from, int to, const char *name, int depth) {
  struct stat st;
  if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0) return note_errno();
  if (S_ISDIR(st.st_mode)) {
    if (depth >= MAX_DEPTH) return fail_copy("nesting");
    if (mkdirat(to, name, 0700) < 0) return note_errno();
    int src = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int dst = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (src < 0 || dst < 0) note_errno();
    else copy_tree(src, dst, depth + 1);
    /* After its entries, so that a read-only folder can still be filled and its mtime stays. */
    if (dst >= 0) settle(dst, &st);
    if (src >= 0) close(src);
    if (dst >= 0) close(dst);
  } else if (S_ISREG(st.st_mode)) {
    int src = openat(from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (src < 0) return note_errno();
    int dst = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (dst < 0) note_errno();
    else {
      if (copy_bytes(src, dst) < 0) note_errno();
      settle(dst, &st);
      close(dst);
    }
    close(src);
  } else if (S_ISLNK(st.st_mode)) {
    char target[4097];
    ssize_t n = readlinkat(from, name, target, sizeof target - 1);
    if (n < 0) return note_errno();
    target[n] = '\0';
    if (symlinkat(target, to, name) < 0) return note_errno();
    if (fchownat(to, name, test_uid, test_uid, AT_SYMLINK_NOFOLLOW) < 0) note_errno();
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    if (utimensat(to, name, times, AT_SYMLINK_NOFOLLOW) < 0) note_errno();
  }
  /* Devices, fifos and sockets are not part of a workspace (the archive reader skips them too). */
}

static void copy_tree(int from, int to, int depth) {
  int listing = dup(from);
  DIR *dir = listing < 0 ? NULL : fdopendir(listing);
  if (dir == NULL) return note_errno();
  struct dirent *entry;
  while (copy_error == NULL && (entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    copy_entry(from, to, entry->d_name, depth);
  }
  closedir(dir);
}

/* Set on the test's side of the fork: where it tells the runner that it could not start test.sh. */
static int setup_report = -1;

static void setup_failed(const char *what) {
  dprintf(setup_report, "%s: %s", what, strerror(errno));
  _exit(125);
}

static void limit(int resource, rlim_t value) {
  struct rlimit rl = {value, value};
  if (setrlimit(resource, &rl) < 0) setup_failed("setrlimit");
}

/* The test run: never returns. */
static void run_test(const char *workdir, int output, rlim_t cpu, rlim_t address_kib, rlim_t fsize_kib) {
  if (chdir(workdir) < 0) setup_failed("chdir");
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, 0) < 0 || dup2(output, 1) < 0 || dup2(output, 2) < 0) setup_failed("stdio");
  limit(RLIMIT_CPU, cpu);
  limit(RLIMIT_AS, address_kib * 1024);
  limit(RLIMIT_FSIZE, fsize_kib * 1024);
  limit(RLIMIT_NPROC, 1024);
  limit(RLIMIT_NOFILE, 1024);
  limit(RLIMIT_CORE, 0);
  /* All three ids non-zero without SECBIT_KEEP_CAPS: the kernel clears every capability set but the
     inheritable one, which gives nothing to an exec without file capabilities; no_new_privs keeps
     setuid binaries and file capabilities from giving any back. */
  if (setgroups(0, NULL) < 0 || setresgid(test_uid, test_uid, test_uid) < 0 || setresuid(test_uid, test_uid, test_uid) < 0) setup_failed("setuid");
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) setup_failed("ambient capabilities");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) setup_failed("no_new_privs");
  char *argv[] = {"bash", "/tests/test.sh", NULL};
  execvp(argv[0], argv);
  setup_failed("exec bash");
}

/* `<name> <length>\n<bytes>`: the first `head` bytes, or the last `tail` bytes when head is 0. */
static void report_file(int logs, const char *name, off_t head, off_t tail) {
  int fd = openat(logs, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    dprintf(1, "%s -\n", name);
    return;
  }
  off_t start = head > 0 || st.st_size <= tail ? 0 : st.st_size - tail;
  off_t length = st.st_size - start;
  if (head > 0 && length > head) length = head;
  static char buffer[1 << 16];
  off_t sent = 0;
  dprintf(1, "%s %lld\n", name, (long long)length);
  while (sent < length) {
    size_t want = (size_t)(length - sent) < sizeof buffer ? (size_t)(length - sent) : sizeof buffer;
    ssize_t n = pread(fd, buffer, want, start + sent);
    if (n < 0 && errno == EINTR) continue;
    /* The file shrank under a killed leftover: pad, so the stream keeps its framing. */
    if (n <= 0) {
      memset(buffer, 0, want);
      n = (ssize_t)want;
    }
    write_all(1, buffer, (size_t)n);
    sent += n;
  }
  close(fd);
}

/* The runner itself could not do its part: infrastructure, not the workspace. */
static int failed(const char *why) {
  dprintf(1, RECORD " failed %s\n", why);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: runner <uid> <workdir> <cpu s> <address KiB> <fsize KiB> <head bytes> <tail bytes>\n");
    return 2;
  }
  test_uid = (uid_t)strtoul(argv[1], NULL, 10);
  const char *workdir = argv[2];
  rlim_t cpu = strtoull(argv[3], NULL, 10), address_kib = strtoull(argv[4], NULL, 10), fsize_kib = strtoull(argv[5], NULL, 10);
  off_t head = strtoll(argv[6], NULL, 10), tail = strtoll(argv[7], NULL, 10);
  if (test_uid == 0 || head <= 0 || tail <= 0) {
    fprintf(stderr, "runner: the test uid must not be 0, head and tail must be positive\n");
    return 2;
  }

  int source = open("/.workspace", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int target = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat root;
  if (source < 0 || target < 0 || fstat(source, &root) < 0) return failed(strerror(errno));
  copy_tree(source, target, 0);
  settle(target, &root);
  close(source);
  if (copy_error != NULL) {
    if (strcmp(copy_error, "disk_full") != 0 && strcmp(copy_error, "nesting") != 0) return failed(copy_error);
    dprintf(1, RECORD " copy_failed %s\n", copy_error);
    return 0;
  }

  int output = open("/logs/verifier/test-stdout.txt", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (output < 0) return failed(strerror(errno));
  /* Close-on-exec: it reads end-of-file once bash runs, an error when the set-up failed. */
  int setup[2];
  if (pipe2(setup, O_CLOEXEC) < 0) return failed(strerror(errno));
  pid_t child = fork();
  if (child < 0) return failed(strerror(errno));
  if (child == 0) {
    setup_report = setup[1];
    run_test(workdir, output, cpu, address_kib, fsize_kib);
  }
  close(output);
  close(setup[1]);
  char why[256] = "";
  ssize_t got;
  while ((got = read(setup[0], why, sizeof why - 1)) < 0 && errno == EINTR) {
  }
  close(setup[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (got > 0) {
    why[got] = '\0';
    return failed(why);
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  int left = kill(-1, SIGKILL) == 0;

  int logs = open("/logs/verifier", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  int rewarded = 0;
  for (int k = 0; logs >= 0 && k < 2; k++)
    rewarded |= fstatat(logs, k == 0 ? "reward.txt" : "reward.json", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
  struct statfs space;
  int full = !rewarded && fstatfs(target, &space) == 0 && space.f_bavail == 0;
  dprintf(1, RECORD " ran %d %d %d\n", code, left, full);
  if (logs >= 0) {
    report_file(logs, "reward.txt", head, 0);
    report_file(logs, "reward.json", head, 0);
    report_file(logs, "test-stdout.txt", 0, tail);
  }
  return 0;
}
