/**
 * The shell scripts the docker backend runs as root in the container around the tests. They use
 * only `sh` builtins to look at and signal processes (a process listing that forks would list
 * itself), and the image's `rm`, `mkdir`, `mv`, `sleep`, `stat` (a reward file's link count) and
 * `setpriv` (test.sh as a user other than root): the tamper check watches them.
 */

import { PYTHON_HOOK_AT } from './archive';
import { NONCE_FILE } from './host-read';
import { SERVICES_SCRIPT } from './services';

/** Where the fused script moves the reward files once test.sh and its processes are gone (read from there, paused). */
export const STASH = '/tmp/.verdict-rewards';

/**
 * `kept PID`: whether the process or one of its ancestors is in KEEP (the episode's processes kept
 * with `episodeProcesses: keep`, so that what a kept service forks later is kept too; a process a
 * kept one left to pid 1 is not).
 *
 * `dying DIR`: whether the process of /proc/PID DIR can run no more of its own code: it is exiting
 * (PF_EXITING, 0x4, in its stat flags), or a SIGKILL is pending, or a SIGHUP, SIGINT or SIGTERM is
 * pending that it neither catches, blocks nor ignores (the kernel ends it before it returns to user
 * code). A helper test.sh killed just before it ended (`kill $PID` without `wait`) is such a process
 * for a moment on a loaded machine: not something the verification left, whatever the load. The
 * masks are read on their low 32 bits (all these signals are there; sh arithmetic is 64-bit signed).
 * A process gone between the reads (its stat read, its status not, or not to the end: it exited and
 * was reaped meanwhile, as a killed helper is at any moment) is dying too: read as one with nothing
 * pending, it was listed as left over, and a right answer scored 0 under load.
 *
 * `list TAG`: the processes other than the container's init (pid 1), the script itself and the
 * kept ones, as `<tag> <pid> <state> <name>` lines (the state letter of /proc/PID/stat: T is
 * stopped); zombies and dying processes are left out (they cannot write).
 *
 * `kill_others`: one round of SIGKILL to every process but pid 1, the script itself and the kept ones.
 */
export const LIST = `kept() {
  [ -z "$KEEP" ] && return 1
  q=$1; n=0
  while [ "$q" -gt 1 ] && [ "$n" -lt 64 ]; do
    case " $KEEP " in *" $q "*) return 0 ;; esac
    read -r t < "/proc/$q/stat" 2>/dev/null || return 1
    t=\${t##*) }; set -- $t; q=$2; n=$((n + 1))
  done
  return 1
}
dying() {
  read -r df 2>/dev/null < "$1/stat" || return 0
  df=\${df##*) }; set -- "$1" $df
  [ $(($8 & 4)) -ne 0 ] && return 0
  dpnd=0; dhold=0
  { while read -r dk dv; do
    dv=\${dv#\${dv%????????}}
    case "$dk" in SigPnd:|ShdPnd:) dpnd=$((dpnd | 0x$dv)) ;; SigBlk:|SigIgn:|SigCgt:) dhold=$((dhold | 0x$dv)) ;; esac
  done < "$1/status"; } 2>/dev/null || return 0
  [ -e "$1/status" ] || return 0
  [ $((dpnd & 256)) -ne 0 ] || [ $((dpnd & 16387 & ~dhold)) -ne 0 ]
}
kill_others() {
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    case " 1 $$ " in *" $p "*) continue ;; esac
    kept "$p" && continue
    kill -s KILL "$p" 2>/dev/null
  done
}
list() {
  found=
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    case " 1 $$ " in *" $p "*) continue ;; esac
    kept "$p" && continue
    read -r s < "$d/stat" 2>/dev/null || continue
    st=\${s##*) }; st=\${st%% *}
    [ "$st" = Z ] && continue
    dying "$d" && continue
    c=\${s#*\\(}; c=\${c%\\)*}
    found=1
    pids="$pids $p"
    echo "$1 $p $st $c"
  done
}`;

