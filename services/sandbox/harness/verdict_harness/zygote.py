"""The zygote: forked by the judge at start-up, before any job, so its memory holds no tests. Drops to
the slot's unprivileged uid, pre-imports the standard library, then forks one fresh run child per run
and reaps and sweeps after it. Not dumpable (no ptrace, no /proc/<pid>/mem); the child subreaper of
every candidate process. The candidate can reach it (same uid): if it kills it, its own run fails and
the slot is recycled.

Between two forks every page the zygote writes is copied (the run child still shares it), so its loop
does as little as it can: its messages to the judge are a word and numbers (`spawned PID`, `exit PID
STATUS`; json cost ~75 page faults a run), and it reads /proc through bare descriptors."""

import builtins
import os
import select
import signal
import socket
import sys

from .child import child_main
from .wire import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, PR_SET_PDEATHSIG, close_fds_except, libc_prctl

# Modules a run child finds already imported: the zygote pays their import once. Chosen for what
# solutions import most (typing for every HumanEval prompt); each one also makes every fork dearer.
# sqlite3 and base64 are agent_state's: its harness and every task's verification import them, and
# sqlite3 alone costs a run ~14 ms to import.
PRELOAD = (
    'array base64 bisect cmath collections copy datetime decimal fractions functools heapq itertools math '
    'operator random re sqlite3 string typing'
).split()


def zygote_main(sock, config):
    close_fds_except({sock.fileno()})
    null = os.open('/dev/null', os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    # Inherited by every run child: under memory pressure the kernel kills candidates, not the judge.
    # (Written before setuid, which makes the process non-dumpable and its /proc files root's.)
    with open('/proc/self/oom_score_adj', 'w') as f:
        f.write('1000')
    if config.get('mode') == 'user':
        enter_private_namespaces(sock)
    else:
        os.setgroups([])
        os.setgid(config['gid'])
        os.setuid(config['uid'])
    # After setuid: a credential change clears the parent-death signal.
    libc_prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    libc_prctl(PR_SET_DUMPABLE, 0)
    libc_prctl(PR_SET_CHILD_SUBREAPER, 1)
    install_exit_builtins()
    require_pidfd()
    preload()
    import gc
    gc.collect()
    gc.freeze()
    sock.send(b'hello %d' % vm_bytes())
    # The run child's exit is seen on a pidfd: no SIGCHLD handler, which a child would have to undo.
    # Orphans the candidate leaves (this is their subreaper) are reaped by the next sweep.
    current = exited = None
    while True:
        try:
            readable, _, _ = select.select([sock] if exited is None else [sock, exited], [], [])
        except InterruptedError:
            continue
        if exited in readable:
            _, status = os.waitpid(current, 0)
            sock.send(b'exit %d %d' % (current, status))
            os.close(exited)
            current = exited = None
        if sock in readable:
            msg, fds = receive(sock)
            if not msg:
                os._exit(0)
            if msg == b'spawn':
                if exited is not None:
                    # Asked for the next child before this one ended: the sweep ends and reaps it.
                    os.close(exited)
                    current = exited = None
                sweep()
                clean_workdir(config.get('workdir', '/tmp'))
                pid = os.fork()
                if pid == 0:
                    child_main(fds, config)
                for fd in fds:
                    os.close(fd)
                current, exited = pid, os.pidfd_open(pid)
                sock.send(b'spawned %d' % pid)


def require_pidfd():
    """Fails the zygote's start, saying why, on a kernel without pidfd_open (Linux < 5.3)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as exc:
        raise RuntimeError('the sandbox needs Linux >= 5.3 (pidfd_open: %s)' % exc) from None


# Room for the descriptors of one request (a run child's five pipe ends), reserved before any fork.
FDS_SPACE = socket.CMSG_SPACE(8 * 4)


def receive(sock):
    """The judge's next request and the descriptors sent with it (socket.recv_fds without its array)."""
    msg, ancillary, _, _ = sock.recvmsg(64, FDS_SPACE)
    fds = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.extend(memoryview(data)[:len(data) - len(data) % 4].cast('i'))
    return msg, fds


def preload():
    """Imports PRELOAD and seeds `random` with 0 here, once: every run child starts from that state
    (rewards are reproducible) without seeding it itself. `random` registers a reseed from the OS
    for every fork, which cost each run child ~40 page faults; it is imported without that hook.
    So the candidate's own forks inherit its state instead of drawing a fresh seed from the OS as in
    CPython, which keeps them reproducible too."""
    import importlib
    register, os.register_at_fork = os.register_at_fork, lambda **hooks: None
    try:
        for name in PRELOAD:
            importlib.import_module(name)
    finally:
        os.register_at_fork = register
    sys.modules['random'].seed(0)


CLONE_NEWPID = 0x20000000


def enter_private_namespaces(sock):
    """User mode (Verdict not root, so no host uid of its own for candidates; bubblewrap maps only
    Verdict's uid, as uid 0 of the slot's user namespace): the zygote moves its children into a pid
    namespace below the judge's, and its pid 1 drops every capability. Returns in that pid 1, which is
    the zygote from then on; the process that called it only waits for it and exits with it.

    From inside, the judge is in no pid namespace a candidate can name (kill(-1) and kill(pid) do not
    reach it), and a candidate holds no capability, so it cannot ptrace the (non-dumpable) judge.
    Pid 1 ignores signals sent from inside its namespace, so a candidate cannot kill or stop its
    zygote either. The capabilities this needs (CAP_SYS_ADMIN for unshare, CAP_SETPCAP to empty the
    bounding set) hold only in the slot's own user namespace."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), 'unshare(CLONE_NEWPID)')
    pid = os.fork()
    if pid:
        # The judge needs the zygote's pid as it sees it, to translate the run children's pids.
        sock.send(b'init %d' % pid)
        sock.close()
        libc_prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    drop_capabilities(libc)


def drop_capabilities(libc):
    """No capability, now or after an exec (empty bounding set), in the zygote's own user namespace."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]

    PR_CAPBSET_DROP = 24
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # EINVAL: no such cap
            raise OSError(ctypes.get_errno(), 'PR_CAPBSET_DROP %d' % cap)
    if libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()) != 0:
        raise OSError(ctypes.get_errno(), 'capset')


