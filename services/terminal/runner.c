/*
 * The runner of the `terminal` verifier's bwrap backend: the one program Verdict starts inside each
 * test sandbox (services/terminal/index.ts starts it; verifiers/terminal/README.md has the
 * contract and the threat table).
 *
 * It runs as the sandbox's uid 0 with only CAP_SETUID, SETGID, KILL, CHOWN, FOWNER and
 * DAC_READ_SEARCH, and in order:
 *   1. writes /etc/passwd and /etc/group naming the test uid;
 *   2. creates what Verdict sends on stdin (runner-input.ts: the archive's entries, already read and
 *      checked, rooted at / — the workdir's, or a change set's in the size-capped tmpfs index.ts
 *      mounts at each top folder — every entry given to the test uid; the task's tests/ in /tests,
 *      root's), opening each folder once for all the entries under it; then copies a workspace
 *      folder bound at /.workspace, if any, into the workdir the same way (links never followed,
 *      setuid/setgid bits dropped, devices, fifos and sockets left out);
 *   3. executes /tests/test.sh (its shebang; `bash` for a script without one) in the workdir as the
 *      test uid (no groups, no capabilities, no_new_privs, rlimits of the test run, a seccomp filter
 *      and, where the kernel has it, Landlock: nothing of the test reaches into another process),
 *      its output into /logs/verifier/test-stdout.txt;
 *   4. once test.sh has ended — or stopped: a stop is the workspace's doing — kills every process
 *      left (kill(-1) reaches all but itself and pid 1);
 *   5. reports on its stdout, which nothing of the test can reach: one line
 *        @@VERDICT@@ ran <exit code> <left: 0|1> <full: 0|1>
 *      (or `@@VERDICT@@ timeout`: test.sh ran past its wall time, then the files; or
 *      `@@VERDICT@@ copy_failed disk_full|nesting <depth>`: the workspace does not fit; or
 *      `@@VERDICT@@ failed <why>`: the runner could not do its part), then the three files as
 *      `<name> <length>\n<bytes>` (`<name> -` when absent, `<name> !` when not a regular file): the first
 *      <head> bytes of reward.txt and reward.json, the last <tail> bytes of test-stdout.txt.
 *
 * It is C rather than a shell script for speed only: one static exec in place of sh, cp, setpriv
 * and tar, and no file of the run on the host, make a run cost little more than a bare sandbox
 * (`npm run bench -- terminal`).
 *
 * Usage: runner <uid> <user name> <workdir> <cpu s> <address space KiB> <file size KiB> <head bytes> <tail bytes> <wall s>
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
#include <stddef.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#define RECORD "@@VERDICT@@"
/* Deeper folders than this are not copied: each level holds three descriptors open. */
#define MAX_DEPTH 256
/* Folders above an entry: the workdir's (at most 64, index.ts) and the archive's (MAX_DEPTH, tar.ts). */
#define MAX_LEVELS (MAX_DEPTH + 64)

static uid_t test_uid;

/* Why creating the workspace stopped: its own fault (space, nesting) or the runner's (anything else). */
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

/* ---- 2. the workspace and the tests ---------------------------------------------------------- */

/* Folders whose mode and times are set once everything is in them (so that a read-only folder can
   still be filled and its mtime stays). */
struct folder {
  int base;
  char *path;
  uid_t owner;
  mode_t mode;
  struct timespec mtime;
};
static struct folder *folders;
static size_t folder_count, folder_capacity;

static void remember_folder(int base, const char *path, uid_t owner, mode_t mode, struct timespec mtime) {
  if (folder_count == folder_capacity) {
    folder_capacity = folder_capacity ? folder_capacity * 2 : 64;
    folders = realloc(folders, folder_capacity * sizeof *folders);
    if (folders == NULL) abort();
  }
  folders[folder_count++] = (struct folder){base, strdup(path), owner, mode, mtime};
}

/* Owner (the test uid in the workdir, root's in /tests), permission bits (setuid and setgid
   dropped: the test user gains nothing by them) and times. */
