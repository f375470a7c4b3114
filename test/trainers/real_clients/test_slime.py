"""slime's remote reward path (slime/rollout/rm_hub/__init__.py) against /slime/<verifier>.

`async_rm` with `--rm-type remote_rm --rm-url …` calls `remote_rm`, which POSTs the Sample's
{"prompt", "response", "label"} on slime's shared aiohttp session (64 connections) and returns the
parsed JSON as `sample.reward`; a failed request is retried (`max_retries`, backoff min(2^k, 30) s +
jitter) and finally raised, failing the rollout.
"""

from __future__ import annotations

import asyncio
import os
import unittest
from argparse import Namespace

import aiohttp

from .cases import AGENT_STATE_CASE, CASES, EPISODE_CASES, GRPC, TERMINAL_CASE, Case, chatml
from .theirs import slime_rm_hub

hub = slime_rm_hub()
Sample = hub["Sample"]
LOG = "slime.rollout.rm_hub"


def sample(case: Case, chat_prompt: bool = False) -> object:
    """A rollout's Sample: the prompt as --apply-chat-template made it (or the message list without it)."""
    prompt = [{"role": "user", "content": case.question}] if chat_prompt else chatml(case.question)
    return Sample(prompt=prompt, response=case.response, label=case.label, status=Sample.Status.COMPLETED)


def args(url: str) -> Namespace:
    return Namespace(rm_type="remote_rm", rm_url=url, custom_rm_path=None)


async def rewards(pairs):
    """async_rm over slime's shared session, which belongs to one event loop: closed at the end."""
    try:
        return await asyncio.gather(*(hub["async_rm"](args(url), s) for url, s in pairs))
    finally:
        await hub["_get_shared_session"]().close()


class SlimeRemoteRmTest(unittest.TestCase):
    def test_every_verifier_through_async_rm(self):
        got = asyncio.run(rewards([(c.http("slime"), sample(c)) for c in CASES]))
        for case, reward in zip(CASES, got):
            with self.subTest(case.name):
                self.assertEqual(reward, case.reward)
                self.assertIsInstance(reward, float)  # slime stores it as sample.reward; its advantages take floats

    def test_chat_message_prompts_and_dataset_label_shapes(self):
        """Without --apply-chat-template the prompt is the message list; label = data[label_key] as stored."""
        math = next(c for c in CASES if c.name == "math")
        rlhf = next(c for c in CASES if c.name == "rlhf")
        pairs = [
            (math.http("slime"), Sample(prompt=[{"role": "user", "content": "q"}], response=math.response, label=72)),
            (math.http("slime"), Sample(prompt="q", response=math.response, label={"gold": "72"})),
            # A struct label column read from Parquet: every row has every key, None where it has none.
            (math.http("slime"), Sample(prompt="q", response=math.response, label={"verifier": None, "gold": "72", "choice": None})),
            (rlhf.http("slime").split("?")[0], sample(rlhf, chat_prompt=True)),  # messages need no chat_format
        ]
        self.assertEqual(asyncio.run(rewards(pairs)), [1.0, 1.0, 1.0, 1.5])

    def test_many_samples_in_flight_on_the_shared_session(self):
        batch = [CASES[i % len(CASES)] for i in range(512)]
        got = asyncio.run(rewards([(c.http("slime"), sample(c)) for c in batch]))
        self.assertEqual(got, [c.reward for c in batch])

    def test_no_reward_raises_with_the_reason_not_zero(self):
        """remote_rm's last failure is raised (the rollout fails); its warning carries Verdict's status line.
        max_retries is remote_rm's own parameter (async_rm uses its default, 10: ~155 s for a sample)."""
        flaky = Case("flaky", "A", "flaky", {}, '{"reward": 1.0}', "q", "r", 1.0)
        no_label = Sample(prompt="q", response="\\boxed{72}", label=None)  # no --label-key: label None

        async def run(url, s):
            try:
                return await hub["remote_rm"](args(url), s, max_retries=2)
            finally:
                await hub["_get_shared_session"]().close()

        cases = [
            (flaky.http("slime"), sample(flaky), 503, "sandbox_unavailable"),
            (AGENT_STATE_CASE.http("slime"), sample(AGENT_STATE_CASE), 422, "metadata.finalState: required"),
            (TERMINAL_CASE.http("slime"), sample(TERMINAL_CASE), 422, "metadata.workspace: required"),
            (CASES[2].http("slime"), no_label, 422, "label.gold: required"),
        ]
        for url, s, status, reason in cases:
            with self.subTest(reason), self.assertLogs(LOG, level="INFO") as logs:
                with self.assertRaises(aiohttp.ClientResponseError) as raised:
                    asyncio.run(run(url, s))
                self.assertEqual(raised.exception.status, status)
                self.assertTrue(raised.exception.message.startswith(reason), raised.exception.message)
                self.assertIn(f"remote_rm failed after 2 attempts: {status}, message='{reason}", "\n".join(logs.output))