/**
 * The episode's processes listed (`episode <pid> <state> <name>`) and, with STOP=1, killed round
 * after round until none is left (SIGKILL lands when the kernel next schedules the process; a
 * forking loop needs more than one round): exit 4 when some survive. PREPARE and FUSED share it.
 */
const STOP_EPISODE = `list episode
if [ "$STOP" = 1 ] && [ -n "$found" ]; then
  for round in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    stop_round
    list stopped >/dev/null
    [ -z "$found" ] && break
    sleep 0.05
  done
  [ -n "$found" ] && exit 4
fi`;

/**
 * Before the tests: lists the episode's processes (`episode <pid> <name>`; those of the task's
 * declared services as `service <pid> <name>`, kept) and, with STOP=1, kills the others until none
 * is left (a forking loop needs more than one round); then a fresh, empty
 * /logs/verifier, no /tests and no bytecode cache at PYTHONPYCACHEPREFIX, checked with builtins. Exit 3: /tests or a reward folder entry
 * survived; 4: processes survived a second of rounds.
 */
export const PREPARE = `${LIST}
${SERVICES_SCRIPT}
services
${STOP_EPISODE}
rm -rf /tests /logs/verifier $PYTHONPYCACHEPREFIX ${STASH}
mkdir -p -m 777 /logs/verifier
[ -e /tests ] || [ -e "$PYTHONPYCACHEPREFIX" ] && exit 3
for f in /logs/verifier/* /logs/verifier/.[!.]* /logs/verifier/..?*; do [ -e "$f" ] || [ -L "$f" ] && exit 3; done
[ -d /logs/verifier ] || exit 3
exit 0`;

/**
 * After `list` has set $found: KILL every process it found but pid 1, the shell itself and those
 * `kept` spares, up to 20 rounds (a process may fork while it is being killed).
 */
const KILL_FOUND = `if [ -n "$found" ]; then
  for round in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    kill_others
    list again >/dev/null
    [ -z "$found" ] && break
    sleep 0.05
  done
fi`;

/** Where the fused script writes the hook's `.pth` (its name sorts before an image's own) and notes the path for CLEANUP. */
const PTH_NAME = '00-verdict-python.pth';
const PTH_NOTE = '/tmp/.verdict-pth';
/**
 * Verdict's Python hook as a `.pth` in the first site folder of the python3 test.sh finds (a venv's
 * own when PATH leads to one), from VERDICT_PTH (python-hook.ts): a test.sh that sets PYTHONPATH
 * itself cannot drop it. Root's, removed again with the tests (and by CLEANUP after a cut run).
 */
const HOOK_PTH = `pth=
if [ -n "$VERDICT_PTH" ] && command -v python3 >/dev/null 2>&1; then
  site=$(python3 -I -c 'import os, site; print(next((p for p in site.getsitepackages() if os.path.isdir(p)), ""))' 2>/dev/null)
  if [ -n "$site" ] && printf '%s' "$VERDICT_PTH" > "$site/${PTH_NAME}" 2>/dev/null; then pth=$site/${PTH_NAME}; echo "$pth" > ${PTH_NOTE}; fi
fi
unset VERDICT_PTH`;
/** The `.pth` a run left (a run cut short), removed. */
const REMOVE_PTH = `if [ -f ${PTH_NOTE} ]; then
  read -r pth < ${PTH_NOTE}
  case "$pth" in */${PTH_NAME}) rm -f "$pth" ;; esac
  rm -f ${PTH_NOTE}
fi`;

/**
 * After the tests: lists what the verification left (`left <pid> <name>`, KEEP holding the
 * episode's kept processes), kills it, and removes /tests, the reward files and the bytecode cache:
 * the hidden tests do not stay in the episode's container, and a later verification of the same
 * container finds nothing of this one.
 */