static void settle(int fd, uid_t owner, mode_t mode, struct timespec mtime) {
  if (owner != 0 && fchown(fd, owner, owner) < 0) note_errno();
  if (fchmod(fd, mode & 01777) < 0) note_errno();
  struct timespec times[2] = {mtime, mtime};
  if (futimens(fd, times) < 0) note_errno();
}

/* The folders of the last entry's path, open: entries come parents first and mostly in tree order,
   so each one opens only what its path does not share with the last one's, and creating the whole
   archive costs time linear in its size, not in its size times its depth. Valid because a folder,
   once made, is never replaced (tar.ts). */
static struct {
  int base;
  size_t depth;
  int fds[MAX_LEVELS];
  char *names[MAX_LEVELS];
} open_path = {-1, 0, {0}, {0}};

static void forget_open_path(size_t keep) {
  while (open_path.depth > keep) {
    open_path.depth--;
    close(open_path.fds[open_path.depth]);
    free(open_path.names[open_path.depth]);
  }
}

/* The folder that holds `path` under `base`, every step without following a link; *leaf is the last
   component. The result belongs to the cache (or is `base`): the caller does not close it. */
static int parent_of(int base, char *path, char **leaf) {
  if (open_path.base != base) {
    forget_open_path(0);
    open_path.base = base;
  }
  size_t level = 0;
  int dir = base;
  char *rest = path;
  for (char *slash; (slash = strchr(rest, '/')) != NULL; rest = slash + 1, level++) {
    *slash = '\0';
    if (level < open_path.depth && strcmp(open_path.names[level], rest) == 0) {
      dir = open_path.fds[level];
      *slash = '/';
      continue;
    }
    forget_open_path(level);
    if (level >= MAX_LEVELS) {
      *slash = '/';
      errno = ENAMETOOLONG;
      return -1;
    }
    int next = openat(dir, rest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      *slash = '/';
      return -1;
    }
    open_path.fds[level] = next;
    open_path.names[level] = strdup(rest);
    open_path.depth = level + 1;
    *slash = '/';
    dir = next;
  }
  /* Deeper cached folders than this entry's parent stay: the next entry may be one of their children. */
  *leaf = rest;
  return dir;
}

static int copy_bytes(int from, int to) {
  static char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(from, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return 0;
    if (write_all(to, buffer, (size_t)n) < 0) return -1;
  }
}

/* Exactly `length` bytes of `in` into `fd` (or dropped when fd < 0); false when the input ends. */
static int take_bytes(FILE *in, int fd, unsigned long long length) {
  static char buffer[1 << 16];
  while (length > 0) {
    size_t want = length < sizeof buffer ? (size_t)length : sizeof buffer;
    size_t got = fread(buffer, 1, want, in);
    if (got == 0) return 0;
    if (fd >= 0 && write_all(fd, buffer, got) < 0) {
      note_errno();
      fd = -1;
    }
    length -= got;
  }
  return 1;
}

/* One entry of the input: `<w|t> <d|f|l> <mode octal> <mtime> <path length> <data length>\n`, then
   the path, then the data (a file's bytes, a link's target). False at the end of the input. */