class SlimeCustomRmTest(unittest.TestCase):
    """--custom-rm-path verdict_client.slime.reward: async_rm loads it with slime's load_function and awaits it."""

    def setUp(self):
        self.env = dict(os.environ)
        os.environ.update({"VERDICT_TARGETS": GRPC["B"]})

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)

    def score(self, s, verifier):
        os.environ["VERDICT_VERIFIER"] = verifier
        custom = Namespace(rm_type="", rm_url=None, custom_rm_path="verdict_client.slime.reward")
        return asyncio.run(hub["async_rm"](custom, s))

    def test_the_episode_state_a_generate_function_put_in_sample_metadata(self):
        for case in EPISODE_CASES:
            with self.subTest(case.name):
                s = Sample(prompt=chatml(case.question), response=case.response, label=case.label, metadata={"rm_type": "", **case.extra})
                self.assertEqual(self.score(s, case.verifier), 1.0)
                self.assertEqual(s.metadata["verdict"]["status"], "OK")
                self.assertFalse(s.remove_sample)

    def test_without_it_the_sample_is_dropped_naming_the_field(self):
        case = AGENT_STATE_CASE
        s = Sample(prompt=chatml(case.question), response=case.response, label=case.label)
        with self.assertLogs("verdict_client.slime", level="WARNING"):
            self.assertEqual(self.score(s, case.verifier), 0.0)
        self.assertTrue(s.remove_sample)
        self.assertTrue(s.metadata["verdict"]["reason"].startswith("metadata.finalState: required"), s.metadata["verdict"])

    def test_reward_group_through_batched_async_rm(self):
        """--group-rm --custom-rm-path verdict_client.slime.reward_group: batched_async_rm hands it the group.
        A sample that stays ABORTED is removed (loss mask) and stands in at the group's mean OK reward."""
        os.environ.update({"VERDICT_TARGETS": GRPC["A"], "VERDICT_VERIFIER": "qa", "VERDICT_LABEL_FIELD": "choice"})
        group = [Sample(group_index=7, index=i, prompt="Which letter?", response=r, label="C") for i, r in enumerate(["\\boxed{C}", "\\boxed{C}", "\\boxed{A}"])]
        group.append(Sample(group_index=7, index=3, prompt="q", response="r", label='{"verifier": "flaky", "reward": 1.0}'))
        custom = Namespace(rm_type="", rm_url=None, custom_rm_path="verdict_client.slime.reward_group")
        with self.assertLogs("verdict_client.slime", level="WARNING"):
            rewards = asyncio.run(hub["batched_async_rm"](custom, group))
        self.assertEqual(rewards[:3], [1.0, 1.0, 0.0])
        self.assertAlmostEqual(rewards[3], 2 / 3)
        self.assertEqual([s.remove_sample for s in group], [False, False, False, True])
        self.assertEqual(group[3].metadata["verdict"]["reason"], "sandbox_unavailable")


if __name__ == "__main__":
    unittest.main()
