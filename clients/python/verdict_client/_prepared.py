"""Samples whose trainer label could not be read never reach the server: they get their INVALID result
here, so every protocol drops them the same way (over HTTP the route answers INVALID for them too).
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

from .labels import LabelError
from .messages import Result, Sample

# A sample to send, or the INVALID result its label already decided.
Prepared = Union[Sample, Result]


def prepare(build: Callable[[], Sample], index: int, verifier: str, sample_id: str = "") -> Prepared:
    """`build()`, or an INVALID result naming the label's problem when it raises LabelError."""
    try:
        return build()
    except LabelError as error:
        return Result(
            id=sample_id,
            index=index,
            status="INVALID",
            reward=None,
            reason=str(error),
            verifier=verifier,
            verifier_version="",
            details={"client": True},
        )


def to_send(prepared: Sequence[Prepared]) -> list[Sample]:
    return [p for p in prepared if isinstance(p, Sample)]


def merge(prepared: Sequence[Prepared], scored: Sequence[Result]) -> list[Result]:
    """The results in input order: the scored ones where a sample was sent, the local ones elsewhere."""
    answers = iter(scored)
    return [next(answers) if isinstance(p, Sample) else p for p in prepared]