static int create_entry(FILE *in, int workdir, int tests) {
  char where, kind;
  unsigned int mode;
  long long mtime;
  unsigned long long path_length, data_length;
  static char *line;
  static size_t line_capacity;
  ssize_t line_length = getline(&line, &line_capacity, in);
  if (line_length < 0) return 0;
  int fields = sscanf(line, "%c %c %o %lld %llu %llu", &where, &kind, &mode, &mtime, &path_length, &data_length);
  if (fields != 6 || (where != 'w' && where != 't') || path_length == 0 || path_length > 65536) {
    fail_copy("malformed input");
    return 0;
  }
  char *path = malloc(path_length + 1);
  if (path == NULL || fread(path, 1, path_length, in) != path_length) {
    fail_copy("input truncated");
    free(path);
    return 0;
  }
  path[path_length] = '\0';
  int base = where == 'w' ? workdir : tests;
  uid_t owner = where == 'w' ? test_uid : 0;
  struct timespec when = {mtime, 0};
  char *leaf;
  int dir = parent_of(base, path, &leaf);
  int ok = 1;
  struct stat there;
  if (dir < 0) {
    note_errno();
  } else if (kind == 'd') {
    /* A folder that is there already is a mount point of the backend (/app, /tmp): settled all the same. */
    if (mkdirat(dir, leaf, 0700) < 0 && !(errno == EEXIST && fstatat(dir, leaf, &there, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(there.st_mode))) note_errno();
    else remember_folder(base, path, owner, mode, when);
  } else if (kind == 'f') {
    int fd = openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) note_errno();
    ok = take_bytes(in, fd, data_length);
    if (fd >= 0) {
      settle(fd, owner, mode, when);
      close(fd);
    }
    data_length = 0;
  } else if (kind == 'l') {
    char *target = malloc(data_length + 1);
    if (target == NULL || fread(target, 1, data_length, in) != data_length) ok = 0;
    else {
      target[data_length] = '\0';
      struct timespec times[2] = {when, when};
      if (symlinkat(target, dir, leaf) < 0) note_errno();
      else if ((owner != 0 && fchownat(dir, leaf, owner, owner, AT_SYMLINK_NOFOLLOW) < 0) || utimensat(dir, leaf, times, AT_SYMLINK_NOFOLLOW) < 0) note_errno();
    }
    free(target);
    data_length = 0;
  } else {
    fail_copy("malformed input");
  }
  free(path);
  if (ok && data_length > 0) ok = take_bytes(in, -1, data_length);
  if (!ok) fail_copy("input truncated");
  return ok && copy_error == NULL;
}

static void copy_tree(int from, int to, int depth);

/* One entry of a workspace folder bound at /.workspace, into the workdir. */
static void copy_entry(int from, int to, const char *name, int depth) {
  struct stat st;
  if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0) return note_errno();
  /* Python's bytecode caches and start-up hooks are left out, as from an archive (test-config.ts,
     pythonLeftOut): the tests' Python would run them in place of what the workspace shows. */
  if (strcmp(name, "__pycache__") == 0 || strcmp(name, "sitecustomize.py") == 0 || strcmp(name, "usercustomize.py") == 0) return;
  if (S_ISDIR(st.st_mode)) {
    if (depth >= MAX_DEPTH) return fail_copy("nesting");
    if (mkdirat(to, name, 0700) < 0) return note_errno();
    int src = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int dst = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (src < 0 || dst < 0) note_errno();
    else copy_tree(src, dst, depth + 1);
    if (dst >= 0) settle(dst, test_uid, st.st_mode, st.st_mtim);
    if (src >= 0) close(src);
    if (dst >= 0) close(dst);
  } else if (S_ISREG(st.st_mode)) {
    int src = openat(from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (src < 0) return note_errno();
    int dst = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (dst < 0) note_errno();
    else {
      if (copy_bytes(src, dst) < 0) note_errno();
      settle(dst, test_uid, st.st_mode, st.st_mtim);
      close(dst);
    }
    close(src);
  } else if (S_ISLNK(st.st_mode)) {
    char target[4097];
    ssize_t n = readlinkat(from, name, target, sizeof target - 1);
    if (n < 0) return note_errno();
    target[n] = '\0';
    struct timespec times[2] = {st.st_mtim, st.st_mtim};
    if (symlinkat(target, to, name) < 0) return note_errno();
    if (fchownat(to, name, test_uid, test_uid, AT_SYMLINK_NOFOLLOW) < 0 || utimensat(to, name, times, AT_SYMLINK_NOFOLLOW) < 0) note_errno();
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

/* The remembered folders, deepest first (they were created parents first). */
static void settle_folders(void) {
  for (size_t k = folder_count; k-- > 0 && copy_error == NULL;) {
    struct folder *f = &folders[k];
    int fd;
    if (strcmp(f->path, ".") == 0) {
      fd = dup(f->base);
    } else {
      char *leaf;
      int dir = parent_of(f->base, f->path, &leaf);
      fd = dir < 0 ? -1 : openat(dir, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
      note_errno();
      continue;
    }
    settle(fd, f->owner, f->mode, f->mtime);
    close(fd);
  }
}

static int write_etc(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  int result = write_all(fd, text, strlen(text));
  close(fd);
  return result;
}

/* ---- 3. the test run ------------------------------------------------------------------------- */

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

/* test.sh and the workspace's programs it runs share a uid, so without this a program could reach
   into test.sh itself: trace it (ptrace, process_vm_writev, pidfd_getfd) and make its last write
   land nowhere, or lower its limits (prlimit on another process) so that writing the reward fails.
   A seccomp filter, inherited by every process of the test run, answers EPERM to those; a process
   may still set its own limits (prlimit64 with pid 0, which setrlimit and `ulimit` use). */
static void deny_reaching_other_processes(void) {
#if defined(__x86_64__)
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define IS(nr, yes) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (yes), 0)
  struct sock_filter filter[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 12),
      /* x86-64; x32 calls (nr with bit 30) are refused whole: nothing of a workspace needs them. */
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 9, 0),
      /* 4 */ IS(__NR_ptrace, 8),
      /* 5 */ IS(__NR_process_vm_readv, 7),
      /* 6 */ IS(__NR_process_vm_writev, 6),
      /* 7 */ IS(__NR_pidfd_getfd, 5),
      /* 8 */ IS(__NR_prlimit64, 1),
      /* 9 */ ALLOW,
      /* 10: prlimit64 of its own process (pid 0) only */
      /* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
      /* 12 */ ALLOW,
      /* 13 */ DENY,
      /* i386 calls (int 0x80): the same five by their numbers there. */
      /* 14 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 11),
      /* 15 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      /* 16 */ IS(26, 8),
      /* 17 */ IS(347, 7),
      /* 18 */ IS(348, 6),
      /* 19 */ IS(438, 5),
      /* 20 */ IS(340, 1),
      /* 21 */ ALLOW,
      /* 22 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      /* 23 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
      /* 24 */ ALLOW,
      /* 25 */ DENY,
      /* 26 */ ALLOW,
  };
  struct sock_fprog program = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) < 0) setup_failed("seccomp");
