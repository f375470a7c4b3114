"""A deadline too short for the batch: every sample still gets exactly one result."""

import unittest

from verdict_client import Sample, VerdictClient

from .servers import GRPC_B


def busy(n: int) -> list:
    return [Sample(verifier="spin", response="", label={"ops": 40_000_000}, id=f"s{i}") for i in range(n)]


class DeadlineTest(unittest.TestCase):
    def test_samples_not_reached_come_back_aborted_deadline(self):
        with VerdictClient(GRPC_B, retries=2) as client:
            response = client.score(busy(24), timeout=1.5)
        self.assertEqual(len(response.results), 24)
        self.assertEqual([r.index for r in response.results], list(range(24)))
        aborted = [r for r in response.results if r.status == "ABORTED"]
        self.assertGreater(len(aborted), 0)
        self.assertEqual({r.reason for r in aborted}, {"deadline"})
        # "deadline" is final: retrying would only run past the caller's deadline.
        self.assertEqual({r.attempts for r in aborted}, {1})
        for r in response.results:
            self.assertEqual(r.reward is None, r.status != "OK")


if __name__ == "__main__":
    unittest.main()
