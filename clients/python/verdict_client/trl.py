"""A TRL reward function that scores over gRPC:

    from verdict_client import trl as verdict_trl
    trainer = GRPOTrainer(..., reward_funcs=[verdict_trl.reward("verdict:50051", verifier="math", label_field="gold")])

TRL's GRPOTrainer calls each reward function as `f(prompts=..., completions=..., completion_ids=...,
**columns)`: `columns` are the dataset's other columns, one value per completion, plus `trainer_state`,
`log_extra` and `log_metric`. A completion is a string, or (conversational datasets) a list of
messages whose last is the assistant's. The function returns one float per completion, or None for
one it has no reward for: TRL leaves a None out of that completion's reward (it becomes NaN, which
its nansum skips), so a sample Verdict could not score (ABORTED: a sandbox or judge failure) or
that is malformed (INVALID: a data bug, logged with its reason) never becomes a reward of 0.

The label is the `label_column` cell, read as the trainer routes read one (labels.py): a JSON
object is the label (its "verifier" key picks the verifier), a plain value fills `label_field`
("gold" → {"gold": v}). Status and reason go to TRL's completions table through `log_extra`, and the
share of completions without a reward to its metrics through `log_metric`.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Optional, Sequence

from .client import VerdictClient
from .labels import LabelError, Route, trainer_label
from .messages import Sample
from .replicas import Targets, Tls

log = logging.getLogger("verdict_client.trl")


def _text(completion: Any) -> str:
    """A completion as TRL hands it: a string, or a list of messages (the last one's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content", "")
        if isinstance(content, str):
            return content
        # Multimodal content: a list of parts, the text ones joined.
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")
    raise TypeError(f"completion: expected a string or a list of messages, got {type(completion).__name__}")


def _metadata(prompt: Any) -> dict[str, Any]:
    if isinstance(prompt, str):
        return {"prompt": prompt}
    if isinstance(prompt, list):
        return {"messages": prompt}
    return {}


class VerdictReward:
    """The callable `reward()` returns; `__name__` is what TRL names its reward column (`rewards/<name>/mean`)."""

    def __init__(self, client: VerdictClient, route: Route, label_column: str, name: str):
        self.client = client
        self.route = route
        self.label_column = label_column
        self.__name__ = name

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None, **columns: Any) -> list[Optional[float]]:
        labels = columns.get(self.label_column)
        if labels is None:
            raise KeyError(f"verdict_client.trl: the dataset has no {self.label_column!r} column (reward(..., label_column=...) names it)")
        samples: list[Optional[Sample]] = []
        unreadable: dict[int, str] = {}
        for i, (prompt, completion, raw) in enumerate(zip(prompts, completions, labels)):
            try:
                verifier, label = trainer_label(raw, self.route, f"{self.label_column}[{i}]")
            except LabelError as error:
                unreadable[i] = str(error)
                samples.append(None)
                continue
            samples.append(Sample(verifier=verifier, response=_text(completion), label=label, id=str(i), metadata=_metadata(prompt)))
        sent = [s for s in samples if s is not None]
        results = iter(self.client.score(sent).results if sent else [])
        rewards: list[Optional[float]] = []
        statuses: list[str] = []
        reasons: list[str] = []
        for i, sample in enumerate(samples):
            if sample is None:
                rewards.append(None)
                statuses.append("INVALID")
                reasons.append(unreadable[i])
                log.error("verdict_client.trl: completion %d has no reward: INVALID %s", i, unreadable[i])
                continue
            result = next(results)
            rewards.append(result.reward if result.ok else None)
            statuses.append(result.status)
            reasons.append(result.reason)
            if result.status == "INVALID":
                log.error("verdict_client.trl: completion %d has no reward: INVALID %s", i, result.reason)
            elif result.status == "ABORTED":
                log.warning("verdict_client.trl: completion %d has no reward: ABORTED %s", i, result.reason)
        log_extra: Optional[Callable[[str, list[Any]], None]] = columns.get("log_extra")
        if log_extra is not None:
            log_extra("verdict_status", statuses)
            log_extra("verdict_reason", reasons)
        log_metric: Optional[Callable[[str, float], None]] = columns.get("log_metric")
        if log_metric is not None and rewards:
            log_metric(f"{self.__name__}/unscored_fraction", sum(r is None for r in rewards) / len(rewards))
        return rewards


def reward(
    targets: Targets,
    *,
    verifier: str = "",
    label_field: Optional[str] = None,
    label_column: str = "label",
    name: str = "verdict",
    timeout: Optional[float] = 300.0,
    retries: int = 2,
    token: Optional[str] = None,
    tls: Optional[Tls] = None,
) -> VerdictReward:
    """A reward function for TRL's `reward_funcs`, scoring with the Verdict replicas at `targets`.

    `verifier` is used for labels that do not name one; `label_field` is the field a plain label
    fills ("gold", "answers[]"); `label_column` is the dataset column holding the labels.
    """
    client = VerdictClient(targets, timeout=timeout, retries=retries, token=token, tls=tls)
    return VerdictReward(client, Route(verifier, label_field), label_column, name)