#undef DENY
#undef ALLOW
#undef IS
#endif
}

/* A same-uid program could still write test.sh's memory through /proc/<pid>/mem, which no syscall
   filter sees (Yama, where the host has it, refuses that too). Landlock, where the kernel has it,
   allows opening files for writing only under the top folders other than /proc and /sys, for every
   process of the test run; without it the run goes on as before (verifiers/terminal/README.md). */
static void deny_writing_proc(void) {
#ifdef SYS_landlock_create_ruleset
  struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) return;
  DIR *root = opendir("/");
  if (root == NULL) setup_failed("landlock");
  struct dirent *entry;
  while ((entry = readdir(root)) != NULL) {
    const char *name = entry->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "proc") == 0 || strcmp(name, "sys") == 0) continue;
    int fd = openat(dirfd(root), name, O_PATH | O_CLOEXEC);
    if (fd < 0) continue;
    struct landlock_path_beneath_attr beneath = {.allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE, .parent_fd = fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0) < 0) setup_failed("landlock rule");
    close(fd);
  }
  closedir(root);
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) setup_failed("landlock");
  close(ruleset);
#endif
}

/* The descriptor of the pipe on which Verdict's Python start-up hook records each pytest run's start
   and end (python/sitecustomize.py; index.ts names it in VERDICT_SESSIONS_FD). */
#define SESSIONS_FD 8

