"""Each trainer protocol end to end, this process playing the trainer.

The HTTP requests are built as OpenRLHF and slime build them (field names and shapes from
shared/reference/wire-protocols.md §3); the reward functions are called with the arguments slime and
verl pass. Neither trainer is installed here: `SlimeSample` is a stand-in with the fields of slime's
`Sample` that the adapter reads and writes.
"""

import asyncio
import json
import os
import unittest
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Optional
from unittest import mock

from verdict_client import slime as slime_rm
from verdict_client import verl as verl_rm

from .servers import GRPC_A, GRPC_B, HTTP_A, HTTP_B

CHAT_PROMPT = "<|im_start|>user\nWhich letter?<|im_end|>\n<|im_start|>assistant\n"


def post(url: str, body: Any) -> tuple[int, Any, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), dict(error.headers)


class OpenRLHFTest(unittest.TestCase):
    """--remote_rm_url http://…/openrlhf/<verifier>: {"query","prompts","labels"} → {"rewards","scores","extra_logs"}."""

    def test_batch_with_plain_labels_and_templated_queries(self):
        prompts = [CHAT_PROMPT, CHAT_PROMPT, "Capital of France?"]
        responses = ["<think>hmm</think>\\boxed{C}<|im_end|>", "Answer: B<|im_end|><|endoftext|>", "It is \\boxed{Paris}</s>"]
        body = {"query": [p + r for p, r in zip(prompts, responses)], "prompts": prompts, "labels": ["C", "C", "Paris"]}
        status, reply, _ = post(f"{HTTP_B}/openrlhf/qa?label_field=answers[]", body)
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply, {"rewards": [1.0, 0.0, 1.0], "scores": [1.0, 0.0, 1.0], "extra_logs": {}})

    def test_json_object_labels_choose_their_verifier(self):
        body = {"query": ["\\boxed{C}"], "prompts": [""], "labels": [json.dumps({"verifier": "qa", "choice": "C"})]}
        status, reply, _ = post(f"{HTTP_B}/openrlhf", body)
        self.assertEqual((status, reply["rewards"]), (200, [1.0]))

    def test_an_aborted_sample_answers_503_for_the_trainer_to_retry(self):
        body = {"query": ["x", "\\boxed{C}"], "prompts": ["", ""], "labels": [{"verifier": "flaky", "reward": 1.0}, {"verifier": "qa", "choice": "C"}]}
        status, reply, headers = post(f"{HTTP_A}/openrlhf", body)
        self.assertEqual((status, reply["error"]["code"], headers.get("Retry-After")), (503, "ABORTED", "1"))
        self.assertEqual(reply["error"]["samples"], [{"index": 0, "status": "ABORTED", "reason": "sandbox_unavailable", "verifier": "flaky"}])
        # The retry lands on a healthy replica.
        status, reply, _ = post(f"{HTTP_B}/openrlhf", body)
        self.assertEqual((status, reply["rewards"]), (200, [1.0, 1.0]))

    def test_an_invalid_label_answers_422_naming_the_field(self):
        status, reply, _ = post(f"{HTTP_B}/openrlhf/qa", {"query": ["\\boxed{C}"], "prompts": [""], "labels": ["C"]})
        self.assertEqual((status, reply["error"]["code"]), (422, "INVALID"))
        self.assertIn("labels[0]: a plain label needs ?label_field=", reply["error"]["message"])

    def test_mismatched_lists_are_a_bad_request(self):
        status, reply, _ = post(f"{HTTP_B}/openrlhf/qa", {"query": ["a", "b"], "prompts": ["a"], "labels": [None, None]})
        self.assertEqual((status, reply["error"]["message"]), (400, "prompts: expected a list of 2 strings, one per query"))


