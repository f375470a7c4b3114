"""slime custom reward functions that score over gRPC.

    --custom-rm-path verdict_client.slime.reward                     # one sample per call
    --custom-rm-path verdict_client.slime.reward_group --group-rm    # a whole group per call

Configured by environment (slime passes only its own `args`):

    VERDICT_TARGETS        "host:50051" or "a:50051,b:50051" (replicas; ABORTED samples are retried on the next)
    VERDICT_VERIFIER       verifier for labels that do not name one (a label object's "verifier" key wins)
    VERDICT_LABEL_FIELD    label field a plain label fills, e.g. "gold" or "answers[]"
    VERDICT_GROUP_OPTIONS  JSON GroupOptions for reward_group, e.g. {"length_penalty": true, "max_length": 30000}
    VERDICT_TIMEOUT        seconds per call (default 300); VERDICT_RETRIES (default 2)
    VERDICT_CHAT_FORMAT    the template of a string prompt (--apply-chat-template): chatml, glm4.5, llama3,
                           deepseek-r1, or plain (the prompt is the user's message); read back into messages by the server
    VERDICT_TOOL_FORMAT    the tool-call format of a multi-turn response: hermes, glm4.5 (or implied by the chat format)

The prompt goes as metadata.messages (a message list) or metadata.prompt (a string); what a custom
generate function put in sample.metadata under labels.TRAJECTORY_KEYS ("tool_calls", "tools",
"termination", "initialState"/"finalState" for agent_state, "workspace"/"environment" for terminal)
is passed on as sample metadata too.

A sample that still has no reward after the retries (ABORTED, or INVALID: a data bug, an unreadable
label included) is dropped the way slime drops samples: `sample.remove_sample = True`, which makes
its loss mask all zeros — and nothing else: slime still wants a number for it, and that number enters
the group's reward normalization. reward_group returns the mean of the group's OK rewards: the group
mean is unchanged, but with slime's default std normalization the stand-in (a sample at the mean)
shrinks the group std, so every other advantage grows by sqrt(n/(n-1)) for n OK samples. `reward`,
which sees one sample, returns 0.0, which moves the mean as well — prefer reward_group. To keep the
others' advantages exact, also pass

    --custom-reward-post-process-path verdict_client.slime.post_process_rewards

which normalizes each group as slime does but over the samples not removed, and gives removed ones 0.0.

Every sample gets `metadata["verdict"]` (status, reason, raw reward, advantage) and, from
reward_group, `metadata["verdict_group"]` (the GroupSummary, with the dynamic-sampling `keep`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import weakref
from dataclasses import asdict
from typing import Any, Optional, Sequence

from ._prepared import Prepared, merge, prepare, to_send
from .aio import AsyncVerdictClient
from .labels import Route, route_metadata, trainer_label, trajectory_metadata
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
    return Route(
        os.environ.get("VERDICT_VERIFIER", ""),
        os.environ.get("VERDICT_LABEL_FIELD") or None,
        os.environ.get("VERDICT_CHAT_FORMAT") or None,
        os.environ.get("VERDICT_TOOL_FORMAT") or None,
    )


def _group_options() -> Optional[GroupOptions]:
    raw = os.environ.get("VERDICT_GROUP_OPTIONS", "")
    return GroupOptions.of(json.loads(raw)) if raw else None


def to_verdict_sample(sample: Any, route: Route, group_id: str = "") -> Sample:
    """A slime Sample (prompt, response, label, response_length, index, metadata) → a Verdict Sample."""
    verifier, label = trainer_label(sample.label, route, "sample.label")
    prompt = sample.prompt
    metadata: dict[str, Any] = route_metadata(route)
    if isinstance(prompt, list):
        metadata["messages"] = list(prompt)
    elif prompt:
        metadata["prompt"] = prompt
    metadata.update(trajectory_metadata(sample.metadata if isinstance(sample.metadata, dict) else None))
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


def _prepare(sample: Any, route: Route, index: int, group_id: str = "") -> Prepared:
    """The Verdict sample, or the INVALID result of a label that cannot be read (a dropped sample, not a crash)."""
    sample_id = "" if sample.index is None else str(sample.index)
    return prepare(lambda: to_verdict_sample(sample, route, group_id), index, route.verifier, sample_id)


async def _score(prepared: Sequence[Prepared], options: Optional[GroupOptions] = None) -> tuple[list[Result], Any]:
    samples = to_send(prepared)
    response = await _client().score(samples, group_options=options) if samples else None
    return merge(prepared, response.results if response else []), response


async def reward(args: Any, sample: Any) -> float:
    """slime's single-sample custom RM."""
    results, _ = await _score([_prepare(sample, _route(), 0)])
    result = results[0]
    _record(sample, result)
    if result.ok and result.reward is not None:
        return float(result.reward)
    _drop(sample, result)
    return 0.0


