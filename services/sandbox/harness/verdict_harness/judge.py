"""The judge: reads jobs from Node, runs each test itself against a fresh run child, decides every
verdict. It never runs candidate code; a test's calls into the candidate are remote calls that
return plain data (values.decode_bounded) or opaque handles (Remote)."""

import binascii
import builtins
import json
import marshal
import os
import select
import signal
import socket
import sys
import time

from .compare import outputs_match
from .control import Budget, CandidateExit, Child, Fault, Halt, LabelError, MemoryCap, JudgeClock, describe_status, drain
from .plans import single_call
from .bounded import MODULES as GUARDED_MODULES, guard_tree, install as install_guards
from .values import Oversize, clip, decode_bounded, encode, error_text, short_repr


class Remote:
    """A candidate object the judge holds only by handle. Comparisons are identity; truth is refused."""

    __slots__ = ('_verdict_handle', '_verdict_judge')

    def __init__(self, judge, handle):
        object.__setattr__(self, '_verdict_handle', handle)
        object.__setattr__(self, '_verdict_judge', judge)

    def _rpc(self, op, **fields):
        return self._verdict_judge.rpc(op, h=self._verdict_handle, **fields)

    def __call__(self, *args, **kwargs):
        judge = self._verdict_judge
        return self._rpc('call', args=judge.to_child(list(args)), kwargs=judge.to_child(kwargs))

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return self._rpc('getattr', name=name)

    def __iter__(self):
        values = self._rpc('list')
        if type(values) is not list:
            raise TypeError('candidate iterable did not produce a list')
        return iter(values)

    def __len__(self):
        n = self._rpc('len')
        if type(n) is not int:
            raise TypeError('candidate __len__ returned a non-int')
        return n

    def __getitem__(self, key):
        return self._rpc('getitem', key=self._verdict_judge.to_child(key))

    def __bool__(self):
        raise TypeError('the truth of a candidate object is not taken from the candidate')

    def __repr__(self):
        return '<candidate object>'


EXCEPTIONS = {
    name: cls
    for name, cls in vars(builtins).items()
    if isinstance(cls, type) and issubclass(cls, Exception) and not issubclass(cls, Warning)
}


