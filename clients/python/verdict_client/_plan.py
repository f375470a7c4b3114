"""How one `score()` call is split into RPCs, retried and put back together.

Shared by the sync and the asyncio client, which only differ in how they run the RPCs. Pure state:
the drivers hand it each RPC's outcome and send whatever chunks it returns.

- Batching: samples are packed into chunks of at most `batch_size`, a group never split across
  chunks (group shaping needs the whole group in one request).
- Retry: a group (or an ungrouped sample) with an ABORTED result is scored again, whole, on the next
  replica, up to `retries` more times — whole, so that its summary and shaping are recomputed from a
  complete group. ABORTED for "deadline" or "cancelled" is final: the time is gone.
- RPC failures: UNAVAILABLE, RESOURCE_EXHAUSTED, INTERNAL and UNKNOWN move the chunk to the next
  replica; past the retries, or past the deadline, its samples get an ABORTED result decided here
  (details.client = true). Any other status is a caller bug and raises VerdictError.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Optional

import grpc

from verdict.v1 import score_pb2

from .messages import GroupOptions, GroupSummary, Result, Sample, ScoreResponse, aborted_result, group_from_proto, request_to_proto, result_from_proto

FINAL_ABORT_REASONS = frozenset({"deadline", "cancelled"})


def _retryable(result: Optional[Result]) -> bool:
    """An ABORTED result that another attempt may turn into a reward."""
    return result is not None and result.status == "ABORTED" and result.reason not in FINAL_ABORT_REASONS
RETRYABLE_CODES = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
)
# Deterministic backoff before a chunk is sent again: 0.1 s, 0.2 s, 0.4 s, … capped at 2 s.
BACKOFF_BASE_S = 0.1
BACKOFF_CAP_S = 2.0


class VerdictError(Exception):
    """The server refused the request itself (bad group options, a batch over its limit, …)."""

    def __init__(self, code: grpc.StatusCode, details: str):
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


@dataclass(frozen=True)
class Chunk:
    indices: tuple[int, ...]
    replica: int
    attempt: int
    delay_s: float = 0.0


class BatchPlan:
    def __init__(
        self,
        samples: list[Sample],
        options: Optional[GroupOptions],
        replicas: list[str],
        batch_size: int,
        retries: int,
        timeout_s: Optional[float],
    ):
        if not replicas:
            raise ValueError("at least one target is required")
        self.samples = samples
        self.options = options
        self.replicas = replicas
        self.batch_size = max(1, batch_size)
        self.retries = max(0, retries)
        self.deadline = None if timeout_s is None else time.monotonic() + timeout_s
        self.results: list[Optional[Result]] = [None] * len(samples)
        self.groups: dict[str, GroupSummary] = {}
        # Units are what is never split: a whole group, or one ungrouped sample.
        self.unit_of: list[int] = []
        self.units: list[list[int]] = []
        by_group: dict[str, int] = {}
        for i, sample in enumerate(samples):
            if sample.group_id == "":
                self.unit_of.append(len(self.units))
                self.units.append([i])
                continue
            unit = by_group.get(sample.group_id)
            if unit is None:
                unit = by_group[sample.group_id] = len(self.units)
                self.units.append([])
            self.units[unit].append(i)
            self.unit_of.append(unit)
        self.group_unit = by_group
        self.group_order = list(by_group)

    def remaining_s(self) -> Optional[float]:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _pack(self, units: list[int], replica_of: Callable[[int], int], attempt: int, delay_s: float) -> list[Chunk]:
        chunks: list[Chunk] = []
        current: list[int] = []
        for unit in units:
            members = self.units[unit]
            if current and len(current) + len(members) > self.batch_size:
                chunks.append(Chunk(tuple(current), replica_of(len(chunks)), attempt, delay_s))
                current = []
            current.extend(members)
        if current:
            chunks.append(Chunk(tuple(current), replica_of(len(chunks)), attempt, delay_s))
        return chunks

    def initial(self) -> list[Chunk]:
        return self._pack(list(range(len(self.units))), lambda k: k % len(self.replicas), 1, 0.0)

    def request(self, chunk: Chunk) -> score_pb2.ScoreRequest:
        return request_to_proto([self.samples[i] for i in chunk.indices], self.options)

    def _retry(self, chunk: Chunk, units: list[int]) -> list[Chunk]:
        next_replica = (chunk.replica + 1) % len(self.replicas)
        delay = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (chunk.attempt - 1))
        return self._pack(units, lambda _k: next_replica, chunk.attempt + 1, delay)

    def _can_retry(self, chunk: Chunk) -> bool:
        remaining = self.remaining_s()
        return chunk.attempt <= self.retries and (remaining is None or remaining > 0)

    def on_response(self, chunk: Chunk, response: score_pb2.ScoreResponse) -> list[Chunk]:
        replica = self.replicas[chunk.replica]
        for position, message in enumerate(response.results):
            index = chunk.indices[position]
            result = result_from_proto(message, replica, chunk.attempt)
            self.results[index] = replace(result, index=index)
        for group in response.groups:
            self.groups[group.group_id] = group_from_proto(group)
        if not self._can_retry(chunk):
            return []
        retry_units = sorted({self.unit_of[i] for i in chunk.indices if _retryable(self.results[i])})
        return self._retry(chunk, retry_units) if retry_units else []

    def on_error(self, chunk: Chunk, code: grpc.StatusCode, details: str) -> list[Chunk]:
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            self.give_up(chunk, "deadline", details)
            return []
        if code not in RETRYABLE_CODES:
            raise VerdictError(code, details)
        if self._can_retry(chunk):
            return self._retry(chunk, sorted({self.unit_of[i] for i in chunk.indices}))
        self.give_up(chunk, f"rpc_{code.name.lower()}", details)
        return []

    def give_up(self, chunk: Chunk, reason: str, details: str = "") -> None:
        """Decides the chunk's samples here: ABORTED, since no replica scored them."""
        replica = self.replicas[chunk.replica]
        for index in chunk.indices:
            self.results[index] = aborted_result(self.samples[index], index, reason, replica, chunk.attempt, {"error": details} if details else None)
        for group_id in sorted({self.samples[i].group_id for i in chunk.indices} - {""}):
            size = len(self.units[self.group_unit[group_id]])
            self.groups[group_id] = GroupSummary(
                group_id=group_id,
                size=size,
                ok=0,
                aborted=size,
                invalid=0,
                mean_reward=None,
                mean_raw_reward=None,
                shortest_correct=None,
                keep=self.options is None,
                keep_reason="" if self.options is None else "too_few_valid",
            )

    def response(self) -> ScoreResponse:
        missing = [i for i, r in enumerate(self.results) if r is None]
        if missing:
            raise RuntimeError(f"internal error: samples {missing[:5]} got no result")
        return ScoreResponse(
            results=[r for r in self.results if r is not None],
            groups=[self.groups[g] for g in self.group_order if g in self.groups],
        )
