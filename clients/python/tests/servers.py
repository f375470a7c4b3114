"""Where the servers under test listen; the jest test (test/python-client) starts them and sets these.

Replica A runs a registry whose `flaky` verifier always answers ABORTED; replica B is a normal one;
server C has reward-model endpoints (fake SGLang "sglang", fake vLLM "vllm") and judge endpoints
("search", "if") on a fake OpenAI-compatible judge, for rlhf, if and search.
"""

import os
import unittest


def _env(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise unittest.SkipTest(f"{name} is not set: run through test/python-client (jest), which starts the servers")
    return value


GRPC_A = _env("VERDICT_TEST_GRPC_A")
GRPC_B = _env("VERDICT_TEST_GRPC_B")
HTTP_A = _env("VERDICT_TEST_HTTP_A")
HTTP_B = _env("VERDICT_TEST_HTTP_B")
GRPC_C = _env("VERDICT_TEST_GRPC_C")
HTTP_C = _env("VERDICT_TEST_HTTP_C")