export const CLEANUP = `${LIST}
for f in reward.txt reward.json; do
  p=/logs/verifier/$f
  { [ -e "$p" ] || [ -L "$p" ]; } && { [ ! -f "$p" ] || [ -L "$p" ]; } && echo "@@VERDICT@@notfile $f"
done
list left
${KILL_FOUND}
${REMOVE_PTH}
rm -rf /tests /logs/verifier $PYTHONPYCACHEPREFIX
mkdir -p -m 777 /logs/verifier
exit 0`;

/** The root-only folder of the fused script's pipe for the start-up hook's record of pytest runs. */
export const SESSIONS = '/tmp/.verdict-sessions';
/** The fused script's last line: how many pytest runs started and never ended (`@@VERDICT@@sessions N`). */
export const SESSIONS_LINE = '@@VERDICT@@sessions ';

/**
 * The pipe of the start-up hook's record (python/sitecustomize.py), made by root in a folder only
 * root can open: the script holds it read-write on 7 (so neither open blocks), test.sh gets it
 * write-only on 8 (VERDICT_SESSIONS_FD), never a readable end, so nothing of the test can drain a
 * start it recorded. After test.sh and everything it left are gone (the dying too: they hold the
 * write end), `sessions_read` reads it to its end (a new read end first, then the script's own
 * closed: no writer left) and prints how many
 * runs started (`S pid`) without a later end (`F pid`). No `mkfifo`: no record, as before.
 */
const SESSIONS_PIPE = `sessions=
rm -rf ${SESSIONS}
if command -v mkfifo >/dev/null 2>&1 && mkdir -m 700 ${SESSIONS} && mkfifo -m 600 ${SESSIONS}/pipe && exec 7<>${SESSIONS}/pipe 8>${SESSIONS}/pipe; then
  sessions=1
fi
sessions_read() {
  [ -n "$sessions" ] || return 0
  # Every process test.sh started is gone but those dying, which hold the write end until they are
  # (a helper stopped with a SIGTERM pending never is): killed, so that the read below ends.
  kill_others
  exec 8>&- 6<${SESSIONS}/pipe 7<&-
  open=' '; sbytes=0
  while read -r sk sp sr; do
    sbytes=$((sbytes + \${#sk} + \${#sp} + \${#sr} + 3))
    case "$sp" in ''|*[!0-9]*) continue ;; esac
    case "$sk" in
      S) open="$open$sp " ;;
      F) case "$open" in *" $sp "*) open="\${open% $sp *} \${open##* $sp }" ;; esac ;;
    esac
  done <&6
  exec 6<&-
  rm -rf ${SESSIONS}
  set -- $open
  # A pipe read (near) full: flooded by the workspace, so that a start could not be written.
  [ "$sbytes" -lt 60000 ] || set -- "$@" flooded
  echo "${SESSIONS_LINE}$#"
}`;

/** The line the fused script prints once /tests and /logs/verifier are reset; it then reads `go` or `stop`. */
export const RESET = '@@VERDICT@@ reset\n';
/**
 * The line a script prints before test.sh starts (`@@VERDICT@@ ready <pid>`: the pid, in the
 * container, of test.sh or of the fused script whose child it is), and the one naming what test.sh
 * needs and the environment lacks.
 */
export const READY = '@@VERDICT@@ ready ';
export const LACKS = '@@VERDICT@@ lacks';
/**
 * The fused script's line when it cannot run test.sh as VERDICT_USER itself (no `setpriv`, or a
 * user /etc/passwd lacks): it exits 6 having changed nothing, and the three-exec path runs.
 */
export const FALLBACK = '@@VERDICT@@ fallback';

/**
 * What test.sh needs (task.needs: its commands, the interpreter first, as arguments; the Python
 * packages in VERDICT_MODULES), looked up as test.sh would find them: `lacks …` and exit 97.
 */
