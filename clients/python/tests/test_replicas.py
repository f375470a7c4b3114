"""Many replicas: DNS names and lists, round-robin, failover when a replica is killed or drains, tokens.

The jest test test/ops/replicas.test.ts starts three `verdict serve` processes (A, B, C) and a server
that wants a bearer token, and sets the environment read here. ResolveTest needs none of it.
"""

import asyncio
import os
import signal
import socket
import threading
import time
import unittest
import urllib.request

import grpc

from verdict.v1 import score_pb2, score_pb2_grpc
from verdict_client import AsyncVerdictClient, Sample, VerdictClient, VerdictError
from verdict_client.replicas import ReplicaSet, Tls, resolve_targets

# Long enough that a chunk keeps a one-thread replica busy for a while (about 1 ms a sample).
REASONING = "reasoning " * 1000


def qa_batch(n: int, prefix: str = "s") -> list:
    return [
        Sample(id=f"{prefix}{i}", verifier="qa", response=f"{REASONING} Answer: mitochondria", label={"answers": ["mitochondria"]})
        for i in range(n)
    ]


def env(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise unittest.SkipTest(f"{name} is not set: run through test/ops/replicas.test.ts (jest), which starts the replicas")
    return value


def replica(name: str) -> tuple:
    """(gRPC address, HTTP base URL, pid) of replica A, B or C."""
    return env(f"VERDICT_TEST_{name}_GRPC"), env(f"VERDICT_TEST_{name}_HTTP"), int(env(f"VERDICT_TEST_{name}_PID"))


def scraped(http: str, series: str) -> float:
    with urllib.request.urlopen(f"{http}/metrics", timeout=5) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith(series + " "):
                return float(line.split(" ")[1])
    return 0.0


def health(address: str) -> int:
    """grpc.health.v1 Check for the whole server: 1 SERVING, 2 NOT_SERVING (the reply's field 1)."""
    with grpc.insecure_channel(address) as channel:
        check = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda _: b"", response_deserializer=bytes)
        reply = check(None, timeout=5)
    return reply[1] if len(reply) >= 2 and reply[0] == 0x08 else 0


def wait_until(condition, timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


class ResolveTest(unittest.TestCase):
    def test_plain_targets_and_lists_as_given_duplicates_dropped(self):
        self.assertEqual(resolve_targets("a:1, b:2,a:1"), ["a:1", "b:2"])
        self.assertEqual(resolve_targets(["a:1", "b:2"]), ["a:1", "b:2"])

    def test_a_dns_name_resolves_through_the_system_resolver(self):
        port = 50051
        expected = sorted({info[4][0] for info in socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)})
        got = resolve_targets(f"dns:///localhost:{port}")
        self.assertEqual(got, [f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}" for ip in expected])
        self.assertEqual(resolve_targets(f"dns:localhost:{port}"), got)

    def test_every_address_of_a_headless_name_is_a_replica_sorted_ipv6_bracketed(self):
        answers = {"verdict-headless": ["10.0.0.9", "10.0.0.3", "fd00::7", "10.0.0.3"]}

        def resolver(host, port):
            return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in answers[host]]

        self.assertEqual(
            resolve_targets(["dns:///verdict-headless:50051", "10.0.0.3:50051"], resolver),
            ["10.0.0.3:50051", "10.0.0.9:50051", "[fd00::7]:50051"],
        )

    def test_errors_name_the_target(self):
        with self.assertRaisesRegex(ValueError, r"dns:///no-such-host\.invalid:1.*cannot resolve"):
            resolve_targets("dns:///no-such-host.invalid:1")
        with self.assertRaisesRegex(ValueError, r"expected dns:///HOST:PORT"):
            resolve_targets("dns:///verdict-headless")
        with self.assertRaisesRegex(ValueError, r"authority is not supported"):
            resolve_targets("dns://8.8.8.8/verdict-headless:50051")
        with self.assertRaisesRegex(ValueError, r"at least one target"):
            resolve_targets(" , ")

    def test_a_refresh_keeps_channels_of_addresses_that_stay_and_closes_the_rest(self):
        answers = [["10.0.0.1", "10.0.0.2"], ["10.0.0.2", "10.0.0.3"]]
        opened, closed = [], []

        def resolver(_host, port):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in answers[0]]

        def make(address):
            opened.append(address)
            return (f"channel-{address}", f"stub-{address}")

        replicas = ReplicaSet("dns:///svc:1", make, closed.append, refresh_s=0.0, resolver=resolver)
        self.assertEqual(replicas.current(), (["10.0.0.1:1", "10.0.0.2:1"], ["stub-10.0.0.1:1", "stub-10.0.0.2:1"]))
        answers.pop(0)
        self.assertEqual(replicas.current(), (["10.0.0.2:1", "10.0.0.3:1"], ["stub-10.0.0.2:1", "stub-10.0.0.3:1"]))
        self.assertEqual(opened, ["10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:1"])
        self.assertEqual(closed, ["channel-10.0.0.1:1"])


