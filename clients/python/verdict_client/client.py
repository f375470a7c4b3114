"""The synchronous client: batches in parallel over a thread pool, retries ABORTED on other replicas."""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence, Union

import grpc
from google.protobuf import json_format

from verdict.v1 import score_pb2, score_pb2_grpc

from ._plan import BatchPlan, Chunk, VerdictError
from .replicas import ReplicaSet, Tls, open_channel
from .messages import GroupOptions, Result, SampleLike, ScoreResponse, as_sample, request_to_proto, result_from_proto, results_from_batch

# Matches the server's limit both ways, so a 4,096-sample batch of long responses fits.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]

Targets = Union[str, Sequence[str]]
# One call's outcome: the response, the RPC's error, or None when the deadline passed before it was sent.
_Outcome = Union[score_pb2.ScoreResponse, grpc.RpcError, None]
GroupOptionsLike = Union[GroupOptions, Mapping[str, Any], None]


class VerdictClient:
    """Scores batches over gRPC against one or more Verdict replicas.

    `score()` splits a batch into chunks of `batch_size` (never splitting a group), keeps up to
    `max_in_flight` of them in flight, round-robin over the replicas, and scores again on the next
    replica any group or sample that came back ABORTED (up to `retries` times). `timeout` is the
    deadline of a whole `score()` call, in seconds; samples not scored by then come back ABORTED
    "deadline", never as an exception. `token` is sent as a bearer token, `tls` secures the channels;
    `dns:///` targets are resolved again every `refresh_s` seconds (replicas.py).
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
        def make(address: str) -> tuple[grpc.Channel, score_pb2_grpc.ScorerStub]:
            channel = open_channel(address, CHANNEL_OPTIONS, token, tls)
            return channel, score_pb2_grpc.ScorerStub(channel)  # type: ignore[no-untyped-call]

        self._replicas = ReplicaSet(targets, make, lambda channel: channel.close(), refresh_s)
        self.batch_size = batch_size
        self.retries = retries
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=max(1, max_in_flight), thread_name_prefix="verdict")
        self._next_stream = 0

    def score(
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
        in_flight: dict[Future[_Outcome], Chunk] = {}

        def send(chunk: Chunk) -> None:
            in_flight[self._pool.submit(self._call, plan, chunk, stubs)] = chunk

        for chunk in plan.initial():
            send(chunk)
        while in_flight:
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for future in done:
                chunk = in_flight.pop(future)
                outcome = future.result()
                # Plan updates happen here, on the caller's thread only.
                if outcome is None:
                    plan.give_up(chunk, "deadline")
                    follow = []
                elif isinstance(outcome, grpc.RpcError):
                    follow = plan.on_error(chunk, outcome.code(), outcome.details() or "")
                else:
                    follow = plan.on_response(chunk, outcome)
                for nxt in follow:
                    send(nxt)
        return plan.response()

    def _call(self, plan: BatchPlan, chunk: Chunk, stubs: list[Any]) -> _Outcome:
        remaining = plan.remaining_s()
        if chunk.delay_s > 0:
            time.sleep(chunk.delay_s if remaining is None else max(0.0, min(chunk.delay_s, remaining)))
            remaining = plan.remaining_s()
        if remaining is not None and remaining <= 0:
            return None
        try:
            return stubs[chunk.replica].Score(plan.request(chunk), timeout=remaining)
        except grpc.RpcError as error:
            return error

    def score_stream(
        self,
        samples: Iterable[SampleLike],
        *,
        group_options: GroupOptionsLike = None,
        timeout: Optional[float] = None,
        batched: bool = True,
    ) -> Iterator[Result]:
        """One ScoreStream call on the next replica: results as they are decided (not in input order),
        the last of each group carrying its summary. No batching or retry: use score() for those.
        By default over ScoreStreamBatches, which carries the results that became ready together in
        one message (far less grpcio work per result); `batched=False` calls ScoreStream, one message
        per result, for a server older than ScoreStreamBatches."""
        targets, stubs = self._replicas.current()
        replica = self._next_stream % len(targets)
        self._next_stream += 1
        sent = [as_sample(s) for s in samples]
        request = request_to_proto(sent, GroupOptions.of(group_options))
        timeout = timeout if timeout is not None else self.timeout
        try:
            if batched:
                group_ids = [s.group_id for s in sent]
                for batch in stubs[replica].ScoreStreamBatches(request, timeout=timeout):
                    yield from results_from_batch(batch, group_ids, targets[replica])
            else:
                for message in stubs[replica].ScoreStream(request, timeout=timeout):
                    yield result_from_proto(message, targets[replica])
        except grpc.RpcError as error:
            raise VerdictError(error.code(), error.details() or "") from error

    def list_verifiers(self) -> list[dict[str, Any]]:
        """Each verifier: name, version, description, label_schema (JSON Schema text), the config
        sections it reads, and an example sample (None from a server older than the field)."""
        reply = self._replicas.current()[1][0].ListVerifiers(score_pb2.ListVerifiersRequest(), timeout=self.timeout)
        return [
            {
                "name": v.name,
                "version": v.version,
                "description": v.description,
                "label_schema": v.label_schema,
                "sections": list(v.sections),
                "example": json_format.MessageToDict(v.example) if v.HasField("example") else None,
            }
            for v in reply.verifiers
        ]

    @property
    def targets(self) -> list[str]:
        """The replicas now: plain targets as given, dns:/// names as their addresses."""
        return self._replicas.addresses

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for channel in self._replicas.close():
            channel.close()

    def __enter__(self) -> "VerdictClient":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
