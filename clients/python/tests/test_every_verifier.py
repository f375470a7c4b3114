"""rlhf, if and search through every trainer protocol, against server C (fake reward models, fake judge).

A string prompt is the chat template's text (slime's --apply-chat-template, OpenRLHF's prompts, a
verl dataset's extra_info["prompt"]); the server reads it back into messages in the format the route
names. The renderings are those of test/fixtures/chat-templates (Python Jinja2, as transformers renders).
"""

import asyncio
import json
import os
import unittest
from types import SimpleNamespace

from verdict_client import slime as slime_rm
from verdict_client import verl as verl_rm

from .servers import GRPC_C, HTTP_C
from .test_trainers import SlimeSample, post, post_reason, slime_env

_FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "test", "fixtures", "chat-templates", "renderings.jsonl")
with open(_FIXTURES, encoding="utf-8") as _file:
    RENDERINGS = {(r["template"], r["name"]): r for r in map(json.loads, filter(str.strip, _file))}


def dialogue(template: str) -> str:
    """The three-turn prompt (an allergy stated in turn 1), with the generation prompt, as the template renders it."""
    return RENDERINGS[(template, "multi-turn-prompt")]["rendered"]


REPLY = "Try rice cakes. [[rm:1.5]]"  # the fake reward model's logit for a text holding this marker
SEARCH_LABEL = {"question": "Who wrote Dune?", "answer": "Frank Herbert"}


def hermes_trajectory(calls: int) -> str:
    turns = "".join(
        f'<tool_call>\n{{"name": "search", "arguments": {{"query": "q{i}"}}}}\n</tool_call><|im_end|>\n'
        f"<|im_start|>user\n<tool_response>\npage {i}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
        for i in range(calls)
    )
    return turns + "\\boxed{Frank Herbert}"


class VerlEveryVerifierTest(unittest.TestCase):
    def test_rlhf_from_a_templated_prompt_in_extra_info(self):
        routes = {"chat": {"verifier": "rlhf", "chat_format": "glm4.5"}}
        extras = [{"index": 0, "prompt": dialogue("glm-4.5.jinja")}] * 2
        scores = verl_rm.compute_score_batch(
            data_sources=["chat", "chat"], solution_strs=[REPLY, "Peanut brittle. [[rm:-2.0]]"], ground_truths=[{"endpoint": "sglang"}] * 2,
            extra_infos=extras, verdict_targets=GRPC_C, verdict_routes=routes,
        )
        self.assertEqual(scores, [1.5, -2.0])

    def test_rlhf_without_a_chat_format_raises_instead_of_training_on_zeros(self):
        with self.assertRaises(verl_rm.VerdictBatchError) as caught:
            verl_rm.compute_score_batch(
                ["chat"] * 3, [REPLY] * 3, [{}] * 3, [{"index": 0, "prompt": dialogue("qwen3.jinja")}] * 3,
                verdict_targets=GRPC_C, verdict_routes={"chat": "rlhf"},
            )
        self.assertIn("3 of 3 samples INVALID", str(caught.exception))
        self.assertIn("rollout 0 (chat, prompt index 0): metadata.chat_format: required", str(caught.exception))

    def test_search_counts_the_calls_of_a_text_trajectory(self):
        routes = {"search": {"verifier": "search", "tool_format": "hermes"}}
        scores = verl_rm.compute_score_batch(
            ["search"] * 2, [hermes_trajectory(2), hermes_trajectory(1)], [SEARCH_LABEL] * 2, [{"index": 0}, {"index": 0}],
            verdict_targets=GRPC_C, verdict_routes=routes,
        )
        self.assertEqual(scores, [1.0, 0.0])


class SlimeEveryVerifierTest(unittest.TestCase):
    def test_custom_rm_rlhf_with_a_string_prompt(self):
        sample = SlimeSample(prompt=dialogue("llama-3.jinja"), response=REPLY, label=json.dumps({"endpoint": "vllm"}), index=0)
        with slime_env(VERDICT_TARGETS=GRPC_C, VERDICT_VERIFIER="rlhf", VERDICT_CHAT_FORMAT="llama3"):
            reward = asyncio.run(slime_rm.reward(SimpleNamespace(), sample))
        self.assertEqual((reward, sample.metadata["verdict"]["status"]), (1.5, "OK"))

    def test_remote_rm_if_judge_rubric_sees_turn_one(self):
        label = {"rubrics": [{"kind": "judge", "question": "Does the snack respect the allergy the user stated?"}]}
        url = f"{HTTP_C}/slime/if?chat_format=deepseek-r1"
        safe = post(url, {"prompt": dialogue("deepseek-r1.jinja"), "response": "<think>no nuts</think>Rice cakes.", "label": label})
        unsafe = post(url, {"prompt": dialogue("deepseek-r1.jinja"), "response": "<think>hmm</think>Peanut brittle.", "label": label})
        self.assertEqual(((safe[0], safe[1]), (unsafe[0], unsafe[1])), ((200, 1.0), (200, 0.0)))

    def test_remote_rm_search_in_glm_format(self):
        glm = "".join(
            f"\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>q{i}</arg_value>\n</tool_call><|observation|>\n<tool_response>\npage {i}\n</tool_response><|assistant|>\n<think></think>"
            for i in range(2)
        )
        status, reward, _ = post(f"{HTTP_C}/slime/search?chat_format=glm4.5", {"prompt": "Who wrote Dune?", "response": glm + "\n\\boxed{Frank Herbert}", "label": SEARCH_LABEL})
        self.assertEqual((status, reward), (200, 1.0))


class OpenRLHFEveryVerifierTest(unittest.TestCase):
    def test_rlhf_from_the_prompts_field(self):
        prompt = dialogue("qwen3.jinja")
        status, reply, _ = post(f"{HTTP_C}/openrlhf/rlhf?chat_format=chatml", {"query": [prompt + REPLY + "<|im_end|>"], "prompts": [prompt], "labels": [None]})
        self.assertEqual((status, reply["rewards"]), (200, [1.5]))

    def test_a_prompt_the_format_does_not_explain_is_422_naming_the_key(self):
        prompt = dialogue("glm-4.5.jinja")
        status, _, _, reason = post_reason(f"{HTTP_C}/openrlhf/rlhf?chat_format=chatml", {"query": [prompt + REPLY], "prompts": [prompt], "labels": [None]})
        self.assertEqual(status, 422)
        self.assertTrue(reason.startswith("metadata.prompt: not a chatml conversation"), reason)