/* The test run: never returns. */
static void run_test(const char *workdir, int output, int sessions, rlim_t cpu, rlim_t address_kib, rlim_t fsize_kib) {
  if (chdir(workdir) < 0) setup_failed("chdir");
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, 0) < 0 || dup2(output, 1) < 0 || dup2(output, 2) < 0) setup_failed("stdio");
  /* Every process of the run inherits the write end (dup2 clears close-on-exec; a pipe already at
     that number keeps it, so it is cleared by hand), and the set-up report moves off the number. */
  if (setup_report == SESSIONS_FD && (setup_report = fcntl(SESSIONS_FD, F_DUPFD_CLOEXEC, SESSIONS_FD + 1)) < 0) _exit(127);
  if (sessions == SESSIONS_FD ? fcntl(SESSIONS_FD, F_SETFD, 0) < 0 : dup2(sessions, SESSIONS_FD) < 0) setup_failed("sessions pipe");
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
  deny_writing_proc();
  deny_reaching_other_processes();
  /* Harbor executes test.sh itself, so its shebang counts; one without a shebang runs under bash, as
     the shell that Harbor's exec goes through would run it. */
  char *argv[] = {"/tests/test.sh", NULL};
  execv(argv[0], argv);
  if (errno != ENOEXEC) setup_failed("exec /tests/test.sh");
  char *shell[] = {"bash", "/tests/test.sh", NULL};
  execvp(shell[0], shell);
  setup_failed("exec bash");
}

/* The pytest runs that started and never ended (an `S <pid>` line without a later `F <pid>`): a
   test's process cut short — os._exit on import of the workspace's code, a signal, a crash. Read
   once every process of the run is dead, so the pipe is at its end; a pipe holds at most 64 KiB, and
   what the hook could not write failed pytest itself. Lines that are neither are the workspace's
   noise and count for nothing. */
static int sessions_cut_short(int fd) {
  /* Twice a pipe's 64 KiB: a pipe read full means the workspace flooded it (its lines cannot all be
     pytest's: thousands of runs), so that a start could not be written — counted as cut short. */
  static char text[1 << 17];
  size_t length = 0;
  ssize_t got;
  while (length < sizeof text - 1 && ((got = read(fd, text + length, sizeof text - 1 - length)) > 0 || (got < 0 && errno == EINTR)))
    if (got > 0) length += (size_t)got;
  text[length] = '\0';
  static long open_pids[4096];
  int open_count = 0, overflow = 0;
  for (char *line = text, *end; *line != '\0'; line = end) {
    end = strchr(line, '\n');
    if (end == NULL) break;
    *end++ = '\0';
    char *rest;
    long pid = (line[0] == 'S' || line[0] == 'F') && line[1] == ' ' ? strtol(line + 2, &rest, 10) : 0;
    if (pid <= 0 || *rest != '\0') continue;
    if (line[0] == 'S') {
      if (open_count < (int)(sizeof open_pids / sizeof open_pids[0])) open_pids[open_count++] = pid;
      else overflow = 1;
      continue;
    }
    for (int k = open_count - 1; k >= 0; k--)
      if (open_pids[k] == pid) {
        open_pids[k] = open_pids[--open_count];
        break;
      }
  }
  return open_count + overflow + (length >= (1 << 16));
}

/* ---- 5. the report --------------------------------------------------------------------------- */