const NEEDS = `lack=
for c in "$@"; do command -v "$c" >/dev/null 2>&1 || lack="$lack cmd:$c"; done
if [ -n "$VERDICT_MODULES" ] && command -v python3 >/dev/null 2>&1; then
  for m in $(python3 -c 'import importlib.util as u, sys; print(" ".join(m for m in sys.argv[1:] if u.find_spec(m) is None))' $VERDICT_MODULES 2>/dev/null); do lack="$lack mod:$m"; done
fi
if [ -n "$lack" ]; then echo "${LACKS}$lack"; exit 97; fi
unset VERDICT_MODULES
PYTHONPATH="${PYTHON_HOOK_AT}\${PYTHONPATH:+:$PYTHONPATH}"; export PYTHONPATH`;

/** The test exec of the three-exec path: as the test user, the needs, then test.sh in its place. */
export const RUN_TESTS = `${NEEDS}
printf '${READY}%s\\n' $$
read -r first < /tests/test.sh
case "$first" in '#!'*) exec /tests/test.sh ;; *) exec bash /tests/test.sh ;; esac`;

/**
 * VERDICT_USER (`name`, `uid`, `name:group`) resolved as the engine resolves an exec's user, from
 * the container's /etc/passwd and /etc/group (read with builtins): `$drop` is the `setpriv` that
 * runs test.sh as that user with its groups, and HOME is the user's unless the task's env sets it
 * (VERDICT_HOME=1). No setpriv, or a user or group the files lack: FALLBACK, exit 6, before
 * anything is changed.
 */
const USER = `drop=
if [ -n "$VERDICT_USER" ]; then
  command -v setpriv >/dev/null 2>&1 || { echo '${FALLBACK}'; exit 6; }
  u=\${VERDICT_USER%%:*}; g=; case "$VERDICT_USER" in *:*) g=\${VERDICT_USER#*:} ;; esac
  uid=; gid=; home=
  while IFS=: read -r n x i j y h z; do
    if [ "$n" = "$u" ] || [ "$i" = "$u" ]; then uid=$i; gid=$j; home=$h; break; fi
  done < /etc/passwd
  if [ -n "$g" ] && [ -n "$uid" ]; then
    gid=
    while IFS=: read -r n x i z; do
      if [ "$n" = "$g" ] || [ "$i" = "$g" ]; then gid=$i; break; fi
    done < /etc/group
  fi
  { [ -n "$uid" ] && [ -n "$gid" ]; } || { echo '${FALLBACK}'; exit 6; }
  drop="setpriv --reuid=$uid --regid=$gid --init-groups --"
  [ "$VERDICT_HOME" = 1 ] || HOME=$home
fi
unset VERDICT_USER VERDICT_HOME`;

/**
 * The fused verification, one exec as root, test.sh run as the task's user (root itself, or
 * dropped to VERDICT_USER by `setpriv`, which the tamper check watches): unless FRESH=1, the
 * tamper verdict read from stdin first (`go`; `stop`: the policy ends the run here) — the diff is
 * taken while this exec starts, and the script changes nothing before it has read the verdict, so
 * that nothing is left unread on its stdin when it exits — then the episode's processes listed and
 * (STOP=1) stopped, /tests and /logs/verifier reset, RESET printed, and `go`
 * awaited while Verdict puts the tests in; then the needs, test.sh, what it left listed
 * (`@@VERDICT@@left`) and killed, the reward files moved to STASH (with VERDICT_NONCE beside
 * them, which shows Verdict's host read that the folder it reads is this container's:
 * host-read.ts; test.sh does not get it in its environment) and /tests, /logs/verifier and
 * the bytecode cache cleared; exit with test.sh's code. A test process that kills this script ends
 * the exec by a signal: runner_killed.
 */
