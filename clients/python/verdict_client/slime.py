"""slime custom reward functions that score over gRPC.

    --custom-rm-path verdict_client.slime.reward                     # one sample per call
    --custom-rm-path verdict_client.slime.reward_group --group-rm    # a whole group per call

Configured by environment (slime passes only its own `args`):

    VERDICT_TARGETS        "host:50051" or "a:50051,b:50051" (replicas; ABORTED samples are retried on the next)
    VERDICT_VERIFIER       verifier for labels that do not name one (a label object's "verifier" key wins)
    VERDICT_LABEL_FIELD    label field a plain label fills, e.g. "gold" or "answers[]"
    VERDICT_GROUP_OPTIONS  JSON GroupOptions for reward_group, e.g. {"length_penalty": true, "max_length": 30000}
    VERDICT_TIMEOUT        seconds per call (default 300); VERDICT_RETRIES (default 2)

A sample that still has no reward after the retries (ABORTED, or INVALID: a data bug) is dropped the
way slime drops samples: `sample.remove_sample = True` (its loss mask becomes all zeros). slime still
wants a number for it, and that number enters the group's reward normalization, so reward_group
returns the mean of the group's OK rewards (the group mean, hence every other advantage, is then
unchanged); `reward`, which sees one sample, has no group to be neutral in and returns 0.0 — prefer
reward_group. Every sample gets `metadata["verdict"]` (status, reason, raw reward, advantage) and,
from reward_group, `metadata["verdict_group"]` (the GroupSummary, with the dynamic-sampling `keep`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import weakref
from dataclasses import asdict
from typing import Any, Optional, Sequence

from .aio import AsyncVerdictClient
from .labels import Route, trainer_label
from .messages import GroupOptions, Result, Sample

log = logging.getLogger("verdict_client.slime")

# grpc.aio channels belong to one event loop: one client per (loop, targets).
_clients: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, AsyncVerdictClient]]" = weakref.WeakKeyDictionary()


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    return float(value) if value else default


def _client() -> AsyncVerdictClient:
    targets = os.environ.get("VERDICT_TARGETS", "")
    if not targets:
        raise RuntimeError("VERDICT_TARGETS is not set (e.g. VERDICT_TARGETS=verdict:50051)")
    per_loop = _clients.setdefault(asyncio.get_running_loop(), {})
    client = per_loop.get(targets)
    if client is None:
        client = per_loop[targets] = AsyncVerdictClient(
            targets,
            timeout=_env_float("VERDICT_TIMEOUT", 300.0),
            retries=int(_env_float("VERDICT_RETRIES", 2)),
        )
    return client


def _route() -> Route:
    return Route(os.environ.get("VERDICT_VERIFIER", ""), os.environ.get("VERDICT_LABEL_FIELD") or None)


def _group_options() -> Optional[GroupOptions]:
    raw = os.environ.get("VERDICT_GROUP_OPTIONS", "")
    return GroupOptions.of(json.loads(raw)) if raw else None


def to_verdict_sample(sample: Any, route: Route, group_id: str = "") -> Sample:
    """A slime Sample (prompt, response, label, response_length, index, metadata) → a Verdict Sample."""
    verifier, label = trainer_label(sample.label, route, "sample.label")
    prompt = sample.prompt
    metadata: dict[str, Any] = {"messages": list(prompt)} if isinstance(prompt, list) else {"prompt": prompt or ""}
    return Sample(
        verifier=verifier,
        response=sample.response,
        label=label,
        id="" if sample.index is None else str(sample.index),
        group_id=group_id,
        response_tokens=int(sample.response_length or 0),
        metadata=metadata,
    )


def _record(sample: Any, result: Result) -> None:
    if sample.metadata is None:
        sample.metadata = {}
    sample.metadata["verdict"] = {
        "status": result.status,
        "reason": result.reason,
        "verifier": result.verifier,
        "raw_reward": result.details.get("rawReward", result.reward),
        "advantage": result.advantage,
        "replica": result.replica,
    }


def _drop(sample: Any, result: Result) -> None:
    log.warning("verdict: dropping sample %s: %s %s", sample.index, result.status, result.reason)
    sample.remove_sample = True


async def reward(args: Any, sample: Any) -> float:
    """slime's single-sample custom RM."""
    response = await _client().score([to_verdict_sample(sample, _route())])
    result = response.results[0]
    _record(sample, result)
    if result.ok:
        return float(result.reward)
    _drop(sample, result)
    return 0.0


def _group_key(sample: Any) -> str:
    return "g" if sample.group_index is None else f"g{sample.group_index}"


async def reward_group(args: Any, samples: Sequence[Any]) -> list[float]:
    """slime's batched custom RM (--group-rm): one request per call, shaped per group."""
    route = _route()
    keys = [_group_key(s) for s in samples]
    response = await _client().score(
        [to_verdict_sample(s, route, key) for s, key in zip(samples, keys)],
        group_options=_group_options(),
    )
    neutral: dict[str, float] = {}
    for key in set(keys):
        ok = [r.reward for r, k in zip(response.results, keys) if k == key and r.ok]
        neutral[key] = sum(ok) / len(ok) if ok else 0.0
    rewards: list[float] = []
    for sample, result, key in zip(samples, response.results, keys):
        _record(sample, result)
        summary = response.group(key)
        if summary is not None:
            sample.metadata["verdict_group"] = asdict(summary)
        if result.ok:
            rewards.append(float(result.reward))
        else:
            _drop(sample, result)
            rewards.append(neutral[key])
    return rewards
