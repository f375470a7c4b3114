"""The sync and asyncio clients against real servers: mixed batches, groups, batching, retries."""

import asyncio
import unittest

from verdict_client import AsyncVerdictClient, GroupOptions, Sample, VerdictClient, VerdictError

from .servers import GRPC_A, GRPC_B


def qa(response: str, choice: str = "C", **fields) -> Sample:
    return Sample(verifier="qa", response=response, label={"choice": choice}, **fields)


def mixed_batch() -> list:
    return [
        qa("\\boxed{C}", id="right"),
        qa("Answer: B", id="wrong"),
        Sample(verifier="qa", response="\\boxed{x}", label={"answers": [True]}, id="bad-label"),
        {"verifier": "nope", "response": "x", "id": "unknown"},
        Sample(verifier="flaky", response="", label={"reward": 0.25}, id="flaky"),
    ]


class ScoreTest(unittest.TestCase):
    def setUp(self):
        self.client = VerdictClient(GRPC_B, timeout=30)

    def tearDown(self):
        self.client.close()

    def test_mixed_batch_in_input_order_reward_only_when_ok(self):
        response = self.client.score(mixed_batch())
        got = [(r.id, r.index, r.status, r.reward) for r in response.results]
        self.assertEqual(
            got,
            [
                ("right", 0, "OK", 1.0),
                ("wrong", 1, "OK", 0.0),
                ("bad-label", 2, "INVALID", None),
                ("unknown", 3, "INVALID", None),
                ("flaky", 4, "OK", 0.25),
            ],
        )
        self.assertEqual(response.results[2].reason, "label.answers[0]: expected a string")
        self.assertTrue(response.results[3].reason.startswith('verifier: unknown verifier "nope"'))
        self.assertEqual(response.results[0].details["letter"], "C")
        self.assertRegex(response.results[0].verifier_version, r"^\d+\.\d+\.\d+$")
        self.assertEqual(response.results[0].replica, GRPC_B)

    def test_list_verifiers_gives_schema_sections_and_example(self):
        verifiers = {v["name"]: v for v in self.client.list_verifiers()}
        self.assertEqual(verifiers["qa"]["sections"], [])
        self.assertEqual(verifiers["qa"]["example"]["response"], "Option A fits the data. \\boxed{A}")
        self.assertEqual(verifiers["qa"]["example"]["reward"], 1.0)
        self.assertIn('"choice"', verifiers["qa"]["label_schema"])

    def test_group_shaping_length_penalty_and_mean_advantage(self):
        group = [
            qa("\\boxed{C}", group_id="g", response_tokens=100),
            qa("\\boxed{C}", group_id="g", response_tokens=600),
            qa("\\boxed{C}", group_id="g", response_tokens=1100),
            qa("\\boxed{A}", group_id="g", response_tokens=300),
        ]
        options = GroupOptions(length_penalty=True, max_length=1100, advantage="mean")
        response = self.client.score(group, group_options=options)
        self.assertEqual([r.reward for r in response.results], [1.0, 0.75, 0.5, 0.0])
        self.assertEqual([r.details.get("rawReward") for r in response.results], [1.0, 1.0, 1.0, 0.0])
        for advantage, expected in zip([r.advantage for r in response.results], [0.4375, 0.1875, -0.0625, -0.5625]):
            self.assertAlmostEqual(advantage, expected, places=12)
        summary = response.group("g")
        self.assertEqual((summary.size, summary.ok, summary.shortest_correct, summary.keep), (4, 4, 100, True))
        self.assertAlmostEqual(summary.mean_raw_reward, 0.75)
        self.assertAlmostEqual(summary.mean_reward, 0.5625)

    def test_group_summaries_without_options_and_dynamic_sampling_verdicts(self):
        batch = [qa("\\boxed{C}", group_id="easy"), qa("\\boxed{C}", group_id="easy"), qa("\\boxed{A}", group_id="hard"), qa("\\boxed{A}", group_id="hard")]
        plain = self.client.score(batch)
        self.assertEqual([(g.group_id, g.mean_reward, g.keep) for g in plain.groups], [("easy", 1.0, True), ("hard", 0.0, True)])
        shaped = self.client.score(batch, group_options={"keep_max": 0.8})
        self.assertEqual([(g.group_id, g.keep, g.keep_reason) for g in shaped.groups], [("easy", False, "too_easy"), ("hard", False, "all_fail")])

    def test_batching_never_splits_a_group(self):
        client = VerdictClient(GRPC_B, batch_size=2, timeout=30)
        try:
            batch = [qa("\\boxed{C}"), qa("\\boxed{C}", group_id="g"), qa("\\boxed{A}", group_id="g"), qa("\\boxed{C}", group_id="g"), qa("\\boxed{A}")]
            response = client.score(batch, group_options={"advantage": "grpo"})
        finally:
            client.close()
        self.assertEqual([r.index for r in response.results], [0, 1, 2, 3, 4])
        self.assertEqual([r.reward for r in response.results], [1.0, 1.0, 0.0, 1.0, 0.0])
        summary = response.group("g")
        self.assertEqual((summary.size, summary.ok), (3, 3))
        self.assertAlmostEqual(summary.mean_reward, 2 / 3)
        # A split group would have had its advantages computed over a part of it.
        self.assertGreater(response.results[1].advantage, 0)
        self.assertLess(response.results[2].advantage, 0)
        self.assertIsNone(response.results[0].advantage)

    def test_bad_group_options_are_refused_with_the_field_named(self):
        with self.assertRaises(VerdictError) as caught:
            self.client.score([qa("\\boxed{C}", group_id="g")], group_options={"length_penalty": True})
        self.assertEqual(caught.exception.code.name, "INVALID_ARGUMENT")
        self.assertIn("group_options.max_length", caught.exception.details)
        with self.assertRaises(VerdictError) as streamed:
            list(self.client.score_stream([qa("\\boxed{C}")], group_options={"advantage": "ppo"}))
        self.assertEqual(streamed.exception.code.name, "INVALID_ARGUMENT")
        self.assertIn("group_options.advantage", streamed.exception.details)

    def test_stream_sends_each_group_summary_on_its_last_result(self):
        batch = [qa("\\boxed{C}", group_id="g1", response_tokens=10), qa("\\boxed{A}", group_id="g2", response_tokens=10),
                 qa("\\boxed{C}", group_id="g1", response_tokens=20), qa("\\boxed{C}", group_id="g2", response_tokens=30), qa("\\boxed{C}")]
        options = {"length_penalty": True, "max_length": 30, "advantage": "mean"}
        for batched in (False, True):
            with self.subTest(batched=batched):
                self.check_stream(batch, options, list(self.client.score_stream(batch, group_options=options, batched=batched)))

    def check_stream(self, batch, options, streamed):
        self.assertEqual(sorted(r.index for r in streamed), [0, 1, 2, 3, 4])
        by_group = {}
        for position, result in enumerate(streamed):
            by_group.setdefault(batch[result.index].group_id, []).append((position, result))
        for group_id in ("g1", "g2"):
            members = by_group[group_id]
            positions = [p for p, _ in members]
            self.assertEqual(positions, list(range(positions[0], positions[0] + 2)), "a group's results are sent together")
            self.assertIsNone(members[0][1].group)
            self.assertEqual(members[-1][1].group.group_id, group_id)
            self.assertEqual(members[-1][1].group.size, 2)
        batch_results = self.client.score(batch, group_options=options).results
        for result in streamed:
            expected = batch_results[result.index]
            self.assertEqual((result.status, result.reward, result.advantage), (expected.status, expected.reward, expected.advantage))
        self.assertEqual(next(r.reward for r in streamed if r.index == 2), 0.75)


