"""OpenRLHF's SingleTurnAgentExecutor (openrlhf/utils/agent.py) against /openrlhf/<verifier>.

`execute` is OpenRLHF's whole single-turn path: tokenize the prompt, generate, decode prompt +
response with special tokens kept (the `query`), POST {"query", "prompts", "labels"} (one sample,
`_fetch_rewards_via_http`, 5 tries 1 s apart), and read `rewards`, `scores`, `extra_logs` back into the
rollout's output — what `_process_response_into_experience` makes tensors of.
"""

from __future__ import annotations

import asyncio
import logging
import unittest

from .cases import AGENT_STATE_CASE, CASES, TERMINAL_CASE, Case
from .rollout import CharTokenizer, Engine, sampling_params
from .theirs import openrlhf_agent

agent = openrlhf_agent()
LOG = "openrlhf.utils.agent"


async def rollout(case: Case, url: str | None = None, response: str | None = None) -> dict:
    executor = agent.SingleTurnAgentExecutor(url or case.http("openrlhf"))
    # The engine's text as the decode keeps it: the policy's end-of-turn token is part of the query.
    engine = Engine((case.response if response is None else response) + "<|im_end|>")
    return await executor.execute(
        prompt=chatml_prompt(case), label=case.label, sampling_params=sampling_params(), max_length=8192, hf_tokenizer=CharTokenizer(), llm_engine=engine
    )


def chatml_prompt(case: Case) -> str:
    from .cases import chatml

    return chatml(case.question)


class OpenRLHFExecutorTest(unittest.TestCase):
    def test_every_verifier_through_execute(self):
        async def run():
            return await asyncio.gather(*(rollout(case) for case in CASES))

        for case, output in zip(CASES, asyncio.run(run())):
            with self.subTest(case.name):
                # OpenRLHF keeps what `rewards` holds for the request (one sample: a one-element list)
                # and makes torch.tensor([reward]) of it; `scores` feeds dynamic filtering.
                self.assertEqual(output["reward"], [case.reward])
                self.assertEqual(output["scores"], [case.reward])
                self.assertIsInstance(output["reward"][0], float)
                self.assertEqual(output["extra_logs"], {})

    def test_labels_in_the_shapes_openrlhf_datasets_give(self):
        """preprocess_data: label = data[label_key] as the dataset stores it, "" without --label_key."""
        math = next(c for c in CASES if c.name == "math")

        async def run():
            return await asyncio.gather(
                rollout(Case(**{**math.__dict__, "label": 72})),  # an integer column (gsm8k's answer as a number)
                rollout(Case(**{**math.__dict__, "label": {"gold": "72"}})),  # a struct column: the Verdict label itself
                rollout(Case(**{**math.__dict__, "label": ""})),  # no --label_key: "" fills label_field
                # A struct column of mixed labels, as `datasets` loads it: every key of every row, None where absent.
                rollout(Case(**{**math.__dict__, "label": {"verifier": None, "gold": "72", "choice": None, "answers": None}})),
            )

        with self.assertLogs(LOG, level="INFO") as logs:
            number, struct, empty, union = asyncio.run(run())
        self.assertEqual((number["reward"], struct["reward"], union["reward"]), ([1.0], [1.0], [1.0]))
        # An empty gold is the dataset's defect: no reward, and the reason in OpenRLHF's log line.
        self.assertIsNone(empty["reward"])
        self.assertTrue(any("422, message='label.gold" in line for line in logs.output), logs.output)

    def test_a_prompt_openrlhf_left_truncated(self):
        """execute() keeps the last max_length - max_tokens prompt tokens: the query starts inside the prompt,
        whose few-shot answer (\\boxed{4}) is not the response's."""
        few_shot = "Background. " * 30 + "Q: What is 2 + 2?\nA: \\boxed{4}\n\nQ: What is 3 + 5?\nA:"
        math = Case("math", "B", "math", {"label_field": "gold"}, "8", "", "", 1.0)

        async def run(response):
            executor = agent.SingleTurnAgentExecutor(math.http("openrlhf"))
            return await executor.execute(
                prompt=few_shot, label="8", sampling_params=sampling_params(max_tokens=100), max_length=180,
                hf_tokenizer=CharTokenizer(), llm_engine=Engine(response),
            )

        with self.assertLogs(LOG, level="WARNING") as logs:
            right, wrong = asyncio.run(run(" \\boxed{8}</s>")), asyncio.run(run(" I do not know.</s>"))
        self.assertIn("Truncating to fit within max_length (180)", "\n".join(logs.output))
        self.assertEqual(len(right["observation_tokens"]), 80 + len(" \\boxed{8}</s>"))
        self.assertEqual((right["reward"], wrong["reward"]), ([1.0], [0.0]))

    def test_no_reward_is_none_not_zero(self):
        """ABORTED (503) and INVALID (422) leave OpenRLHF's reward None after its 5 tries, the reason in its log;
        `_process_response_into_experience` then sets no `rewards`, and make_experience fails on the batch."""
        flaky = Case("flaky", "A", "flaky", {}, '{"reward": 1.0}', "q", "r", 1.0)

        async def run():
            return await asyncio.gather(rollout(flaky), rollout(AGENT_STATE_CASE), rollout(TERMINAL_CASE))

        with self.assertLogs(LOG, level="INFO") as logs:
            aborted, no_state, no_workspace = asyncio.run(run())
        for output in (aborted, no_state, no_workspace):
            self.assertIsNone(output["reward"])
            self.assertIsNone(output["scores"])
        text = "\n".join(logs.output)
        self.assertEqual(text.count("503, message='sandbox_unavailable'"), 5)
        # agent_state and terminal need the episode (databases, files), which this protocol cannot carry: named, not a 0.
        self.assertIn("422, message='metadata.finalState: required", text)
        self.assertIn("422, message='metadata.workspace: required", text)
        self.assertIn("Failed to fetch reward from remote RM: Request error for 5 times", text)

    def test_many_rollouts_in_flight(self):
        """Every vLLM engine runs its prompts' rollouts concurrently, each one request of one sample."""
        batch = [CASES[i % len(CASES)] for i in range(384)]

        async def run():
            return await asyncio.gather(*(rollout(case) for case in batch))

        outputs = asyncio.run(run())
        self.assertEqual([o["reward"] for o in outputs], [[c.reward] for c in batch])

    def test_a_list_request_split_over_two_urls(self):
        """_fetch_rewards_via_http with many samples and `--reward.remote_url a,b`: each URL gets its slice."""
        qa = CASES[0]
        url = qa.http("openrlhf")
        executor = agent.SingleTurnAgentExecutor([url, url])
        n = 2001
        queries = [chatml_prompt(qa) + (qa.response if i % 3 else "\\boxed{B}") + "<|im_end|>" for i in range(n)]
        replies = asyncio.run(executor._fetch_rewards_via_http(queries, [chatml_prompt(qa)] * n, ["C"] * n))
        self.assertEqual([len(r["rewards"]) for r in replies], [1001, 1000])
        self.assertEqual(replies[0]["rewards"] + replies[1]["rewards"], [1.0 if i % 3 else 0.0 for i in range(n)])


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    unittest.main()