/* `<name> <length>\n<bytes>`: the first `head` bytes, or the last `tail` bytes when head is 0. */
static void report_file(int logs, const char *name, off_t head, off_t tail) {
  struct stat st;
  /* `!`: something other than a regular file stands there (a folder, a link, a fifo), a hard link
     to another file (test-stdout.txt, whose text the workspace's output decides), or a file its
     owner cannot write (made read-only so that test.sh's last write fails): never test.sh's own. */
  if (fstatat(logs, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (!S_ISREG(st.st_mode) || (head > 0 && (st.st_nlink != 1 || (st.st_mode & S_IWUSR) == 0)))) {
    dprintf(1, "%s !\n", name);
    return;
  }
  int fd = openat(logs, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
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

/* Set when test.sh has run past its wall time (SIGALRM). */
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig) {
  (void)sig;
  timed_out = 1;
}

/* The runner itself could not do its part: infrastructure, not the workspace. */
static int failed(const char *why) {
  dprintf(1, RECORD " failed %s\n", why);
  return 0;
}

/* Whether a process besides this one and pid 1 can still run code of its own: not a zombie, not
   exiting (PF_EXITING), no SIGKILL pending, and no SIGHUP, SIGINT or SIGTERM pending that it neither
   catches, blocks nor ignores (the kernel ends it before it returns to user code). A helper test.sh
   killed just before it ended, its signal not yet landed on a loaded machine, is not something the
   test left, whatever the load (the docker backend's `dying`, services/terminal/docker/processes.ts). */
static int has_live_process(void) {
  DIR *proc = opendir("/proc");
  if (proc == NULL) return kill(-1, 0) == 0;
  long self = (long)getpid();
  int live = 0;
  struct dirent *entry;
  while (!live && (entry = readdir(proc)) != NULL) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || end == entry->d_name || pid <= 1 || pid == self) continue;
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    char *after = strrchr(buf, ')');
    char state = 0;
    unsigned long flags = 0;
    if (after == NULL || sscanf(after + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2) continue;
    if (state == 'Z' || state == 'X' || (flags & 4)) continue;
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    unsigned long long pending = 0, held = 0;
    for (char *line = buf; line != NULL && *line != '\0'; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
      if (strncmp(line, "SigPnd:", 7) == 0 || strncmp(line, "ShdPnd:", 7) == 0) pending |= strtoull(line + 7, NULL, 16);
      else if (strncmp(line, "SigBlk:", 7) == 0 || strncmp(line, "SigIgn:", 7) == 0 || strncmp(line, "SigCgt:", 7) == 0) held |= strtoull(line + 7, NULL, 16);
    }
    unsigned long long fatal = (1ULL << (SIGHUP - 1)) | (1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1));
    if ((pending & (1ULL << (SIGKILL - 1))) || (pending & fatal & ~held)) continue;
    live = 1;
  }
  closedir(proc);
  return live;
}

