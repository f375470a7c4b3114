"""The judge's view of one run child: its pipes, its CPU budget, and how a run ends (Halt)."""

import os
import resource
import select
import signal
import struct
import time

from .wire import decode_json, marshal_frame


# Bytes asked of one read from a run child's reply pipe. A bytes object this size is allocated for
# every read: below glibc's mmap threshold (128 KiB) it comes from the heap, where 1 MiB cost an
# mmap, an mremap and an munmap per read. Larger replies take more reads.
READ_SIZE = 1 << 16


class Halt(BaseException):
    """The run child is gone or out of budget; a BaseException so test code cannot catch it."""

    def __init__(self, kind, detail=''):
        super().__init__(kind)
        self.kind = kind
        self.detail = detail


class CandidateExit(BaseException):
    """The candidate raised SystemExit/KeyboardInterrupt: never catchable by a test's `except Exception`."""


class LabelError(Exception):
    pass


class Fault(Exception):
    """The sandbox itself failed before the candidate ran: the job is answered ABORTED."""


class Budget:
    """CPU time of the run child for one test, checked whenever the judge waits on it."""

    def __init__(self, child, cpu_ms, wall_ms):
        self.child = child
        self.cpu_limit = cpu_ms / 1000.0
        self.cpu_start = child.cpu_seconds()
        self.wall_end = time.monotonic() + wall_ms / 1000.0

    def next_timeout(self):
        """Seconds to wait before the next check, or raises Halt('time') when spent."""
        now = time.monotonic()
        if now >= self.wall_end:
            raise Halt('time', 'wall-clock limit')
        used = self.child.cpu_seconds() - self.cpu_start
        if used >= self.cpu_limit:
            raise Halt('time', 'cpu limit')
        # Wall time never runs slower than one thread's CPU time, so this wait cannot overshoot much.
        return max(0.005, min(self.wall_end - now, self.cpu_limit - used))


class JudgeClock:
    """The judge's own CPU time on one test. A test runs in the judge, computing with what the
    candidate returned; had it run in the candidate's process (as the references run it), that
    work would count against the test's CPU limit, so here it does too: past it, Halt('time').
    A signal is handled between bytecodes only, so one long call into C is not stopped: the
    guards of bounded.py keep such calls small."""

    def __init__(self):
        self.running = False
        signal.signal(signal.SIGPROF, self._expired)

    def _expired(self, _signum, _frame):
        # A signal that lands after stop() (it is handled at the next bytecode) is ignored.
        if self.running:
            self.running = False
            raise Halt('time', "cpu limit, in the test's own computation")

    def start(self, seconds):
        self.running = True
        signal.setitimer(signal.ITIMER_PROF, seconds)

    def stop(self):
        self.running = False
        signal.setitimer(signal.ITIMER_PROF, 0)


class MemoryCap:
    """The judge's address space while it runs a job's tests: what it had plus HEADROOM. A test
    that would build more from the candidate's values (`'a'.center(f(2))`, the list of every
    permutation of a returned list) gets a MemoryError, charged to the candidate as the test's
    error, instead of taking the slot's memory (whose cgroup leaves the judge ~256 MiB beside the
    run child) and ending as ABORTED. Lifted after the tests: jobs themselves may be large."""

    HEADROOM = 128 << 20

    def __enter__(self):
        with open('/proc/self/statm', 'rb') as statm:
            in_use = int(statm.read().split()[0]) * os.sysconf('SC_PAGE_SIZE')
        self.previous = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (in_use + self.HEADROOM, self.previous[1]))
        return self

    def __exit__(self, *_exc):
        resource.setrlimit(resource.RLIMIT_AS, self.previous)


class Child:
    """One run child as the judge sees it: its pipes and what the zygote reported about it."""

    def __init__(self, judge, pid, our_pid, ctl_in, ctl_out, stdin, stdout, stderr):
        self.judge = judge
        # `pid` as the zygote numbers it (its exit reports); `our_pid` in the judge's pid namespace
        # (the same in root mode; None when it died before the judge could look it up).
        self.pid = pid
        self.our_pid = our_pid
        self.ctl_in, self.ctl_out = ctl_in, ctl_out
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.buffer = b''
        self.max_reply = 1 << 20
        for fd in (ctl_in, ctl_out, stdout, stderr):
            os.set_blocking(fd, False)
        self.budget = None
        self.cpu_clock = None if our_pid is None else (~our_pid << 3) | 2

    def cpu_seconds(self):
        # The process-wide CPU clock of another pid, as clock_getcpuclockid(3) builds its id:
        # one syscall with nanosecond resolution instead of parsing /proc/<pid>/stat.
        if self.cpu_clock is None:
            return 0.0
        try:
            return time.clock_gettime(self.cpu_clock)
        except OSError:
            return 0.0

    def send(self, obj):
        # Non-blocking, under the budget: a child that stops reading must not stall the judge.
        view = memoryview(marshal_frame(obj))
        while view:
            try:
                view = view[os.write(self.ctl_in, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise Halt('died', 'closed its request pipe')
            self.judge.wait_writable(self.ctl_in, self.budget.next_timeout())

    def recv(self):
        """The next reply frame, waiting under the current budget."""
        while True:
            if len(self.buffer) >= 4:
                (size,) = struct.unpack('>I', self.buffer[:4])
                if size > self.max_reply:
                    raise Halt('output', 'reply of %d bytes' % size)
                if len(self.buffer) >= 4 + size:
                    body, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    try:
                        return decode_json(body)
                    except (ValueError, RecursionError):
                        raise Halt('protocol', 'unreadable reply')
            self.judge.wait([self.ctl_out], self.budget.next_timeout())
            if self.judge.exit_status(self.pid) is not None and not self.readable_now():
                raise Halt('died', describe_status(self.judge.exit_status(self.pid)))
            try:
                chunk = os.read(self.ctl_out, READ_SIZE)
            except BlockingIOError:
                continue
            if not chunk:
                raise Halt('died', 'exited')
            self.buffer += chunk

    def readable_now(self):
        return bool(select.select([self.ctl_out], [], [], 0)[0])

    def close(self):
        try:
            if self.our_pid is not None:
                os.kill(self.our_pid, signal.SIGKILL)
        except OSError:
            pass
        for fd in (self.ctl_in, self.ctl_out, self.stdin, self.stdout, self.stderr):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.ctl_in = self.ctl_out = self.stdin = self.stdout = self.stderr = None


def describe_status(status):
    if os.WIFSIGNALED(status):
        return 'killed by %s' % signal.Signals(os.WTERMSIG(status)).name
    return 'exited with status %d' % os.WEXITSTATUS(status)


def drain(fd, buf, cap):
    while len(buf) < cap:
        try:
            chunk = os.read(fd, 1 << 16)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            return
        if len(buf) < cap:
            buf += chunk[:cap - len(buf)]

