"""Typed views of the Score API messages, and their conversion to and from the generated stubs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping, Optional, Sequence, Union

from google.protobuf import json_format, struct_pb2

from verdict.v1 import score_pb2

Status = Literal["OK", "INVALID", "ABORTED"]

_STATUS_FROM_PROTO: dict[int, Status] = {
    score_pb2.STATUS_OK: "OK",
    score_pb2.STATUS_INVALID: "INVALID",
    score_pb2.STATUS_ABORTED: "ABORTED",
}


@dataclass
class Sample:
    """One rollout to score; the proto's `Sample`."""

    verifier: str
    response: str
    label: dict[str, Any] = field(default_factory=dict)
    id: str = ""
    group_id: str = ""
    response_tokens: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)


SampleLike = Union[Sample, Mapping[str, Any]]


@dataclass(frozen=True)
class GroupOptions:
    """Opt-in group shaping; the proto's `GroupOptions` (defaults applied by the server)."""

    length_penalty: bool = False
    length_penalty_max: float = 0.0
    max_length: int = 0
    keep_min: Optional[float] = None
    keep_max: Optional[float] = None
    min_valid: int = 0
    advantage: Literal["", "grpo", "mean"] = ""

    @staticmethod
    def of(value: Union["GroupOptions", Mapping[str, Any], None]) -> Optional["GroupOptions"]:
        if value is None or isinstance(value, GroupOptions):
            return value
        return GroupOptions(**dict(value))


@dataclass(frozen=True)
class GroupSummary:
    group_id: str
    size: int
    ok: int
    aborted: int
    invalid: int
    mean_reward: Optional[float]
    mean_raw_reward: Optional[float]
    shortest_correct: Optional[int]
    keep: bool
    keep_reason: str


@dataclass(frozen=True)
class Result:
    """The verdict on one sample. `reward` is set only when `status == "OK"`."""

    id: str
    index: int
    status: Status
    reward: Optional[float]
    reason: str
    verifier: str
    verifier_version: str
    details: dict[str, Any]
    advantage: Optional[float] = None
    # score_stream() only: the summary of the group this result completed.
    group: Optional[GroupSummary] = None
    # The target that answered, and how many attempts the sample took (retries of ABORTED ones).
    replica: str = ""
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.status == "OK"


@dataclass(frozen=True)
class ScoreResponse:
    results: list[Result]
    groups: list[GroupSummary]

    def group(self, group_id: str) -> Optional[GroupSummary]:
        return next((g for g in self.groups if g.group_id == group_id), None)


def as_sample(value: SampleLike) -> Sample:
    if isinstance(value, Sample):
        return value
    return Sample(**dict(value))


def _struct(value: Mapping[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(dict(value))
    return struct


def sample_to_proto(sample: Sample) -> score_pb2.Sample:
    return score_pb2.Sample(
        id=sample.id,
        verifier=sample.verifier,
        response=sample.response,
        label=_struct(sample.label),
        group_id=sample.group_id,
        response_tokens=sample.response_tokens,
        metadata=_struct(sample.metadata),
    )


def group_options_to_proto(options: GroupOptions) -> score_pb2.GroupOptions:
    message = score_pb2.GroupOptions(
        length_penalty=options.length_penalty,
        length_penalty_max=options.length_penalty_max,
        max_length=options.max_length,
        min_valid=options.min_valid,
        advantage=options.advantage,
    )
    if options.keep_min is not None:
        message.keep_min = options.keep_min
    if options.keep_max is not None:
        message.keep_max = options.keep_max
    return message


def request_to_proto(samples: list[Sample], options: Optional[GroupOptions]) -> score_pb2.ScoreRequest:
    request = score_pb2.ScoreRequest(samples=[sample_to_proto(s) for s in samples])
    if options is not None:
        request.group_options.CopyFrom(group_options_to_proto(options))
    return request


def _optional(message: Any, name: str) -> Any:
    return getattr(message, name) if message.HasField(name) else None


def group_from_proto(message: score_pb2.GroupSummary) -> GroupSummary:
    return GroupSummary(
        group_id=message.group_id,
        size=message.size,
        ok=message.ok,
        aborted=message.aborted,
        invalid=message.invalid,
        mean_reward=_optional(message, "mean_reward"),
        mean_raw_reward=_optional(message, "mean_raw_reward"),
        shortest_correct=_optional(message, "shortest_correct"),
        keep=message.keep,
        keep_reason=message.keep_reason,
    )


def result_from_proto(message: score_pb2.ScoreResult, replica: str = "", attempts: int = 1) -> Result:
    status = _STATUS_FROM_PROTO.get(message.status)
    if status is None:
        raise ValueError(f"result {message.index}: unexpected status {message.status}")
    return Result(
        id=message.id,
        index=message.index,
        status=status,
        reward=_optional(message, "reward"),
        reason=message.reason,
        verifier=message.verifier,
        verifier_version=message.verifier_version,
        details=json_format.MessageToDict(message.details),
        advantage=_optional(message, "advantage"),
        group=group_from_proto(message.group) if message.HasField("group") else None,
        replica=replica,
        attempts=attempts,
    )


def results_from_batch(message: score_pb2.ScoreResponse, group_ids: Sequence[str], replica: str = "") -> list[Result]:
    """The results of one ScoreStreamBatches message as ScoreStream would have sent them: each group
    summary on the last result of its group in the message. `group_ids`: the request's, by index."""
    results = [result_from_proto(r, replica) for r in message.results]
    if message.groups:
        last = {group_ids[r.index]: k for k, r in enumerate(results) if r.index < len(group_ids)}
        for summary in message.groups:
            k = last.get(summary.group_id)
            if k is not None:
                results[k] = replace(results[k], group=group_from_proto(summary))
    return results


def aborted_result(sample: Sample, index: int, reason: str, replica: str, attempts: int, details: Optional[dict[str, Any]] = None) -> Result:
    """A result decided on the client side: the call itself failed, so the sample was not scored."""
    return Result(
        id=sample.id,
        index=index,
        status="ABORTED",
        reward=None,
        reason=reason,
        verifier=sample.verifier,
        verifier_version="",
        details={"client": True, **(details or {})},
        replica=replica,
        attempts=attempts,
    )