int main(int argc, char **argv) {
  if (argc != 10) {
    fprintf(stderr, "usage: runner <uid> <user name> <workdir> <cpu s> <address KiB> <fsize KiB> <head bytes> <tail bytes> <wall s>\n");
    return 2;
  }
  unsigned int wall = (unsigned int)strtoul(argv[9], NULL, 10);
  test_uid = (uid_t)strtoul(argv[1], NULL, 10);
  const char *user = argv[2];
  const char *workdir = argv[3];
  rlim_t cpu = strtoull(argv[4], NULL, 10), address_kib = strtoull(argv[5], NULL, 10), fsize_kib = strtoull(argv[6], NULL, 10);
  off_t head = strtoll(argv[7], NULL, 10), tail = strtoll(argv[8], NULL, 10);
  if (test_uid == 0 || head <= 0 || tail <= 0) {
    fprintf(stderr, "runner: the test uid must not be 0, head and tail must be positive\n");
    return 2;
  }

  /* 1. */
  char passwd[256], group[160];
  snprintf(passwd, sizeof passwd, "root:x:0:0:root:/root:/bin/sh\n%.64s:x:%u:%u:%.64s:/tmp:/bin/sh\n", user, test_uid, test_uid, user);
  snprintf(group, sizeof group, "root:x:0:\n%.64s:x:%u:\n", user, test_uid);
  if ((mkdir("/etc", 0755) < 0 && errno != EEXIST) || write_etc("/etc/passwd", passwd) < 0 || write_etc("/etc/group", group) < 0) return failed(strerror(errno));

  /* 2. Entries are rooted at / (index.ts puts the workdir's path before a workdir archive's). */
  int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int tests = open("/tests", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (root < 0 || tests < 0) return failed(strerror(errno));
  while (create_entry(stdin, root, tests)) {
  }
  int target = copy_error == NULL ? open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (copy_error == NULL && target < 0) return failed(strerror(errno));
  int source = copy_error == NULL ? open("/.workspace", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
  if (source >= 0) {
    struct stat top;
    if (fstat(source, &top) < 0) note_errno();
    else {
      copy_tree(source, target, 0);
      remember_folder(target, ".", test_uid, top.st_mode, top.st_mtim);
    }
    close(source);
  }
  settle_folders();
  if (copy_error != NULL) {
    if (strcmp(copy_error, "disk_full") != 0 && strcmp(copy_error, "nesting") != 0) return failed(copy_error);
    if (strcmp(copy_error, "nesting") == 0) dprintf(1, RECORD " copy_failed nesting %d\n", MAX_DEPTH);
    else dprintf(1, RECORD " copy_failed %s\n", copy_error);
    return 0;
  }

  /* 3. */
  int output = open("/logs/verifier/test-stdout.txt", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0622);
  /* Root's, so that nothing of the test can rename, remove or hard-link it (sticky folder, not
     readable to the test), yet writable, so that test.sh's `> /dev/stdout` and `tee /dev/stderr`
     reopen it as they would in Harbor. */
  if (output < 0 || fchmod(output, 0622) < 0) return failed(strerror(errno));
  /* Close-on-exec: it reads end-of-file once bash runs, an error when the set-up failed. */
  int setup[2];
  if (pipe2(setup, O_CLOEXEC) < 0) return failed(strerror(errno));
  int sessions[2];
  if (pipe2(sessions, O_CLOEXEC) < 0) return failed(strerror(errno));
  pid_t child = fork();
  if (child < 0) return failed(strerror(errno));
  if (child == 0) {
    setup_report = setup[1];
    run_test(workdir, output, sessions[1], cpu, address_kib, fsize_kib);
  }
  close(output);
  close(sessions[1]);
  close(setup[1]);
  char why[256] = "";
  ssize_t got;
  while ((got = read(setup[0], why, sizeof why - 1)) < 0 && errno == EINTR) {
  }
  close(setup[0]);
  int status = 0;
  /* The wall time, here rather than only in Verdict, so that what made test.sh overrun it is still
     there to see: a fifo where test.sh writes its reward blocks it for good, and is the workspace's. */
  struct sigaction alarm_action;
  memset(&alarm_action, 0, sizeof alarm_action);
  alarm_action.sa_handler = on_alarm;
  if (got <= 0 && wall > 0 && sigaction(SIGALRM, &alarm_action, NULL) == 0) alarm(wall);
  /* WUNTRACED: a test.sh stopped by the workspace (SIGSTOP) ends here, as one killed would, rather
     than holding the run until its wall time. */
  while (waitpid(child, &status, WUNTRACED) < 0 && errno == EINTR && !timed_out) {
  }
  alarm(0);
  if (got > 0) {
    why[got] = '\0';
    return failed(why);
  }
  if (timed_out) {
    kill(-1, SIGKILL);
    int logs = open("/logs/verifier", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    dprintf(1, RECORD " timeout\n");
    if (logs >= 0) {
      report_file(logs, "reward.txt", head, 0);
      report_file(logs, "reward.json", head, 0);
      report_file(logs, "test-stdout.txt", 0, tail);
    }
    return 0;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSTOPPED(status) ? 128 + WSTOPSIG(status) : 128 + WTERMSIG(status);

  /* 4. */
  int left = has_live_process();
  kill(-1, SIGKILL);
  /* Blocks until the last killed holder of the write end is gone. */
  int cut_short = sessions_cut_short(sessions[0]);

  /* 5. */
  int logs = open("/logs/verifier", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  /* A full disk — the workdir's, /tmp or /logs/verifier itself: what the workspace filled. */
  struct statfs space;
  int tmp = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int full = 0;
  int places[3] = {target, tmp, logs};
  for (int k = 0; k < 3; k++) full |= places[k] >= 0 && fstatfs(places[k], &space) == 0 && space.f_bavail == 0;
  if (tmp >= 0) close(tmp);
  dprintf(1, RECORD " ran %d %d %d %d\n", code, left, full, cut_short);
  if (logs >= 0) {
    report_file(logs, "reward.txt", head, 0);
    report_file(logs, "reward.json", head, 0);
    report_file(logs, "test-stdout.txt", 0, tail);
  }
  return 0;
}