class SlimeRemoteRMTest(unittest.TestCase):
    """--rm-type remote_rm --rm-url http://…/slime/<verifier>: {"prompt","response","label"} → a bare number."""

    def test_one_sample_gets_a_bare_reward(self):
        for response, expected in (("\\boxed{Paris}", 1.0), ("\\boxed{Lyon}", 0.0)):
            status, reply, _ = post(f"{HTTP_B}/slime/qa?label_field=answers[]", {"prompt": "Capital of France?", "response": response, "label": "Paris"})
            self.assertEqual((status, reply), (200, expected))

    def test_chat_prompt_and_object_label(self):
        body = {"prompt": [{"role": "user", "content": "Which letter?"}], "response": "\\boxed{C}", "label": {"verifier": "qa", "choice": "C"}}
        self.assertEqual(post(f"{HTTP_B}/slime", body)[:2], (200, 1.0))

    def test_aborted_answers_503(self):
        status, reply, headers = post(f"{HTTP_A}/slime/flaky", {"prompt": "p", "response": "r", "label": {"reward": 1.0}})
        self.assertEqual((status, reply["error"]["code"], headers.get("Retry-After")), (503, "ABORTED", "1"))


@dataclass
class SlimeSample:
    """Stand-in for slime.utils.types.Sample: the fields the adapter reads and writes."""

    prompt: Any = ""
    response: str = ""
    response_length: int = 0
    label: Optional[str] = None
    index: Optional[int] = None
    group_index: Optional[int] = None
    reward: Any = None
    remove_sample: bool = False
    metadata: dict = field(default_factory=dict)


def slime_env(**values: str):
    base = {"VERDICT_TARGETS": "", "VERDICT_VERIFIER": "", "VERDICT_LABEL_FIELD": "", "VERDICT_GROUP_OPTIONS": "", "VERDICT_RETRIES": ""}
    return mock.patch.dict(os.environ, {**base, **values})


class SlimeCustomRMTest(unittest.TestCase):
    """--custom-rm-path verdict_client.slime.reward / .reward_group (--group-rm)."""

    def test_single_sample_reward(self):
        with slime_env(VERDICT_TARGETS=GRPC_B, VERDICT_VERIFIER="qa", VERDICT_LABEL_FIELD="choice"):
            sample = SlimeSample(prompt=CHAT_PROMPT, response="\\boxed{C}", label="C", index=3)
            self.assertEqual(asyncio.run(slime_rm.reward(None, sample)), 1.0)
        self.assertFalse(sample.remove_sample)
        self.assertEqual(sample.metadata["verdict"]["status"], "OK")

    def test_single_sample_aborted_on_every_replica_is_removed(self):
        with slime_env(VERDICT_TARGETS=GRPC_A, VERDICT_VERIFIER="flaky"):
            sample = SlimeSample(response="r", label=json.dumps({"reward": 0.9}), index=0)
            self.assertEqual(asyncio.run(slime_rm.reward(None, sample)), 0.0)
        self.assertTrue(sample.remove_sample)
        self.assertEqual(sample.metadata["verdict"]["reason"], "sandbox_unavailable")

    def test_group_reward_is_shaped_and_retries_aborted_on_the_next_replica(self):
        group = [
            SlimeSample(response="\\boxed{C}", response_length=100, label="C", index=0, group_index=7),
            SlimeSample(response="\\boxed{C}", response_length=1100, label="C", index=1, group_index=7),
            SlimeSample(response="\\boxed{B}", response_length=50, label="C", index=2, group_index=7),
            SlimeSample(response="", response_length=10, label=json.dumps({"verifier": "flaky", "reward": 1.0}), index=3, group_index=7),
        ]
        options = json.dumps({"length_penalty": True, "max_length": 1100})
        with slime_env(VERDICT_TARGETS=f"{GRPC_A},{GRPC_B}", VERDICT_VERIFIER="qa", VERDICT_LABEL_FIELD="choice", VERDICT_GROUP_OPTIONS=options):
            rewards = asyncio.run(slime_rm.reward_group(None, group))
        # L* = 10 (the flaky sample, rescored on B, is correct and shortest): 100 → 0.5 × 90/1090.
        self.assertAlmostEqual(rewards[0], 1 - 0.5 * 90 / 1090, places=12)
        self.assertEqual(rewards[1:], [0.5, 0.0, 1.0])
        self.assertEqual([s.remove_sample for s in group], [False] * 4)
        self.assertEqual(group[3].metadata["verdict"]["replica"], GRPC_B)
        self.assertEqual(group[0].metadata["verdict_group"]["shortest_correct"], 10)
        self.assertEqual(group[0].metadata["verdict_group"]["keep"], True)

    def test_group_reward_gives_a_dropped_sample_its_group_mean(self):
        group = [
            SlimeSample(response="\\boxed{C}", label="C", index=0, group_index=1),
            SlimeSample(response="\\boxed{B}", label="C", index=1, group_index=1),
            SlimeSample(response="\\boxed{C}", label="C", index=2, group_index=1),
            SlimeSample(response="", label=json.dumps({"verifier": "flaky", "reward": 0.0}), index=3, group_index=1),
        ]
        with slime_env(VERDICT_TARGETS=GRPC_A, VERDICT_RETRIES="0", VERDICT_VERIFIER="qa", VERDICT_LABEL_FIELD="choice"):
            rewards = asyncio.run(slime_rm.reward_group(None, group))
        self.assertEqual(rewards[:3], [1.0, 0.0, 1.0])
        self.assertAlmostEqual(rewards[3], 2 / 3)
        self.assertEqual([s.remove_sample for s in group], [False, False, False, True])
        self.assertEqual(group[3].metadata["verdict_group"]["aborted"], 1)