class Judge:
    def __init__(self, sock, zygote_pid, nested=False):
        self.sock = sock
        self.zygote_pid = zygote_pid
        # User mode: the zygote is pid 1 of a pid namespace below ours (zygote.enter_private_namespaces),
        # and the pids it reports are in that namespace; this is its pid in ours.
        self.nested_init = None
        self.zygote_lost = False
        self.exits = {}
        self.spare = None
        # The judge's pipe ends of a run child asked for and not yet taken (request_spawn), and the
        # pid the zygote answered with.
        self.pending = None
        self.spawned = None
        self.child = None
        self.code_cache = {}
        self.tests_cache = {}
        self.last_value = None
        self.clock = JudgeClock()
        hello = self.zygote_message(30.0)
        while hello and hello[0] == b'init':
            self.nested_init = hello[1][0]
            hello = self.zygote_message(30.0)
        if not hello or hello[0] != b'hello' or (nested and self.nested_init is None):
            raise Fault('zygote did not start')
        self.baseline = hello[1][0]

    # -- zygote --

    def zygote_message(self, timeout):
        """The zygote's next message as (word, numbers), or None: `hello VM_BYTES`, `init PID`,
        `spawned PID`, `exit PID STATUS` (zygote.py)."""
        if self.zygote_lost or not select.select([self.sock], [], [], timeout)[0]:
            return None
        try:
            msg = self.sock.recv(256)
        except OSError:
            msg = b''
        if not msg:
            self.zygote_lost = True
            return None
        word, *numbers = msg.split()
        numbers = [int(n) for n in numbers]
        if word == b'exit':
            self.exits[numbers[0]] = numbers[1]
        elif word == b'spawned':
            self.spawned = numbers[0]
        return word, numbers

    def wait(self, fds, timeout):
        """Waits for one of `fds` (or a zygote message) for at most `timeout` seconds."""
        watched = list(fds) + ([] if self.zygote_lost else [self.sock])
        try:
            readable = select.select(watched, [], [], timeout)[0]
        except InterruptedError:
            return []
        if self.sock in readable:
            self.zygote_message(0)
            if self.zygote_lost:
                raise Halt('disrupted', 'the candidate took down its sandbox')
        return readable

    def poll_zygote(self):
        """Reads every pending zygote message, so that a zygote the candidate killed is noticed now."""
        while not self.zygote_lost and self.zygote_message(0) is not None:
            pass

    def wait_writable(self, fd, timeout):
        watched = [] if self.zygote_lost else [self.sock]
        try:
            readable = select.select(watched, [fd], [], timeout)[0]
        except InterruptedError:
            return
        if readable:
            self.zygote_message(0)
            if self.zygote_lost:
                raise Halt('disrupted', 'the candidate took down its sandbox')

    def exit_status(self, pid):
        return self.exits.get(pid)

    def request_spawn(self):
        """Asks the zygote for a fresh run child without waiting for it: the judge's ends of its
        pipes, to be paired with its pid by `await_spawn`. The zygote sweeps and forks meanwhile."""
        if self.zygote_lost:
            raise Fault('zygote lost')
        ours = [os.pipe() for _ in range(5)]
        # (judge end, child end) per pipe: ctl_in, ctl_out, stdin, stdout, stderr
        ctl_in_r, ctl_in_w = ours[0]
        ctl_out_r, ctl_out_w = ours[1]
        in_r, in_w = ours[2]
        out_r, out_w = ours[3]
        err_r, err_w = ours[4]
        theirs = [ctl_in_r, ctl_out_w, in_r, out_w, err_w]
        try:
            # A candidate may have stopped its zygote (same uid): wake it before asking for a fork.
            os.kill(self.zygote_pid, signal.SIGCONT)
        except OSError:
            pass
        self.spawned = None
        try:
            socket.send_fds(self.sock, [b'spawn'], theirs)
        except OSError:
            self.zygote_lost = True
        finally:
            for fd in theirs:
                os.close(fd)
        return (ctl_in_w, ctl_out_r, in_w, out_r, err_r)

    def await_spawn(self, ends):
        """The run child asked for by `request_spawn` (its pipes' judge ends `ends`)."""
        deadline = time.monotonic() + 10.0
        while self.spawned is None and not self.zygote_lost:
            if self.zygote_message(max(0.0, deadline - time.monotonic())) is None:
                break
        pid, self.spawned = self.spawned, None
        if pid is None:
            for fd in ends:
                os.close(fd)
            raise Fault('zygote did not fork a run child')
        return Child(self, pid, self.our_pid(pid), *ends)

    def spawn(self):
        return self.await_spawn(self.request_spawn())

    def our_pid(self, pid):
        """The pid in our namespace of the zygote's child `pid` (None if it is gone already)."""
        if self.nested_init is None:
            return pid
        try:
            with open('/proc/%d/task/%d/children' % (self.nested_init, self.nested_init)) as f:
                candidates = f.read().split()
        except OSError:
            return None
        for ours in candidates:
            try:
                with open('/proc/%s/status' % ours) as f:
                    nspid = next(line for line in f if line.startswith('NSpid:')).split()
            except (OSError, StopIteration):
                continue
            if int(nspid[-1]) == pid:
                return int(ours)
        return None

    def take_child(self):
        if self.pending is not None:
            ends, self.pending = self.pending, None
            try:
                self.spare = self.await_spawn(ends)
            except Fault:
                self.spare = None
        child, self.spare = self.spare, None
        if child is not None:
            self.zygote_message(0)
            if self.exit_status(child.pid) is None:
                return child
            child.close()
        return self.spawn()

    def refill(self):
        """Asks for the next run's child as soon as a run ends: the zygote sweeps the slot and forks
        while Node reads the reply and sends the next job, off the job's critical path."""
        if self.spare is None and self.pending is None and not self.zygote_lost:
            try:
                self.pending = self.request_spawn()
            except Fault:
                pass

    def limits_for_child(self, limits, tests):
        return {
            'cpu_total_ms': limits['cpu_ms'] * (tests + 1),
            'as_bytes': self.baseline + limits['memory_mb'] * 1024 * 1024,
            'file_bytes': limits['file_mb'] * 1024 * 1024,
            'open_files': limits['open_files'],
            'processes': limits['processes'],
        }

    # -- remote calls --

    def rpc(self, op, **fields):
        self.child.send(dict(op=op, **fields))
        return self.receive_value()

    def receive_value(self):
        """The value (or raised error) of the next reply of the run child."""
        reply = self.child.recv()
        if type(reply) is not dict or type(reply.get('ok')) is not bool:
            raise Halt('protocol', 'malformed reply')
        if reply['ok']:
            value = self.value_of(reply)
            self.last_value = value
            return value
        self.raise_candidate_error(reply)

    def can_stream(self, plans, namespace):
        if not all(plan is not None and isinstance(namespace.get(plan[0]), Remote) for plan in plans):
            return False
        return 'math' not in namespace or namespace['math'] is GUARDED_MODULES['math']

    def stream_calls(self, plans, namespace, limits):
        """Sends every test's one call at once; the child answers each as it finishes, and each
        test, evaluated as usual, takes the next answer. Saves a round trip per test; the verdicts
        are those of one call at a time, since each of these tests makes exactly that one call."""
        calls = [[namespace[name]._verdict_handle, self.to_child(list(args)), self.to_child(kwargs)] for name, args, kwargs in plans]
        self.child.budget = Budget(self.child, limits['cpu_ms'], limits['wall_ms'])
        self.child.send({'op': 'batch', 'calls': calls})
        self.streamed = 0

        def streamed(*_args, **_kwargs):
            self.streamed += 1
            return self.receive_value()

        namespace = dict(namespace)
        for name, _, _ in plans:
            namespace[name] = streamed
        return namespace

    def value_of(self, reply):
        try:
            return decode_bounded(reply.get('v'), lambda h: Remote(self, h))
        except Oversize as exc:
            # The candidate returned more than the judge will handle: its limit, like a long output.
            raise Halt('output', 'returned %s' % exc)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, OverflowError):
            raise Halt('protocol', 'malformed value')

    def compile_tests(self, tests, fn_name):
        """The tests compiled, and every name they use; cached, since a group's rollouts share them."""
        import ast
        import hashlib
        key = hashlib.sha256(json.dumps([fn_name, tests]).encode()).digest()
        cached = self.tests_cache.get(key)
        if cached is not None:
            return cached
        compiled, names, plans = [], set(), []
        for i, source in enumerate(tests):
            try:
                tree = ast.parse(source, '<test %d>' % i)
                names.update(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
                plans.append(single_call(tree, fn_name))
                compiled.append(compile(guard_tree(tree), '<test %d>' % i, 'exec', dont_inherit=True))
            except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
                return {'label_error': {'field': 'tests[%d]' % i, 'error': error_text(exc)}}
        entry = {'code': compiled, 'names': names, 'plans': plans}
        if len(self.tests_cache) >= 256:
            self.tests_cache.pop(next(iter(self.tests_cache)))
        self.tests_cache[key] = entry
        return entry

    def raise_candidate_error(self, reply):
        cls_name = reply.get('cls') if type(reply.get('cls')) is str else ''
        message = str(reply.get('error', ''))[:2000]
        if cls_name in ('SystemExit', 'KeyboardInterrupt', 'GeneratorExit'):
            raise CandidateExit(message)
        if cls_name == 'MemoryError':
            raise Halt('memory', message)
        cls = EXCEPTIONS.get(cls_name, Exception)
        try:
            error = cls(message)
        except Exception:
            error = Exception(message)
        raise error

    def to_child(self, value):
        def handle(obj):
            if isinstance(obj, Remote) and obj._verdict_judge is self:
                return {'h': obj._verdict_handle}
            raise LabelError('a test passes a %s to the candidate, which only takes plain data' % type(obj).__name__)
        return encode(value, handle)

    # -- jobs --

    def handle(self, job):
        op = job.get('op')
        if op == 'ping':
            return {'pong': True, 'baseline_bytes': self.baseline}
        if op == 'asserts':
            return self.run_asserts(job)
        if op == 'stdio':
            return self.run_stdio(job)
        if op == 'call':
            return self.run_call(job)
        return {'fault': 'unknown op %r' % op}

    def start(self, child, job, limits, tests):
        """Sends the run job to a fresh child and waits for its load report."""
        self.child = child
        child.budget = Budget(child, limits['cpu_ms'], limits['wall_ms'])
        child.max_reply = limits['output_bytes']
        child.send(dict(job, limits=self.limits_for_child(limits, tests)))
        return child.recv()

    def finish(self):
        if self.child is not None:
            self.child.close()
            self.exits.pop(self.child.pid, None)
            self.child = None

    def run_asserts(self, job):
        limits = job['limits']
        tests = job['tests']
        fn_name = job.get('fn_name')
        compiled = self.compile_tests(tests, fn_name)
        if 'label_error' in compiled:
            return compiled
        compiled, names, plans = compiled['code'], compiled['names'], compiled['plans']
        namespace = {'__name__': '__verdict_tests__'}
        install_guards(namespace)
        if job.get('setup'):
            try:
                exec(compile(job['setup'], '<setup>', 'exec', dont_inherit=True), namespace)
            except BaseException as exc:
                return {'label_error': {'field': 'setup', 'error': error_text(exc)}}
        # A test's names come from the label's setup, then the real builtins and standard library;
        # only the rest (and the entry point) from the candidate, so it cannot redefine `abs` or `math`.
        wanted = []
        for name in sorted(names):
            if name in namespace and name != fn_name:
                continue
            if name != fn_name and hasattr(builtins, name):
                continue
            if name != fn_name and name in sys.stdlib_module_names:
                try:
                    namespace[name] = GUARDED_MODULES.get(name) or __import__(name)
                    continue
                except ImportError:
                    pass
            wanted.append(name)

        total = len(tests)
        result = {'passed': 0, 'total': total}
        self.streamed = None
        child = self.take_child()
        try:
            request = {'op': 'module', 'code': job['code'], 'module_name': 'solution', 'names': wanted}
            loaded = self.start(child, request, limits, total)
            if type(loaded) is not dict or loaded.get('ok') is not True:
                error = str(loaded.get('error', ''))[:2000] if type(loaded) is dict else 'malformed reply'
                if type(loaded) is dict and loaded.get('stage') == 'compile':
                    result['compile_error'] = error
                else:
                    result['failure'] = {'index': 0, 'stage': 'load', 'reason': load_reason(loaded), 'error': error}
                return result
            found = self.value_of(loaded)
            if type(found) is not dict:
                raise Halt('protocol', 'malformed names')
            for name in wanted:
                if name in found:
                    namespace[name] = found[name]
            if self.can_stream(plans, namespace):
                # Streamed tests need neither the judge's clock nor its memory cap: each is one
                # call and comparisons, with no loop, and any arithmetic or math.* call guarded by size.
                return self.run_tests(compiled, self.stream_calls(plans, namespace, limits), limits, result, None)
            with MemoryCap():
                return self.run_tests(compiled, namespace, limits, result, self.clock)
        except Halt as halt:
            index = result['passed']
            result['failure'] = {'index': index, 'reason': halt.kind, 'error': halt.detail}
            return result
        finally:
            self.finish()

    def run_tests(self, compiled, namespace, limits, result, clock):
        """Each test in turn until one fails; the job's result. The run child's CPU is counted by
        its budget; the judge's own work on a test, when `clock` is given, by the clock."""
        for i, test in enumerate(compiled):
            self.child.budget = Budget(self.child, limits['cpu_ms'], limits['wall_ms'])
            self.last_value = None
            try:
                if clock is None:
                    exec(test, namespace)
                else:
                    clock.start(limits['cpu_ms'] / 1000.0)
                    try:
                        exec(test, namespace)
                    finally:
                        clock.stop()
            except Halt:
                raise
            except LabelError as exc:
                return {'label_error': {'field': 'tests[%d]' % i, 'error': str(exc)}}
            except BaseException as exc:
                if isinstance(exc, AssertionError):
                    reason, error = 'assertion_failed', 'AssertionError'
                elif isinstance(exc, CandidateExit):
                    reason, error = 'exited', str(exc)
                else:
                    reason, error = 'error', error_text(exc)
                result['failure'] = {'index': i, 'reason': reason, 'error': error, 'got': short_repr(self.last_value)}
                return result
            if self.streamed is not None and self.streamed != i + 1:
                raise Fault('streamed test %d made %d calls' % (i, self.streamed - i))
            result['passed'] += 1
        return result

    def run_stdio(self, job):
        limits = job['limits']
        tests = job['tests']
        result = {'passed': 0, 'total': len(tests)}
        program = {'op': 'stdio', 'code': job['code']}
        for i, test in enumerate(tests):
            child = self.take_child()
            try:
                outcome = self.run_one_program(child, program, test, limits)
            finally:
                self.finish()
            if outcome.get('marshal'):
                program = {'op': 'stdio', 'marshal': outcome.pop('marshal')}
            outcome.pop('marshal', None)
            if 'compile_error' in outcome:
                result['compile_error'] = outcome['compile_error']
                return result
            if outcome['reason'] != 'passed':
                outcome['index'] = i
                result['failure'] = outcome
                return result
            result['passed'] += 1
        return result

    def run_one_program(self, child, program, test, limits):
        try:
            loaded = self.start(child, program, limits, 1)
        except Halt as halt:
            return {'reason': halt.kind, 'error': halt.detail}
        if type(loaded) is not dict or loaded.get('compiled') is not True:
            return {'compile_error': str(loaded.get('error', ''))[:2000] if type(loaded) is dict else 'malformed'}
        shared = None
        if type(loaded.get('marshal')) is str and loaded['marshal']:
            try:
                shared = binascii.a2b_base64(loaded['marshal'])
            except (binascii.Error, ValueError):
                shared = None
        outcome = self.run_loaded_program(child, test, limits)
        if shared is not None:
            outcome['marshal'] = shared
        return outcome

    def run_loaded_program(self, child, test, limits):
        os.close(child.ctl_in)
        child.ctl_in = None
        stdin = test['stdin'].encode()
        expected = test['stdout']
        out_limit = max(limits['output_bytes'], 2 * len(expected.encode()) + 4096)
        out, err = bytearray(), bytearray()
        open_fds = {child.stdout, child.stderr}
        if not stdin:
            os.close(child.stdin)
            child.stdin = None
        else:
            os.set_blocking(child.stdin, False)
        sent = 0
        reason = None
        try:
            while True:
                status = self.exit_status(child.pid)
                if status is not None:
                    drain(child.stdout, out, out_limit + 1)
                    drain(child.stderr, err, 8192)
                    break
                writers = [child.stdin] if child.stdin is not None else []
                timeout = child.budget.next_timeout()
                watched = list(open_fds) + ([] if self.zygote_lost else [self.sock])
                try:
                    readable, writable, _ = select.select(watched, writers, [], timeout)
                except InterruptedError:
                    continue
                if self.sock in readable:
                    self.zygote_message(0)
                    if self.zygote_lost:
                        raise Halt('disrupted', 'the candidate took down its sandbox')
                if writable:
                    try:
                        sent += os.write(child.stdin, stdin[sent:sent + 65536])
                    except BlockingIOError:
                        pass
                    except BrokenPipeError:
                        sent = len(stdin)
                    if sent >= len(stdin):
                        os.close(child.stdin)
                        child.stdin = None
                for fd, buf, cap in ((child.stdout, out, out_limit + 1), (child.stderr, err, 8192)):
                    if fd in readable and fd in open_fds:
                        try:
                            chunk = os.read(fd, 1 << 16)
                        except BlockingIOError:
                            continue
                        if not chunk:
                            open_fds.discard(fd)
                        elif len(buf) < cap:
                            buf += chunk[:cap - len(buf)]
                if len(out) > out_limit:
                    raise Halt('output', 'more than %d bytes of output' % out_limit)
        except Halt as halt:
            reason = halt.kind
            detail = halt.detail
        got = out.decode('utf-8', 'replace')
        stderr_tail = err.decode('utf-8', 'replace').strip().splitlines()
        error = stderr_tail[-1][:500] if stderr_tail else ''
        failure = {'stdin': clip(test['stdin']), 'expected': clip(expected), 'got': clip(got)}
        if reason is not None:
            return dict(failure, reason=reason, error=detail)
        status = self.exit_status(child.pid)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            kind = 'time' if sig in (signal.SIGXCPU, signal.SIGKILL) else 'runtime_error'
            return dict(failure, reason=kind, error=error or describe_status(status))
        if os.WEXITSTATUS(status) != 0:
            kind = 'memory' if error.startswith('MemoryError') else 'runtime_error'
            return dict(failure, reason=kind, error=error or describe_status(status))
        if not outputs_match(got, expected):
            return dict(failure, reason='wrong_answer', error='')
        return {'reason': 'passed'}

    def run_call(self, job):
        limits = job['limits']
        source = job['source']
        import hashlib
        key = hashlib.sha256(source.encode()).hexdigest()
        packed = self.code_cache.get(key)
        if packed is None:
            try:
                code = compile(source, '<%s>' % job.get('filename', 'source'), 'exec', dont_inherit=True)
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
                return {'kind': 'compile_error', 'error': error_text(exc)}
            packed = marshal.dumps(code)
            if len(self.code_cache) >= 512:
                self.code_cache.pop(next(iter(self.code_cache)))
            self.code_cache[key] = packed
        child = self.take_child()
        try:
            loaded = self.start(child, {'op': 'module', 'marshal': packed, 'module_name': '__verdict__'}, limits, 1)
            if type(loaded) is not dict or loaded.get('ok') is not True:
                if type(loaded) is dict and loaded.get('cls') == 'MemoryError':
                    return {'kind': 'limit', 'limit': 'memory'}
                error = str(loaded.get('error', '')) if type(loaded) is dict else 'malformed reply'
                return {'kind': 'compile_error', 'error': 'raised while loading: ' + error[:2000]}
            child.send({'op': 'callg', 'name': job['entry'], 'args': job['args']})
            reply = child.recv()
            if type(reply) is not dict:
                return {'kind': 'raised', 'error': 'malformed reply'}
            if reply.get('ok') is True:
                return {'kind': 'returned', 'value': reply.get('v')}
            if reply.get('missing'):
                return {'kind': 'missing_entry', 'error': 'no function %r in the source' % job['entry']}
            if reply.get('cls') == 'MemoryError':
                return {'kind': 'limit', 'limit': 'memory'}
            return {'kind': 'raised', 'error': str(reply.get('error', ''))[:2000]}
        except Halt as halt:
            if halt.kind in ('time', 'memory', 'output'):
                return {'kind': 'limit', 'limit': halt.kind}
            return {'kind': 'raised', 'error': '%s: %s' % (halt.kind, halt.detail)}
        finally:
            self.finish()


def load_reason(loaded):
    if type(loaded) is dict and loaded.get('cls') == 'MemoryError':
        return 'memory'
    if type(loaded) is dict and loaded.get('cls') in ('SystemExit', 'KeyboardInterrupt'):
        return 'exited'
    return 'error'

