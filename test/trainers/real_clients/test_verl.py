"""verl's reward managers calling verdict_client.verl, loaded as verl loads a custom reward function.

get_custom_reward_fn (verl/trainer/ppo/reward.py) loads `custom_reward_function.path` with
load_extern_object (verl/utils/import_utils.py) and binds `reward_kwargs`. Then:
- the reward loop's NaiveRewardManager (verl/experimental/reward_loop/reward_manager/naive.py, the
  default since `reward_model.use_reward_loop: True`) calls compute_score once per rollout, in the
  event loop's thread pool, with extra_info plus `num_turns`, `rollout_reward_scores` and the agent
  loop's `tool_extra_fields`;
- BatchRewardManager.verify (verl/workers/reward_manager/batch.py, `use_reward_loop=False`) calls
  compute_score_batch with the batch's numpy object arrays.
"""

from __future__ import annotations

import asyncio
import json
import os
import unittest

from .cases import AGENT_STATE_CASE, CASES, EPISODE_CASES, GRPC, Case, chatml, verl_route
from .rollout import CharTokenizer, DataProto
from .theirs import verl_batch_manager, verl_reward, verl_reward_loop_naive

ADAPTER = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "clients", "python", "verdict_client", "verl.py"))
reward = verl_reward()
NaiveRewardManager = verl_reward_loop_naive()
BatchRewardManager = verl_batch_manager()


def custom_fn(name: str, server: str, routes: dict, path: str = ADAPTER, **more) -> object:
    """As `custom_reward_function.{path,name,reward_kwargs}`, by default with the adapter's file path."""
    config = {"custom_reward_function": {"path": path, "name": name, "reward_kwargs": {"verdict_targets": GRPC[server], "verdict_routes": json.dumps(routes), **more}}}
    return reward["get_custom_reward_fn"](config)


def row(case: Case, index: int = 0, **extra) -> dict:
    extra_info = {"index": index, "split": "train"}
    if case.params.get("chat_format"):
        extra_info["prompt"] = chatml(case.question)  # verl passes no prompt: the dataset puts it here
    extra_info.update(extra)
    return {"prompt": chatml(case.question), "response": case.response, "data_source": case.name, "ground_truth": case.label, "extra_info": extra_info}


async def run_single(make_manager, rows):
    """As verl's RewardLoopWorker: the manager made in the worker's event loop, one run_single per rollout."""
    manager = make_manager()
    data = DataProto.of(rows)
    return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(len(data))))