def _group_key(sample: Any) -> str:
    return "g" if sample.group_index is None else f"g{sample.group_index}"


async def reward_group(args: Any, samples: Sequence[Any]) -> list[float]:
    """slime's batched custom RM (--group-rm): one request per call, shaped per group."""
    route = _route()
    keys = [_group_key(s) for s in samples]
    results, response = await _score([_prepare(s, route, i, key) for i, (s, key) in enumerate(zip(samples, keys))], _group_options())
    neutral: dict[str, float] = {}
    for key in set(keys):
        ok = [r.reward for r, k in zip(results, keys) if k == key and r.ok and r.reward is not None]
        neutral[key] = sum(ok) / len(ok) if ok else 0.0
    rewards: list[float] = []
    for sample, result, key in zip(samples, results, keys):
        _record(sample, result)
        summary = response.group(key) if response is not None else None
        if summary is not None:
            sample.metadata["verdict_group"] = asdict(summary)
        if result.ok and result.reward is not None:
            rewards.append(float(result.reward))
        else:
            _drop(sample, result)
            rewards.append(neutral[key])
    return rewards


# slime's group normalization applies to these estimators; the std division to the first three.
_NORMALIZED = ("grpo", "gspo", "cispo", "reinforce_plus_plus_baseline")
_STD_NORMALIZED = ("grpo", "gspo", "cispo")


def _reward_value(args: Any, sample: Any) -> float:
    value = sample.get_reward_value(args) if hasattr(sample, "get_reward_value") else sample.reward
    return float(value)


def post_process_rewards(args: Any, samples: Sequence[Any]) -> tuple[list[float], list[float]]:
    """`--custom-reward-post-process-path verdict_client.slime.post_process_rewards`.

    slime's own reward post-processing (group mean, then std for GRPO-like estimators, groups of
    n_samples_per_prompt consecutive samples, eps 1e-6, std with n-1), except that samples with
    `remove_sample` set are left out of their group's statistics and get 0.0: the others' advantages
    are exactly those of the group without the samples Verdict could not score. Returns
    (raw_rewards, rewards) as slime's hook expects; computed in float64.
    """
    flat = [s for group in samples for s in group] if samples and isinstance(samples[0], list) else list(samples)
    raw = [_reward_value(args, s) for s in flat]
    estimator = getattr(args, "advantage_estimator", "")
    if estimator not in _NORMALIZED or not getattr(args, "rewards_normalization", True):
        return raw, list(raw)
    size = int(getattr(args, "n_samples_per_prompt", 0) or 0)
    if size <= 0 or len(flat) != size * int(getattr(args, "rollout_batch_size", 0) or 0):
        size = len(flat)  # slime's own fallback: one group of everything
    divide = estimator in _STD_NORMALIZED and getattr(args, "grpo_std_normalization", True)
    rewards = [0.0] * len(flat)
    for start in range(0, len(flat), size):
        kept = [i for i in range(start, min(start + size, len(flat))) if not getattr(flat[i], "remove_sample", False)]
        if not kept:
            continue
        mean = sum(raw[i] for i in kept) / len(kept)
        std = (sum((raw[i] - mean) ** 2 for i in kept) / (len(kept) - 1)) ** 0.5 if len(kept) > 1 else 0.0
        for i in kept:
            rewards[i] = (raw[i] - mean) / (std + 1e-6) if divide else raw[i] - mean
    return raw, rewards