class Exiter:
    """`exit()` and `quit()` as the `site` module defines them (the sandbox starts Python with -S)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return 'Use %s() to exit' % self.name

    def __call__(self, code=None):
        try:
            sys.stdin.close()
        except BaseException:
            pass
        raise SystemExit(code)


def install_exit_builtins():
    builtins.exit = Exiter('exit')
    builtins.quit = Exiter('quit')


def sweep():
    """Kills every other process of this uid in the sandbox (kill(-1) spares the caller), reaps them,
    and removes the System V IPC objects they left (the one kind of state that outlives processes)."""
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            pass
    remove_ipc()


IPC_RMID = 0


def remove_ipc():
    for kind in ('shm', 'msg', 'sem'):
        rows = read_proc('/proc/sysvipc/' + kind).splitlines()[1:]
        if not rows:
            continue
        import ctypes
        libc = ctypes.CDLL(None)
        for row in rows:
            ident = int(row.split()[1])
            if kind == 'shm':
                libc.shmctl(ident, IPC_RMID, None)
            elif kind == 'msg':
                libc.msgctl(ident, IPC_RMID, None)
            else:
                libc.semctl(ident, 0, IPC_RMID)


def read_proc(path):
    """A small /proc file's bytes (b'' if unreadable), through bare descriptors: an `open()` file
    object builds buffered and text layers, whose writes to inherited memory cost page faults."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return b''
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b''.join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def clean_workdir(workdir):
    for name in os.listdir(workdir):
        remove_tree(os.path.join(workdir, name))


def remove_tree(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
            for name in os.listdir(path):
                remove_tree(os.path.join(path, name))
            os.rmdir(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


def vm_bytes():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmSize:'):
                return int(line.split()[1]) * 1024
    return 0