export const FUSED = `${LIST}
${SERVICES_SCRIPT}
if [ "$FRESH" != 1 ]; then
  read -r verdict || exit 5
  [ "$verdict" = go ] || exit 0
fi
${USER}
nonce=$VERDICT_NONCE
unset VERDICT_NONCE
pids=
if [ "$FRESH" != 1 ]; then
  services
  ${STOP_EPISODE}
  [ "$STOP" = 1 ] || KEEP="$KEEP $pids"
  rm -rf /tests /logs/verifier $PYTHONPYCACHEPREFIX ${STASH}
  mkdir -p -m 777 /logs/verifier
  [ -e /tests ] || [ -e "$PYTHONPYCACHEPREFIX" ] && exit 3
  for f in /logs/verifier/* /logs/verifier/.[!.]* /logs/verifier/..?*; do [ -e "$f" ] || [ -L "$f" ] && exit 3; done
  [ -d /logs/verifier ] || exit 3
  printf '@@VERDICT@@ reset\\n'
  read -r go || exit 5
  [ "$go" = go ] || exit 0
fi
${NEEDS}
${HOOK_PTH}
${SESSIONS_PIPE}
printf '${READY}%s\\n' $$
read -r first < /tests/test.sh
if [ -n "$sessions" ]; then export VERDICT_SESSIONS_FD=8; fi
case "$first" in '#!'*) $drop /tests/test.sh < /dev/null 7<&- ;; *) $drop bash /tests/test.sh < /dev/null 7<&- ;; esac
code=$?
unset VERDICT_SESSIONS_FD
list @@VERDICT@@left
${KILL_FOUND}
sessions_read
${REMOVE_PTH}
rm -rf ${STASH} && mkdir -p ${STASH}
[ -z "$nonce" ] || echo "$nonce" > ${STASH}/${NONCE_FILE}
for f in reward.txt reward.json; do
  { [ -e "/logs/verifier/$f" ] || [ -L "/logs/verifier/$f" ]; } || continue
  # Another name for the same file (a hard link): its text is not test.sh's alone.
  if [ -f "/logs/verifier/$f" ] && [ ! -L "/logs/verifier/$f" ]; then
    set -- $(stat -c '%h' "/logs/verifier/$f" 2>/dev/null)
    [ "\${1:-1}" = 1 ] || echo "@@VERDICT@@notfile $f"
  fi
  mv "/logs/verifier/$f" ${STASH}/
done
rm -rf /tests /logs/verifier $PYTHONPYCACHEPREFIX
mkdir -p -m 777 /logs/verifier
exit $code`;

/** test.sh's own output: what follows a script's READY line (all of it when there is none). */
export function afterReady(output: string): string {
  const at = output.indexOf(READY);
  if (at < 0) return output;
  const end = output.indexOf('\n', at);
  return end < 0 ? '' : output.slice(end + 1);
}

/** The pid a script's READY line names. */
export function readyPid(head: string): string | null {
  const at = head.indexOf(READY);
  if (at < 0) return null;
  const match = /^(\d+)\n/.exec(head.slice(at + READY.length));
  return match ? match[1]! : null;
}

/** How many pytest runs the fused script saw start and never end (its SESSIONS_LINE; 0 without one). */
export function sessionsCutShort(output: string): number {
  // The script's own line is its last: nothing of the test is alive to print after it.
  const at = output.lastIndexOf(SESSIONS_LINE);
  if (at < 0) return 0;
  return Number(/^\d+/.exec(output.slice(at + SESSIONS_LINE.length))?.[0] ?? 0);
}

/** The reward files a script found to be something other than test.sh's own regular file. */
export function notFileLines(output: string): Array<'reward.txt' | 'reward.json'> {
  const found = new Set<'reward.txt' | 'reward.json'>();
  for (const match of output.matchAll(/^@@VERDICT@@notfile (reward\.txt|reward\.json)$/gm)) found.add(match[1] as 'reward.txt' | 'reward.json');
  return [...found];
}

/** The `<tag> <pid> <state> <name>` lines of a script's output with that tag. */
export function processLines(output: string, tag: string): Array<{ pid: string; state: string; name: string }> {
  const found: Array<{ pid: string; state: string; name: string }> = [];
  for (const line of output.split('\n')) {
    const [first, pid, state, ...name] = line.split(' ');
    if (first === tag && pid !== undefined && /^\d+$/.test(pid) && state !== undefined) found.push({ pid, state, name: name.join(' ') });
  }
  return found;
}
