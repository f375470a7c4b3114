"""One sample per verifier, as a trainer's dataset and rollout hold it, and where each is served.

Servers (started by test/trainers/real-clients.test.ts, addresses in the environment):
  B  the verifiers with a sandbox, agentState and terminal (bwrap) configured (qa, math, code, puzzle,
     if, agent_state, terminal);
  C  rlhf on fake SGLang and vLLM reward models, search and if-judge on a fake judge (test/fakes);
  A  a registry whose `flaky` verifier always answers ABORTED (a replica with a broken sandbox).
"""

from __future__ import annotations

import json
import os
import unittest
from dataclasses import dataclass
from typing import Any, Optional


def _env(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise unittest.SkipTest(f"{name} is not set: run through test/trainers/real-clients.test.ts, which starts the servers")
    return value


HTTP = {"A": _env("VERDICT_TEST_HTTP_A"), "B": _env("VERDICT_TEST_HTTP_B"), "C": _env("VERDICT_TEST_HTTP_C")}
GRPC = {"A": _env("VERDICT_TEST_GRPC_A"), "B": _env("VERDICT_TEST_GRPC_B"), "C": _env("VERDICT_TEST_GRPC_C")}


def chatml(question: str) -> str:
    """A Qwen-templated prompt with the generation prompt, as --apply-chat-template / OpenRLHF's prompts hold it."""
    return f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"


def hermes_turns(calls: int, answer: str) -> str:
    """A multi-turn search rollout as slime/OpenRLHF splice it: the policy's calls and the tool results, Qwen markup."""
    turns = "".join(
        f'<tool_call>\n{{"name": "search", "arguments": {{"query": "q{i}"}}}}\n</tool_call><|im_end|>\n'
        f"<|im_start|>user\n<tool_response>\npage {i}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
        for i in range(calls)
    )
    return turns + answer


CHILL = "CREATE TABLE playlist_tracks (playlist_id INTEGER, track_id INTEGER);\nINSERT INTO playlist_tracks VALUES (1, 1), (1, 2), (1, 4), (2, 3);\n"
AGENT_STATE_LABEL = {
    "task": {
        "id": "chill-track-count",
        "code": (
            "def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n"
            "    q = 'SELECT count(*) FROM playlist_tracks WHERE playlist_id = 1'\n"
            "    after = sqlite3.connect('file:%s?mode=ro' % final_db_path, uri=True).execute(q).fetchone()[0]\n"
            "    return {'result': 'complete' if str(after) in (final_answer or '') else 'others'}\n"
        ),
        "entry": "verify_task_completion",
    }
}
AGENT_STATE = {"initialState": {"sql": CHILL}, "finalState": {"sql": CHILL}}


@dataclass
class Case:
    name: str
    server: str  # key of HTTP / GRPC
    verifier: str  # the route's verifier (path of the HTTP routes, verl route)
    params: dict[str, str]  # the HTTP routes' query parameters (label_field, chat_format, …)
    label: Any  # the dataset's label cell as the trainer holds it
    question: str
    response: str
    reward: float
    #: what the rollout knows besides the text (verl: extra_info / tool_extra_fields); None: nothing
    extra: Optional[dict[str, Any]] = None

    def query(self) -> str:
        return "&".join(f"{k}={v}" for k, v in self.params.items())

    def http(self, trainer: str) -> str:
        q = self.query()
        return f"{HTTP[self.server]}/{trainer}/{self.verifier}" + (f"?{q}" if q else "")


SEARCH_LABEL = {"question": "Who wrote Dune?", "answer": "Frank Herbert"}

#: Every verifier a trainer route can reach with prompt, response and label alone.
CASES = [
    Case("qa", "B", "qa", {"label_field": "choice"}, "C", "Which letter?", "<think>B or C.</think>\\boxed{C}", 1.0),
    Case("qa-wrong", "B", "qa", {"label_field": "choice"}, "C", "Which letter?", "\\boxed{A}", 0.0),
    Case("math", "B", "math", {"label_field": "gold"}, "72", "Natalia sold clips…", "So she sold \\boxed{72} clips.", 1.0),
    Case(
        "code", "B", "code", {},
        json.dumps({"mode": "assert", "tests": ["assert add(1, 2) == 3", "assert add(-1, 1) == 0"]}),
        "Write add(a, b).", "```python\ndef add(a, b):\n    return a + b\n```", 1.0,
    ),
    Case("puzzle", "B", "puzzle", {}, json.dumps({"checker": "def check(answer):\n    return int(answer) % 4 == 0"}), "A multiple of 4?", "\\boxed{12}", 1.0),
    Case(
        "if", "B", "if", {},
        json.dumps({"rubrics": [{"kind": "constraint", "id": "change_case:english_lowercase"}]}),
        "Answer in lowercase.", "all lower case, and short", 1.0,
    ),
    Case("verifier-in-label", "B", "", {}, json.dumps({"verifier": "math", "gold": "0.5"}), "Half of 1?", "\\boxed{\\frac{1}{2}}", 1.0),
    Case("rlhf", "C", "rlhf", {"chat_format": "chatml"}, json.dumps({"endpoint": "sglang"}), "Suggest a snack.", "Try rice cakes. [[rm:1.5]]", 1.5),
    Case("rlhf-vllm", "C", "rlhf", {"chat_format": "chatml"}, json.dumps({"endpoint": "vllm"}), "Suggest a snack.", "Peanut brittle. [[rm:-2.0]]", -2.0),
    Case(
        "if-judge", "C", "if", {"chat_format": "chatml"},
        json.dumps({"rubrics": [{"kind": "judge", "question": "Does the snack respect the allergy the user stated?"}]}),
        "I am allergic to peanuts. Suggest a snack.", "Rice cakes with hummus.", 1.0,
    ),
    Case(
        "if-judge-unsafe", "C", "if", {"chat_format": "chatml"},
        json.dumps({"rubrics": [{"kind": "judge", "question": "Does the snack respect the allergy the user stated?"}]}),
        "I am allergic to peanuts. Suggest a snack.", "A peanut butter cup.", 0.0,
    ),
    Case("search", "C", "search", {"chat_format": "chatml"}, json.dumps(SEARCH_LABEL), "Who wrote Dune?", hermes_turns(2, "\\boxed{Frank Herbert}"), 1.0),
    Case("search-gated", "C", "search", {"chat_format": "chatml"}, json.dumps(SEARCH_LABEL), "Who wrote Dune?", hermes_turns(1, "\\boxed{Frank Herbert}"), 0.0),
]

#: agent_state reads the episode's databases: a trajectory field, not prompt, response or label.
AGENT_STATE_CASE = Case(
    "agent_state", "B", "agent_state", {}, json.dumps(AGENT_STATE_LABEL), "How many tracks are in Chill?",
    "<think>Tracks 1, 2 and 4.</think>\nYour Chill playlist has 3 tracks.", 1.0, extra=AGENT_STATE,
)


#: terminal tests the episode's files: a Harbor task inline, the workspace (answer.txt holding 42) as a tar.gz.
TERMINAL_CASE = Case(
    "terminal", "B", "terminal", {},
    json.dumps({"task": {"id": "answer-42", "tests": {"test.sh": (
        'cd /app\nif [ "$(cat answer.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n'
    )}}}),
    "Write 42 to answer.txt.", "Wrote the answer.", 1.0,
    extra={"workspace": {"tar": "H4sIAAAAAAACA+3NMQrCQBQE0H8UTyBDWN3zpLC1SDbo8UUrsTcovNfMMM3M1/V2WY7jPuprkuTc2iuTfGaS6a0/9977qQ6pHWzrmJfKLl8/qE0FAAAAAAAAAADAH3oA6vlHOAAoAAA="}},
)

#: The verifiers that read the episode beside its text.
EPISODE_CASES = [AGENT_STATE_CASE, TERMINAL_CASE]


def verl_route(case: Case) -> dict[str, str]:
    route = {"verifier": case.verifier or "qa"}
    if "label_field" in case.params:
        route["label_field"] = case.params["label_field"]
    for key in ("chat_format", "tool_format"):
        if key in case.params:
            route[key] = case.params[key]
    return route
