"""Each trainer protocol end to end, this process playing the trainer.

The HTTP requests are built as OpenRLHF and slime build them (field names and shapes from
shared/reference/wire-protocols.md §3); the reward functions are called with the arguments slime and
verl pass. Neither trainer is installed here: `SlimeSample` is a stand-in with the fields of slime's
`Sample` that the adapter reads and writes.
"""

import asyncio
import json
import os
import subprocess
import sys
import unittest
import warnings
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Optional
from unittest import mock

from verdict_client import slime as slime_rm
from verdict_client import verl as verl_rm

from .servers import GRPC_A, GRPC_B, HTTP_A, HTTP_B

CHAT_PROMPT = "<|im_start|>user\nWhich letter?<|im_end|>\n<|im_start|>assistant\n"


def _no_ints(text: str) -> Any:
    raise AssertionError(f"JSON integer {text} where a float reward is due (OpenRLHF would build an int64 tensor)")


def strict_json(data: bytes) -> Any:
    """A strict reader: rejects NaN/Infinity and integers, so every number must be written as a float."""
    return json.loads(data, parse_int=_no_ints, parse_constant=_no_ints)


def post(url: str, body: Any) -> tuple[int, Any, dict]:
    status, reply, headers, _ = post_reason(url, body)
    return status, reply, headers