class RetryTest(unittest.TestCase):
    def test_aborted_samples_are_scored_again_on_the_next_replica(self):
        with VerdictClient([GRPC_A, GRPC_B], timeout=30) as client:
            batch = [Sample(verifier="flaky", response="", label={"reward": r}) for r in (0.1, 0.2, 0.3)] + [qa("\\boxed{C}")]
            response = client.score(batch)
        self.assertEqual([r.status for r in response.results], ["OK"] * 4)
        self.assertEqual([r.reward for r in response.results], [0.1, 0.2, 0.3, 1.0])
        self.assertEqual([(r.replica, r.attempts) for r in response.results[:3]], [(GRPC_B, 2)] * 3)
        self.assertEqual((response.results[3].replica, response.results[3].attempts), (GRPC_A, 1))

    def test_a_group_with_an_aborted_sample_is_rescored_whole(self):
        with VerdictClient([GRPC_A, GRPC_B], timeout=30) as client:
            batch = [qa("\\boxed{C}", group_id="g"), Sample(verifier="flaky", response="", label={"reward": 0.0}, group_id="g"), qa("\\boxed{C}", group_id="h")]
            response = client.score(batch, group_options={"advantage": "mean", "min_valid": 1})
        self.assertEqual([(r.replica, r.attempts) for r in response.results], [(GRPC_B, 2), (GRPC_B, 2), (GRPC_A, 1)])
        g = response.group("g")
        self.assertEqual((g.size, g.ok, g.aborted, g.mean_reward), (2, 2, 0, 0.5))
        self.assertEqual([r.advantage for r in response.results[:2]], [0.5, -0.5])

    def test_without_retries_the_aborted_result_is_returned_as_is(self):
        with VerdictClient([GRPC_A, GRPC_B], retries=0, timeout=30) as client:
            result = client.score([Sample(verifier="flaky", response="", label={"reward": 1.0})]).results[0]
        self.assertEqual((result.status, result.reward, result.reason, result.replica), ("ABORTED", None, "sandbox_unavailable", GRPC_A))

    def test_an_unreachable_replica_is_skipped(self):
        with VerdictClient(["127.0.0.1:1", GRPC_B], timeout=30) as client:
            response = client.score([qa("\\boxed{C}")])
        self.assertEqual((response.results[0].status, response.results[0].replica), ("OK", GRPC_B))

    def test_when_every_replica_is_unreachable_each_sample_is_aborted_client_side(self):
        with VerdictClient(["127.0.0.1:1"], retries=1, timeout=30) as client:
            response = client.score([qa("\\boxed{C}", group_id="g"), qa("\\boxed{A}")])
        self.assertEqual([(r.status, r.reason, r.details.get("client")) for r in response.results], [("ABORTED", "rpc_unavailable", True)] * 2)
        self.assertEqual((response.group("g").aborted, response.group("g").ok), (1, 0))


