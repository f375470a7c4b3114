"""The asyncio client: the same batching, deadlines and retries as VerdictClient, on grpc.aio."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Iterable, Optional, Union

import grpc
import grpc.aio

from verdict.v1 import score_pb2, score_pb2_grpc

from ._plan import BatchPlan, Chunk, VerdictError
from .client import CHANNEL_OPTIONS, GroupOptionsLike, Targets, _Outcome
from .replicas import ReplicaSet, Tls, aio_metadata
from .messages import GroupOptions, Result, SampleLike, ScoreResponse, as_sample, request_to_proto, result_from_proto, results_from_batch


class AsyncVerdictClient:
    """`await client.score(samples)`; see VerdictClient for the batching and retry rules.

    grpc.aio channels belong to the event loop they were made on: make the client inside the loop
    that uses it.
    """

    def __init__(
        self,
        targets: Targets,
        *,
        batch_size: int = 1024,
        max_in_flight: int = 4,
        retries: int = 2,
        timeout: Optional[float] = None,
        token: Optional[str] = None,
        tls: Optional[Tls] = None,
        refresh_s: float = 30.0,
    ):
        def make(address: str) -> tuple[grpc.aio.Channel, score_pb2_grpc.ScorerStub]:
            channel = (
                grpc.aio.secure_channel(address, tls.credentials(), options=CHANNEL_OPTIONS)
                if tls
                else grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
            )
            return channel, score_pb2_grpc.ScorerStub(channel)  # type: ignore[no-untyped-call]

        self._replicas = ReplicaSet(targets, make, lambda channel: asyncio.ensure_future(channel.close()), refresh_s)
        self._metadata = aio_metadata(token)
        self.batch_size = batch_size
        self.retries = retries
        self.timeout = timeout
        self._limit = asyncio.Semaphore(max(1, max_in_flight))
        self._next_stream = 0

    async def score(
        self,
        samples: Iterable[SampleLike],
        *,
        group_options: GroupOptionsLike = None,
        timeout: Optional[float] = None,
    ) -> ScoreResponse:
        targets, stubs = self._replicas.current()
        plan = BatchPlan(
            [as_sample(s) for s in samples],
            GroupOptions.of(group_options),
            targets,
            self.batch_size,
            self.retries,
            timeout if timeout is not None else self.timeout,
        )
        pending: dict[asyncio.Task[_Outcome], Chunk] = {}

        def send(chunk: Chunk) -> None:
            pending[asyncio.ensure_future(self._call(plan, chunk, stubs))] = chunk

        for chunk in plan.initial():
            send(chunk)
        try:
            while pending:
                finished: set[asyncio.Task[_Outcome]]
                finished, _ = await asyncio.wait(list(pending), return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    chunk = pending.pop(task)
                    outcome = task.result()
                    if outcome is None:
                        plan.give_up(chunk, "deadline")
                        follow = []
                    elif isinstance(outcome, grpc.RpcError):
                        follow = plan.on_error(chunk, outcome.code(), outcome.details() or "")
                    else:
                        follow = plan.on_response(chunk, outcome)
                    for nxt in follow:
                        send(nxt)
        finally:
            for task in pending:
                task.cancel()
        return plan.response()

    async def _call(self, plan: BatchPlan, chunk: Chunk, stubs: list[Any]) -> _Outcome:
        remaining = plan.remaining_s()
        if chunk.delay_s > 0:
            await asyncio.sleep(chunk.delay_s if remaining is None else max(0.0, min(chunk.delay_s, remaining)))
        async with self._limit:
            remaining = plan.remaining_s()
            if remaining is not None and remaining <= 0:
                return None
            try:
                return await stubs[chunk.replica].Score(plan.request(chunk), timeout=remaining, metadata=self._metadata)
            except grpc.RpcError as error:
                return error

    async def score_stream(
        self,
        samples: Iterable[SampleLike],
        *,
        group_options: GroupOptionsLike = None,
        timeout: Optional[float] = None,
        batched: bool = True,
    ) -> AsyncIterator[Result]:
        """As VerdictClient.score_stream."""
        targets, stubs = self._replicas.current()
        replica = self._next_stream % len(targets)
        self._next_stream += 1
        sent = [as_sample(s) for s in samples]
        request = request_to_proto(sent, GroupOptions.of(group_options))
        timeout = timeout if timeout is not None else self.timeout
        try:
            if batched:
                group_ids = [s.group_id for s in sent]
                async for batch in stubs[replica].ScoreStreamBatches(request, timeout=timeout, metadata=self._metadata):
                    for result in results_from_batch(batch, group_ids, targets[replica]):
                        yield result
            else:
                async for message in stubs[replica].ScoreStream(request, timeout=timeout, metadata=self._metadata):
                    yield result_from_proto(message, targets[replica])
        except grpc.RpcError as error:
            raise VerdictError(error.code(), error.details() or "") from error

    @property
    def targets(self) -> list[str]:
        return self._replicas.addresses

    async def close(self) -> None:
        for channel in self._replicas.close():
            await channel.close()

    async def __aenter__(self) -> "AsyncVerdictClient":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()