class VerlRewardLoopTest(unittest.TestCase):
    def manager(self, server: str, cases) -> object:
        return lambda: NaiveRewardManager(None, CharTokenizer(), compute_score=custom_fn("compute_score", server, {c.name: verl_route(c) for c in cases}))

    def test_every_verifier_through_the_reward_loop(self):
        for server in ("B", "C"):
            cases = [c for c in CASES if c.server == server]

            async def run():
                return await run_single(self.manager(server, cases), [row(c, i) for i, c in enumerate(cases)])

            for case, out in zip(cases, asyncio.run(run())):
                with self.subTest(case.name):
                    self.assertEqual(out["reward_score"], case.reward)
                    self.assertEqual(out["reward_extra_info"], {"acc": case.reward})

    def test_an_agent_loop_passes_the_episode_in_tool_extra_fields(self):
        """The reward loop merges the agent loop's `tool_extra_fields` into extra_info: agent_state's databases,
        terminal's workspace."""
        rows = []
        for case in EPISODE_CASES:
            r = row(case)
            r["tool_extra_fields"] = dict(case.extra)
            rows.append(r)
        outs = asyncio.run(run_single(self.manager("B", EPISODE_CASES), rows))
        self.assertEqual([o["reward_score"] for o in outs], [1.0, 1.0])

    def test_loaded_as_a_package(self):
        """custom_reward_function.path=pkg://verdict_client.verl (the package installed, or on PYTHONPATH)."""
        qa = CASES[0]
        make = lambda: NaiveRewardManager(None, CharTokenizer(), compute_score=custom_fn("compute_score", "B", {"qa": verl_route(qa)}, path="pkg://verdict_client.verl"))  # noqa: E731
        [out] = asyncio.run(run_single(make, [row(qa)]))
        self.assertEqual(out["reward_score"], 1.0)

    def test_many_rollouts_in_the_thread_pool(self):
        cases = [c for c in CASES if c.server == "B"]
        batch = [cases[i % len(cases)] for i in range(256)]
        outs = asyncio.run(run_single(self.manager("B", cases), [row(c, i // 8) for i, c in enumerate(batch)]))
        self.assertEqual([o["reward_score"] for o in outs], [c.reward for c in batch])

    def test_no_reward_raises_out_of_the_reward_loop(self):
        """compute_score raises VerdictSampleError: run_single and the reward loop's gather fail, no 0 is trained on."""
        flaky = Case("flaky", "A", "flaky", {}, {"reward": 1.0}, "q", "r", 1.0)
        for case in (flaky, Case(**{**AGENT_STATE_CASE.__dict__, "extra": None})):
            with self.subTest(case.name), self.assertRaises(RuntimeError) as raised:
                asyncio.run(run_single(self.manager(case.server, [case]), [row(case)]))
            self.assertEqual(type(raised.exception).__name__, "VerdictSampleError")


class VerlBatchManagerTest(unittest.TestCase):
    def test_compute_score_batch_with_the_batch_managers_numpy_arrays(self):
        cases = [c for c in CASES if c.server == "B"]
        fn = custom_fn("compute_score_batch", "B", {c.name: verl_route(c) for c in cases})
        manager = BatchRewardManager(CharTokenizer(), 0, fn)
        batch = [cases[i % len(cases)] for i in range(512)]
        data = DataProto.of([row(c, i // 8) for i, c in enumerate(batch)])
        self.assertEqual(list(manager.verify(data)), [c.reward for c in batch])

    def test_ground_truths_of_a_struct_column(self):
        """Mixed Verdict labels in reward_model.ground_truth, as `datasets` loads a struct column: every key of
        every row, None where the row has none."""
        union = lambda **kw: {"verifier": None, "gold": None, "choice": None, **kw}  # noqa: E731
        rows = [
            {**row(CASES[0], 0), "data_source": "mixed", "ground_truth": union(verifier="qa", choice="C")},
            {**row(CASES[2], 1), "data_source": "mixed", "ground_truth": union(verifier="math", gold="72")},
        ]
        fn = custom_fn("compute_score_batch", "B", {"mixed": "qa"})
        self.assertEqual(list(BatchRewardManager(CharTokenizer(), 0, fn).verify(DataProto.of(rows))), [1.0, 1.0])

    def test_rollouts_without_a_reward_in_the_batch(self):
        """A rollout Verdict could not score gets its group's mean OK reward; a group with none gets 0.0 for
        each, which under GRPO is an advantage of 0 for all of them (a group of equal rewards), logged."""
        qa = CASES[0]
        flaky = Case("flaky", "A", "flaky", {}, {"reward": 1.0}, "q", "r", 1.0)
        fn = custom_fn("compute_score_batch", "A", {"qa": verl_route(qa), "flaky": "flaky"})
        rows = [row(qa, 0), {**row(qa, 0), "response": "\\boxed{A}"}, row(flaky, 0), row(flaky, 1), row(flaky, 1)]
        # One prompt's rollouts: qa and flaky rows of index 0 share a group (extra_info group_id).
        for r in rows:
            r["extra_info"]["group_id"] = f"p{r['extra_info']['index']}"
        with self.assertLogs("verdict_client.verl", level="WARNING") as logs:
            scores = BatchRewardManager(CharTokenizer(), 0, fn).verify(DataProto.of(rows))
        self.assertEqual(list(scores), [1.0, 0.0, 0.5, 0.0, 0.0])
        self.assertIn("rollout 2 (flaky, prompt index 0) ABORTED sandbox_unavailable: no reward, scored 0.5", "\n".join(logs.output))
        self.assertIn("3 of 5 samples had no reward", "\n".join(logs.output))


if __name__ == "__main__":
    unittest.main()