class AsyncClientTest(unittest.TestCase):
    def test_async_score_retry_and_stream(self):
        async def run():
            async with AsyncVerdictClient([GRPC_A, GRPC_B], timeout=30, batch_size=2) as client:
                scored = await client.score(mixed_batch() + [Sample(verifier="flaky", response="", label={"reward": 0.5}, group_id="g")])
                streamed = [r async for r in client.score_stream([qa("\\boxed{C}", group_id="s"), qa("\\boxed{B}", group_id="s")], batched=False)]
                # The default: ScoreStreamBatches.
                batched = [r async for r in client.score_stream([qa("\\boxed{C}", group_id="s"), qa("\\boxed{B}", group_id="s")])]
                return scored, streamed, batched

        scored, streamed, batched = asyncio.run(run())
        self.assertEqual(sorted((r.index, r.reward) for r in batched), [(0, 1.0), (1, 0.0)])
        self.assertEqual(sum(r.group is not None for r in batched), 1)
        self.assertEqual(next(r for r in batched if r.group is not None).group.size, 2)
        self.assertEqual([r.status for r in scored.results], ["OK", "OK", "INVALID", "INVALID", "OK", "OK"])
        self.assertEqual([r.reward for r in scored.results][4:], [0.25, 0.5])
        self.assertEqual(scored.group("g").ok, 1)
        self.assertEqual(sorted(r.reward for r in streamed), [0.0, 1.0])
        self.assertEqual([r.group is not None for r in streamed], [False, True])


if __name__ == "__main__":
    unittest.main()
