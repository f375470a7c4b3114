"""The zygote: forked by the judge at start-up, before any job, so its memory holds no tests. Drops to
the slot's unprivileged uid, pre-imports the standard library, then forks one fresh run child per run
and reaps and sweeps after it. Not dumpable (no ptrace, no /proc/<pid>/mem); the child subreaper of
every candidate process. The candidate can reach it (same uid): if it kills it, its own run fails and
the slot is recycled."""

import builtins
import json
import os
import select
import signal
import socket
import sys

from .child import child_main
from .wire import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, PR_SET_PDEATHSIG, close_fds_except, libc_prctl

# Modules a run child finds already imported: the zygote pays their import once. Chosen for what
# solutions import most (typing for every HumanEval prompt); each one also makes every fork dearer.
PRELOAD = (
    'array bisect cmath collections copy datetime decimal fractions functools heapq itertools math '
    'operator random re string typing'
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
    os.setgroups([])
    os.setgid(config['gid'])
    os.setuid(config['uid'])
    # After setuid: a credential change clears the parent-death signal.
    libc_prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    libc_prctl(PR_SET_DUMPABLE, 0)
    libc_prctl(PR_SET_CHILD_SUBREAPER, 1)
    install_exit_builtins()
    import importlib
    for name in PRELOAD:
        importlib.import_module(name)
    import gc
    gc.collect()
    gc.freeze()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    sock.send(json.dumps({'hello': True, 'vm_bytes': vm_bytes()}).encode())
    current = None
    while True:
        try:
            readable, _, _ = select.select([sock, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in readable:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
            current = reap(sock, current)
        if sock in readable:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
            if not msg:
                os._exit(0)
            request = json.loads(msg)
            if request['op'] == 'spawn':
                sweep()
                clean_workdir(config.get('workdir', '/tmp'))
                pid = os.fork()
                if pid == 0:
                    child_main(fds, config)
                for fd in fds:
                    os.close(fd)
                current = pid
                sock.send(json.dumps({'spawned': pid}).encode())


def reap(sock, current):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return current
        if pid == 0:
            return current
        if pid == current:
            sock.send(json.dumps({'exit': pid, 'status': status}).encode())
            current = None


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
        try:
            with open('/proc/sysvipc/' + kind) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
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