def post_reason(url: str, body: Any) -> tuple[int, Any, dict, str]:
    """POST as the trainers do; also returns the HTTP reason phrase (what aiohttp prints for an error)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, strict_json(response.read()), dict(response.headers), response.reason
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), dict(error.headers), error.reason


class OpenRLHFTest(unittest.TestCase):
    """--reward.remote_url (--remote_rm_url before 0.10.4) http://…/openrlhf/<verifier>: {"query","prompts","labels"} → {"rewards","scores","extra_logs"}."""

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
        self.assertIn("labels[0]: a plain label (string) needs a label field: ?label_field=", reply["error"]["message"])

    def test_the_reason_is_in_the_status_line(self):
        status, reply, _, reason = post_reason(f"{HTTP_B}/openrlhf/math?label_field=gold", {"query": ["\\boxed{4}"], "prompts": [""], "labels": [None]})
        self.assertEqual((status, reason), (422, reply["error"]["samples"][0]["reason"]))
        self.assertTrue(reason.startswith("label.gold: "), reason)
        status, _, _, reason = post_reason(f"{HTTP_A}/openrlhf/flaky", {"query": ["x"], "prompts": [""], "labels": [{"reward": 1.0}]})
        self.assertEqual((status, reason), (503, "sandbox_unavailable"))

    def test_a_prompt_answer_is_not_graded_when_decode_changed_the_prompt(self):
        prompt = "Q: What is 2 + 2 ?\nA: \\boxed{4}\n\nQ: What is 1 + 3 ?\nA:"
        decoded = prompt.replace(" ?", "?")  # clean_up_tokenization_spaces
        body = {"query": [decoded + " No idea.", decoded + " \\boxed{4}"], "prompts": [prompt, prompt], "labels": ["4", "4"]}
        status, reply, _ = post(f"{HTTP_B}/openrlhf/math?label_field=gold", body)
        self.assertEqual((status, reply["rewards"]), (200, [0.0, 1.0]))

    def test_left_truncated_and_chat_templated_queries(self):
        few_shot = "Q: What is 2 + 2 ?\nA: \\boxed{4}\n\n" * 3 + "Q: What is 1 + 3 ?\nA:"
        long_prompt = "Some long background text. " * 40 + few_shot
        truncated = long_prompt[600:]  # OpenRLHF kept the prompt's last tokens only
        templated = "<|im_start|>user\nWhat is 1 + 3 ? For example \\boxed{4} .<|im_end|>\n<|im_start|>assistant\n"
        decoded = templated.replace(" ?", "?").replace(" .", ".")
        body = {
            "query": [truncated + " Not sure.", truncated + " \\boxed{4}", decoded + "No idea.<|im_end|>", decoded + "\\boxed{4}<|im_end|>"],
            "prompts": [long_prompt, long_prompt, templated, templated],
            "labels": ["4", "4", "4", "4"],
        }
        status, reply, _ = post(f"{HTTP_B}/openrlhf/math?label_field=gold", body)
        self.assertEqual((status, reply["rewards"]), (200, [0.0, 1.0, 0.0, 1.0]))

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

    def test_bare_reward_is_a_float_literal(self):
        request = urllib.request.Request(
            f"{HTTP_B}/slime/qa", data=json.dumps({"response": "\\boxed{C}", "label": {"choice": "C"}}).encode(), headers={"Content-Type": "application/json"}, method="POST"
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            self.assertEqual(response.read(), b"1.0")

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

    def get_reward_value(self, args: Any) -> Any:
        return self.reward


def slime_env(**values: str):
    base = {"VERDICT_TARGETS": "", "VERDICT_VERIFIER": "", "VERDICT_LABEL_FIELD": "", "VERDICT_GROUP_OPTIONS": "", "VERDICT_RETRIES": "", "VERDICT_CHAT_FORMAT": "", "VERDICT_TOOL_FORMAT": ""}
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

    def test_unreadable_labels_are_dropped_samples_not_crashes(self):
        with slime_env(VERDICT_TARGETS=GRPC_B, VERDICT_VERIFIER="qa"):
            broken = SlimeSample(response="\\boxed{C}", label='{"choice": ', index=0)
            self.assertEqual(asyncio.run(slime_rm.reward(None, broken)), 0.0)
            plain = SlimeSample(response="\\boxed{C}", label="C", index=1)  # no VERDICT_LABEL_FIELD
            self.assertEqual(asyncio.run(slime_rm.reward(None, plain)), 0.0)
        for sample in (broken, plain):
            self.assertTrue(sample.remove_sample)
            self.assertEqual(sample.metadata["verdict"]["status"], "INVALID")
        self.assertTrue(broken.metadata["verdict"]["reason"].startswith("sample.label: looks like a JSON object but does not parse"))
        self.assertTrue(plain.metadata["verdict"]["reason"].startswith("sample.label: a plain label needs a label_field"))

    def test_group_with_an_unreadable_label_scores_the_rest(self):
        group = [
            SlimeSample(response="\\boxed{C}", label=json.dumps({"choice": "C"}), index=0, group_index=2),
            SlimeSample(response="\\boxed{B}", label=json.dumps({"choice": "C"}), index=1, group_index=2),
            SlimeSample(response="\\boxed{C}", label="not json and no label field", index=2, group_index=2),
        ]
        with slime_env(VERDICT_TARGETS=GRPC_B, VERDICT_VERIFIER="qa"):
            rewards = asyncio.run(slime_rm.reward_group(None, group))
        self.assertEqual(rewards, [1.0, 0.0, 0.5])
        self.assertEqual([s.remove_sample for s in group], [False, False, True])
        self.assertEqual(group[2].metadata["verdict"]["status"], "INVALID")

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


class SlimePostProcessTest(unittest.TestCase):
    """--custom-reward-post-process-path verdict_client.slime.post_process_rewards: removed samples leave the statistics."""

    @staticmethod
    def args(**overrides: Any) -> Any:
        values = {"advantage_estimator": "grpo", "rewards_normalization": True, "grpo_std_normalization": True, "n_samples_per_prompt": 8, "rollout_batch_size": 1}
        return type("Args", (), {**values, **overrides})()

    def test_others_advantages_are_those_of_the_group_without_the_removed_sample(self):
        # 7 OK samples (five 1s, two 0s) and one dropped with its stand-in 5/7 (reward_group's group mean).
        group = [SlimeSample(reward=r) for r in (1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0)] + [SlimeSample(reward=5 / 7, remove_sample=True)]
        raw, rewards = slime_rm.post_process_rewards(self.args(), group)
        self.assertEqual(raw, [s.reward for s in group])
        self.assertAlmostEqual(rewards[0], 0.5855, places=4)  # slime's default with the stand-in: 0.632
        self.assertAlmostEqual(rewards[5], -1.4638, places=4)  # slime's default: -1.581
        self.assertEqual(rewards[7], 0.0)
        self.assertAlmostEqual(sum(rewards), 0.0, places=12)

    def test_follows_slimes_options(self):
        group = [SlimeSample(reward=1.0), SlimeSample(reward=0.0), SlimeSample(reward=0.0, remove_sample=True), SlimeSample(reward=1.0)]
        _, rewards = slime_rm.post_process_rewards(self.args(n_samples_per_prompt=2, rollout_batch_size=2, grpo_std_normalization=False), group)
        self.assertEqual(rewards, [0.5, -0.5, 0.0, 0.0])
        _, rewards = slime_rm.post_process_rewards(self.args(rewards_normalization=False), group)
        self.assertEqual(rewards, [1.0, 0.0, 0.0, 1.0])


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
        data_sources = ["mcq", "mcq", "mcq", "mcq", "sciq"]
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

    def test_batch_groups_two_datasets_with_equal_indexes_apart(self):
        # verl's gsm8k and MATH preprocessing both number from 0; its examples train on both files at once.
        routes = {"openai/gsm8k": {"verifier": "qa", "label_field": "choice"}, "DigitalLearningGmbH/MATH-lighteval": {"verifier": "qa", "label_field": "choice"}}
        data_sources = ["openai/gsm8k", "openai/gsm8k", "DigitalLearningGmbH/MATH-lighteval", "DigitalLearningGmbH/MATH-lighteval"]
        extras = [{"index": 0, "response_tokens": 100}, {"index": 0, "response_tokens": 200}, {"index": 0, "response_tokens": 20}, {"index": 0, "response_tokens": 300}]
        scores = verl_rm.compute_score_batch(
            data_sources=data_sources, solution_strs=["\\boxed{A}", "\\boxed{A}", "\\boxed{B}", "\\boxed{C}"], ground_truths=["A", "A", "B", "B"],
            extra_infos=extras, verdict_targets=GRPC_B, verdict_routes=routes, group_options={"length_penalty": True, "max_length": 300},
        )
        # gsm8k's L* is its own 100 tokens (not MATH's 20): 200 → 1 − 0.5 × 100/200.
        self.assertEqual(scores, [1.0, 0.75, 1.0, 0.0])
        self.assertNotEqual(verl_rm.group_key("a", "x", {"index": 0}), verl_rm.group_key("b", "x", {"index": 0}))
        self.assertNotEqual(verl_rm.group_key("a", "x", {"index": 0, "uid": "u1"}), verl_rm.group_key("a", "x", {"index": 0, "uid": "u2"}))

    def test_batch_advantage_mode_keeps_others_advantages_exact(self):
        truths = ["C", "C", "C", {"verifier": "flaky", "reward": 1.0}]
        scores = verl_rm.compute_score_batch(
            data_sources=["mcq"] * 4, solution_strs=["\\boxed{C}", "\\boxed{B}", "\\boxed{C}", ""], ground_truths=truths,
            extra_infos=[{"index": 9}] * 4, verdict_targets=GRPC_A, verdict_routes=self.ROUTES, group_options={"advantage": "grpo"}, verdict_reward="advantage",
        )
        std = (((1 / 3) ** 2 * 2 + (2 / 3) ** 2) / 2) ** 0.5  # over the three OK rewards 1, 0, 1
        for got, expected in zip(scores, [(1 / 3) / (std + 1e-6), (-2 / 3) / (std + 1e-6), (1 / 3) / (std + 1e-6), 0.0]):
            self.assertAlmostEqual(got, expected, places=9)
        # verl (norm_adv_by_std_in_grpo=False) subtracts the group mean of these: 0, so they stand as they are.
        self.assertAlmostEqual(sum(scores) / 4, 0.0, places=12)
        with self.assertRaises(ValueError):
            verl_rm.compute_score_batch(["mcq"], ["x"], ["C"], None, verdict_targets=GRPC_B, verdict_routes=self.ROUTES, verdict_reward="advantage")

    def test_an_all_invalid_batch_raises_naming_the_first_reason_not_512_zeros(self):
        # The configuration mistake of the issue: the length penalty on, no response_tokens in extra_info.
        kwargs = {"verdict_targets": GRPC_B, "verdict_routes": self.ROUTES, "group_options": {"length_penalty": True, "max_length": 300}}
        with self.assertRaises(verl_rm.VerdictBatchError) as caught:
            verl_rm.compute_score_batch(["mcq"] * 4, ["\\boxed{C}"] * 4, ["C"] * 4, [{"index": 3}] * 4, **kwargs)
        message = str(caught.exception)
        self.assertIn("4 of 4 samples INVALID", message)
        self.assertIn("rollout 0 (mcq, prompt index 3): response_tokens: required (> 0) when group_options.length_penalty is set", message)
        self.assertEqual({r.status for r in caught.exception.results}, {"INVALID"})
        # A share under the threshold is scored, each dropped rollout named by its place in the batch.
        extras = [{"index": 3, "response_tokens": 10}] * 3 + [{"index": 3}]
        with self.assertLogs("verdict_client.verl", "WARNING") as logs:
            scores = verl_rm.compute_score_batch(["mcq"] * 4, ["\\boxed{C}"] * 4, ["C"] * 4, extras, **kwargs)
        self.assertEqual(scores, [1.0, 1.0, 1.0, 1.0])
        self.assertIn("rollout 3 (mcq, prompt index 3) INVALID response_tokens", logs.output[0])
        # A lower threshold raises sooner; one out of range is refused.
        with self.assertRaises(verl_rm.VerdictBatchError):
            verl_rm.compute_score_batch(["mcq"] * 4, ["\\boxed{C}"] * 4, ["C"] * 4, extras, invalid_share=0.25, **kwargs)
        with self.assertRaises(ValueError):
            verl_rm.compute_score_batch(["mcq"], ["x"], ["C"], None, invalid_share=0, **kwargs)

    def test_a_typo_in_a_routes_key_is_refused_by_name(self):
        with self.assertRaises(ValueError) as caught:
            verl_rm.compute_score("mcq", "\\boxed{C}", "C", None, verdict_targets=GRPC_B, verdict_routes={"mcq": {"verifier": "qa", "labelfield": "choice"}})
        self.assertEqual(str(caught.exception), 'verdict_routes["mcq"].labelfield: unknown key (known: verifier, label_field, chat_format, tool_format)')

    def test_an_unreadable_label_is_a_sample_error_not_a_crash_of_another_kind(self):
        with self.assertRaises(verl_rm.VerdictSampleError) as caught:
            verl_rm.compute_score("nowhere", "\\boxed{C}", "C", None, verdict_targets=GRPC_B, verdict_routes={"*": "qa"})
        self.assertEqual(caught.exception.result.status, "INVALID")
        self.assertIn("a plain label needs a label_field", caught.exception.result.reason)

    def test_the_file_path_form_is_self_contained_and_picklable(self):
        # As verl's load_module does it, in a process whose sys.path lacks clients/python.
        path = os.path.abspath(verl_rm.__file__)
        script = "\n".join([
            "import importlib.util, pickle, sys",
            f"spec = importlib.util.spec_from_file_location('custom_module_42', {path!r})",
            "module = importlib.util.module_from_spec(spec)",
            "spec.loader.exec_module(module)",
            "fn = pickle.loads(pickle.dumps(module.compute_score))",
            f"print(fn('x', '\\\\boxed{{C}}', {{'verifier': 'qa', 'choice': 'C'}}, None, verdict_targets={GRPC_B!r}))",
        ])
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        done = subprocess.run([sys.executable, "-c", script], cwd="/", env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "1.0"), done.stderr)

    def test_the_prime_manager_is_warned_about_at_import_time(self):
        import importlib.util

        def load_as_verl_does(config: Any) -> None:  # verl: load_reward_manager(config) → get_custom_reward_fn(config) → load_module
            spec = importlib.util.spec_from_file_location("custom_module_7", verl_rm.__file__)
            assert spec is not None and spec.loader is not None
            spec.loader.exec_module(importlib.util.module_from_spec(spec))

        with self.assertWarns(RuntimeWarning) as caught, self.assertLogs("verdict_client.verl", "ERROR"):
            load_as_verl_does({"reward_model": {"reward_manager": "prime"}})
        self.assertIn("prime", str(caught.warning))
        with self.assertWarns(RuntimeWarning):
            load_as_verl_does(type("Config", (), {"reward_manager": {"name": "prime", "source": "register"}})())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            load_as_verl_does({"reward_model": {"reward_manager": "batch"}})


if __name__ == "__main__":
    unittest.main()
