"""Start of one slot, run by Node inside bubblewrap: forks the zygote, then serves Node as the judge.

Three kinds of process live in one slot's sandbox (its own pid, net, ipc and uts namespaces):

  judge     this process. Reads jobs from Node on fd 0, answers on fd 1, never runs candidate code
            (judge.py). In root mode it is sandbox uid 0 holding only CAP_SETUID, CAP_SETGID, CAP_KILL.
  zygote    forked here before the judge has seen any job, so its memory holds no tests (zygote.py).
  run child forked from the zygote per run; the candidate's code runs there (child.py).

Only what the zygote and the run children need is imported before the fork: the judge's own modules
are imported after it, so that they do not weigh on every fork."""

import json
import os
import socket
import sys

from .wire import frame, read_frame, write_all


def zygote_process(sock, config, entry):
    """The zygote's whole life: never returns. A zygote that cannot start prints why (on the judge's
    stderr, which Node keeps) and exits 71, which the judge reports as a fault."""
    try:
        entry(sock, config)
    except BaseException:
        try:
            sys.__excepthook__(*sys.exc_info())
        except BaseException:
            pass
    os._exit(71)


def main(argv):
    config = json.loads(argv[1])
    node_in = os.dup(0)
    node_out = os.dup(1)
    null = os.open('/dev/null', os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    judge_sock, zygote_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        judge_sock.close()
        from .zygote import zygote_main
        zygote_process(zygote_sock, config, zygote_main)
    zygote_sock.close()
    import traceback

    from .wire import PR_SET_DUMPABLE, libc_prctl

    # In user mode candidates share the judge's host uid: being not dumpable keeps its memory and
    # /proc files out of their reach (ptrace needs a capability they hold in no namespace of ours).
    libc_prctl(PR_SET_DUMPABLE, 0)

    from .control import Fault
    from .judge import Judge
    from .values import MAX_INT_DIGITS, error_text

    # Ints a test converts to or from text cost at most this many digits (values.py).
    sys.set_int_max_str_digits(MAX_INT_DIGITS)
    try:
        judge = Judge(judge_sock, pid, nested=config.get('mode') == 'user')
        judge.refill()
    except Fault as fault:
        write_all(node_out, frame({'fault': str(fault)}))
        os._exit(72)
    write_all(node_out, frame({'ready': True, 'baseline_bytes': judge.baseline}))
    while True:
        job = read_frame(node_in)
        if job is None:
            os._exit(0)
        try:
            reply = judge.handle(job)
        except Fault as fault:
            reply = {'fault': str(fault)}
        except Exception as exc:
            reply = {'fault': 'harness error: ' + error_text(exc)}
            traceback.print_exc()
        judge.poll_zygote()
        if judge.zygote_lost:
            reply['recycle'] = True
        write_all(node_out, frame(reply))
        if 'fault' in reply or judge.zygote_lost:
            os._exit(0)
        judge.refill()