class SigkillTest(unittest.TestCase):
    def test_a_replica_killed_mid_batch_loses_no_sample_and_scores_none_twice(self):
        a, a_http, _ = replica("A")
        b, b_http, _ = replica("B")
        c, c_http, c_pid = replica("C")
        port_a = a.rsplit(":", 1)[1]
        n = 1200
        before = {h: scraped(h, 'verdict_samples_total{verifier="qa",status="OK"}') for h in (a_http, b_http)}
        killed = threading.Event()

        def kill_c_while_it_scores() -> None:
            # Mid-batch: C has admitted samples of this batch and not answered them yet.
            wait_until(lambda: scraped(c_http, "verdict_pending_samples") > 0, 60, "replica C to be busy")
            os.kill(c_pid, signal.SIGKILL)
            killed.set()

        killer = threading.Thread(target=kill_c_while_it_scores, daemon=True)
        with VerdictClient([f"dns:///localhost:{port_a}", b, c], batch_size=60, max_in_flight=6, retries=2, timeout=120) as client:
            self.assertEqual(client.targets, [a, b, c])
            killer.start()
            response = client.score(qa_batch(n))
        killer.join(timeout=5)

        self.assertTrue(killed.is_set())
        results = response.results
        self.assertEqual([r.index for r in results], list(range(n)))
        self.assertEqual([r.id for r in results], [f"s{i}" for i in range(n)])
        self.assertEqual({(r.status, r.reward) for r in results}, {("OK", 1.0)})
        # All three replicas took chunks round-robin; C's unanswered ones moved to the next replica.
        by_replica = {t: sum(1 for r in results if r.replica == t) for t in (a, b, c)}
        self.assertGreater(by_replica[a], 0)
        self.assertGreater(by_replica[b], 0)
        moved = [r for r in results if r.attempts > 1]
        self.assertGreater(len(moved), 0)
        self.assertNotIn(c, {r.replica for r in moved})
        # None scored twice: A and B scored exactly the samples whose results came from them.
        after = {h: scraped(h, 'verdict_samples_total{verifier="qa",status="OK"}') for h in (a_http, b_http)}
        self.assertEqual(after[a_http] - before[a_http], by_replica[a])
        self.assertEqual(after[b_http] - before[b_http], by_replica[b])


class SigtermTest(unittest.TestCase):
    def test_sigterm_during_a_stream_drains_it_refuses_new_calls_and_the_client_moves_on(self):
        a, _, a_pid = replica("A")
        b, _, _ = replica("B")
        n = 3000
        with VerdictClient(a, timeout=120) as streaming:
            stream = streaming.score_stream(qa_batch(n))
            first = next(stream)
            os.kill(a_pid, signal.SIGTERM)

            # Readiness goes NOT_SERVING at once; the listener stays up while in-flight work drains.
            wait_until(lambda: health(a) == 2, 10, "A's health to turn NOT_SERVING")
            with grpc.insecure_channel(a) as channel:
                with self.assertRaises(grpc.RpcError) as refused:
                    score_pb2_grpc.ScorerStub(channel).Score(score_pb2.ScoreRequest(), timeout=10)
            self.assertEqual(refused.exception.code(), grpc.StatusCode.UNAVAILABLE)

            # A client given both replicas sends half its chunks to A, which refuses: they move to B.
            with VerdictClient([a, b], batch_size=10, timeout=60) as client:
                moved = client.score(qa_batch(40, "m"))
            self.assertEqual({(r.status, r.reward, r.replica) for r in moved.results}, {("OK", 1.0, b)})
            self.assertEqual(sorted({r.attempts for r in moved.results}), [1, 2])

            # The stream that was in flight finishes: every sample once, all scored.
            results = [first] + list(stream)
        self.assertEqual(sorted(r.index for r in results), list(range(n)))
        self.assertEqual({r.status for r in results}, {"OK"})


class TokenTest(unittest.TestCase):
    def test_the_clients_send_the_bearer_token_over_tls(self):
        address = env("VERDICT_TEST_TOKEN_GRPC")
        token = env("VERDICT_TEST_TOKEN")
        with open(env("VERDICT_TEST_TLS_CA"), "rb") as f:
            tls = Tls(root_certificates=f.read())
        batch = [Sample(verifier="qa", response="\\boxed{C}", label={"choice": "C"})]
        with VerdictClient(address, token=token, tls=tls, timeout=30) as client:
            self.assertEqual([(r.status, r.reward) for r in client.score(batch).results], [("OK", 1.0)])
            self.assertEqual([r.status for r in client.score_stream(batch)], ["OK"])
        with VerdictClient(address, tls=tls, timeout=30) as anonymous:
            with self.assertRaises(VerdictError) as refused:
                anonymous.score(batch)
        self.assertEqual(refused.exception.code, grpc.StatusCode.UNAUTHENTICATED)
        # Plaintext to a TLS port: no replica answers, so the samples come back ABORTED by the client.
        with VerdictClient(address, token=token, retries=0, timeout=10) as plaintext:
            self.assertEqual([(r.status, r.reward) for r in plaintext.score(batch).results], [("ABORTED", None)])

        async def run_async() -> list:
            async with AsyncVerdictClient(address, token=token, tls=tls, timeout=30) as client:
                return (await client.score(batch)).results

        self.assertEqual([(r.status, r.reward) for r in asyncio.run(run_async())], [("OK", 1.0)])