class VerlTest(unittest.TestCase):
    """custom_reward_function: compute_score (naive manager) and compute_score_batch (batch manager)."""

    ROUTES = {"sciq": {"verifier": "qa", "label_field": "answers[]"}, "mcq": {"verifier": "qa", "label_field": "choice"}}

    def test_compute_score_routes_by_data_source(self):
        kwargs = {"verdict_targets": GRPC_B, "verdict_routes": self.ROUTES}
        self.assertEqual(verl_rm.compute_score("sciq", "\\boxed{Paris}", "Paris", {"index": 0}, **kwargs), 1.0)
        self.assertEqual(verl_rm.compute_score("mcq", "Answer: B", "C", None, **kwargs), 0.0)
        self.assertEqual(verl_rm.compute_score("other", "\\boxed{D}", {"verifier": "qa", "choice": "D"}, None, **kwargs), 1.0)

    def test_compute_score_reads_the_environment_too(self):
        env = {"VERDICT_TARGETS": GRPC_B, "VERDICT_ROUTES": json.dumps({"*": {"verifier": "qa", "label_field": "choice"}})}
        with mock.patch.dict(os.environ, env):
            self.assertEqual(verl_rm.compute_score("anything", "\\boxed{A}", "A"), 1.0)

    def test_compute_score_raises_rather_than_inventing_a_reward(self):
        with self.assertRaises(verl_rm.VerdictSampleError) as caught:
            verl_rm.compute_score("flaky", "", {"verifier": "flaky", "reward": 1.0}, None, verdict_targets=GRPC_A)
        self.assertEqual((caught.exception.result.status, caught.exception.result.reason), ("ABORTED", "sandbox_unavailable"))

    def test_batch_variant_scores_groups_and_neutralizes_dropped_samples(self):
        data_sources = ["mcq", "mcq", "mcq", "flaky", "sciq"]
        solutions = ["\\boxed{C}", "\\boxed{B}", "\\boxed{C}", "", "\\boxed{Paris}"]
        truths = ["C", "C", "C", {"verifier": "flaky", "reward": 1.0}, "Paris"]
        extras = [{"index": 5}, {"index": 5}, {"index": 5}, {"index": 5}, {"index": 6}]
        # The batch reward manager's call: keyword lists plus reward_kwargs.
        scores = verl_rm.compute_score_batch(
            data_sources=data_sources, solution_strs=solutions, ground_truths=truths, extra_infos=extras,
            verdict_targets=GRPC_A, verdict_routes=self.ROUTES,
        )
        self.assertEqual(scores[:3], [1.0, 0.0, 1.0])
        self.assertAlmostEqual(scores[3], 2 / 3)
        self.assertEqual(scores[4], 1.0)


if __name__ == "__main__":
    unittest.main()
