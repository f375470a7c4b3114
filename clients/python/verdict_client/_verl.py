"""verl custom reward functions that score over gRPC (loaded through verdict_client.verl).

    custom_reward_function.path=pkg://verdict_client.verl   (or the file path of verdict_client/verl.py)
    custom_reward_function.name=compute_score            # reward manager naive (one sample per call; the
                                                         # reward loop's, verl's default, calls it from threads)
    custom_reward_function.name=compute_score_batch      # reward manager batch: the legacy path only,
                                                         # reward_model.use_reward_loop=False

`data_source` picks the verifier through a routing table (`verdict_routes`): `{"openai/gsm8k": {"verifier": "math",
"label_field": "gold"}, "sciq": {"verifier": "qa", "label_field": "answers[]"}, "*": "qa"}`; a
ground truth that is a JSON object (or a dict) is the label itself and may name its own "verifier".
Settings come from `custom_reward_function.reward_kwargs` (verl passes them as keyword arguments) or
else the environment:

    verdict_targets / VERDICT_TARGETS          "host:50051" or "a:50051,b:50051"
    verdict_routes  / VERDICT_ROUTES           the routing table (a dict, or its JSON)
    group_options   / VERDICT_GROUP_OPTIONS    GroupOptions for compute_score_batch (dict or JSON)
    verdict_reward  / VERDICT_REWARD           compute_score_batch returns "reward" (default) or "advantage"
    timeout         / VERDICT_TIMEOUT          seconds per call (default 300)
    invalid_share   / VERDICT_INVALID_SHARE    compute_score_batch raises VerdictBatchError when at least this
                                               share of the batch is INVALID (default 1.0: all of it)

A route may also name `chat_format` and `tool_format`: how the server reads a string prompt back into
messages and counts the tool calls of a text trajectory. verl passes no prompt to a reward function:
put the conversation in extra_info["messages"] (OpenAI chat messages) or the templated prompt in
extra_info["prompt"]. What the rollout knows besides its text is passed on as sample metadata too
(labels.TRAJECTORY_KEYS): extra_info["tool_calls"] ({"total", "successful", "malformed"}), "tools",
"termination", and the episode's state, "initialState"/"finalState" (agent_state) or
"workspace"/"environment" (terminal); verl's reward loop merges an agent loop's `tool_extra_fields`
into extra_info, so an agent loop can hand them over there.

ABORTED (after the client's retries on other replicas) and INVALID (an unreadable label included):
verl has no way to drop a sample from a reward function. `compute_score` raises VerdictSampleError —
a crash is loud, a stand-in 0 would silently teach the policy (verl's `prime` manager turns
exceptions into 0.0 itself: do not use it). `compute_score_batch` sees whole groups and returns the
mean OK reward of the sample's group (a warning is logged): the group mean is unchanged and the
sample's own advantage is 0, but with std normalization (verl's GRPO default) the others'
advantages grow by sqrt(n/(n-1)) for n OK samples, because the stand-in adds a sample at the mean.
With verdict_reward="advantage" it returns Verdict's advantages instead (group_options.advantage
"grpo" or "mean", computed over OK samples only) and 0.0 for a dropped sample; with
algorithm.norm_adv_by_std_in_grpo=False verl then only subtracts the group mean, which is 0, so every
other advantage is exactly the one computed without the dropped sample.

Groups are keyed by extra_info["group_id"] when given, else by data_source plus extra_info["index"]
and extra_info["uid"] (verl's own preprocessing numbers every dataset from 0, so the index alone would
merge prompts of different datasets), else by (data_source, ground_truth). verl does not pass token
counts: set extra_info["response_tokens"] to use the length penalty.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any, Mapping, Optional, Sequence, Union

from ._prepared import Prepared, merge, prepare, to_send
from .client import VerdictClient
from .labels import Route, parse_routes, plain, route_for, route_metadata, trainer_label, trajectory_metadata
from .messages import GroupOptions, Result, Sample

log = logging.getLogger("verdict_client.verl")

_lock = threading.Lock()
_clients: dict[tuple[str, float], VerdictClient] = {}


class VerdictBatchError(RuntimeError):
    """Too much of a compute_score_batch call was INVALID: a configuration mistake, not a batch of zeros."""

    def __init__(self, message: str, results: Sequence[Result]):
        super().__init__(message)
        self.results = list(results)


class VerdictSampleError(RuntimeError):
    """The sample got no reward (ABORTED after retries, or INVALID)."""

    def __init__(self, result: Result):
        super().__init__(f"verdict: {result.status} {result.reason} (verifier {result.verifier!r})")
        self.result = result


def _setting(kwargs: Mapping[str, Any], name: str, env: str) -> Any:
    value = kwargs.get(name)
    return value if value is not None else os.environ.get(env) or None


def _client(kwargs: Mapping[str, Any]) -> VerdictClient:
    targets = _setting(kwargs, "verdict_targets", "VERDICT_TARGETS")
    if not targets:
        raise RuntimeError("set reward_kwargs.verdict_targets or VERDICT_TARGETS (e.g. verdict:50051)")
    timeout = float(_setting(kwargs, "timeout", "VERDICT_TIMEOUT") or 300.0)
    key = (targets if isinstance(targets, str) else ",".join(targets), timeout)
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = VerdictClient(targets, timeout=timeout)
        return client


def _routes(kwargs: Mapping[str, Any]) -> dict[str, Route]:
    return parse_routes(_setting(kwargs, "verdict_routes", "VERDICT_ROUTES"))


def _group_options(kwargs: Mapping[str, Any]) -> Optional[GroupOptions]:
    raw: Union[str, Mapping[str, Any], None] = _setting(kwargs, "group_options", "VERDICT_GROUP_OPTIONS")
    if raw is None:
        return None
    return GroupOptions.of(json.loads(raw) if isinstance(raw, str) else raw)


# extra_info keys passed on as sample metadata: the prompt conversation (verl passes no prompt), then
# what the rollout knows besides its text (labels.TRAJECTORY_KEYS).
_PROMPT_METADATA = ("messages", "prompt")


def to_verdict_sample(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]], routes: Mapping[str, Route], group_id: str = "") -> Sample:
    route = route_for(routes, data_source)
    verifier, label = trainer_label(ground_truth, route, "ground_truth")
    extra = extra_info or {}
    metadata: dict[str, Any] = {"data_source": data_source, **route_metadata(route)}
    metadata.update({key: plain(extra[key]) for key in _PROMPT_METADATA if extra.get(key) is not None})
    metadata.update(trajectory_metadata(extra))
    return Sample(
        verifier=verifier,
        response=solution_str,
        label=label,
        id=str(extra.get("index", "")),
        group_id=group_id,
        response_tokens=int(extra.get("response_tokens", 0) or 0),
        metadata=metadata,
    )


def _prepare(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]], routes: Mapping[str, Route], index: int, group_id: str = "") -> Prepared:
    return prepare(
        lambda: to_verdict_sample(data_source, solution_str, ground_truth, extra_info, routes, group_id),
        index,
        route_for(routes, data_source).verifier,
        str((extra_info or {}).get("index", "")),
    )


def _score(kwargs: Mapping[str, Any], prepared: Sequence[Prepared], options: Optional[GroupOptions] = None) -> list[Result]:
    samples = to_send(prepared)
    scored = _client(kwargs).score(samples, group_options=options).results if samples else []
    return merge(prepared, scored)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> float:
    """verl's per-sample reward function (naive reward manager)."""
    result = _score(kwargs, [_prepare(data_source, solution_str, ground_truth, extra_info, _routes(kwargs), 0)])[0]
    if not result.ok or result.reward is None:
        raise VerdictSampleError(result)
    return float(result.reward)


def group_key(data_source: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]]) -> str:
    """The group of a rollout: extra_info group_id, else data source + index (+ uid), else data source + ground truth."""
    extra = extra_info or {}
    if extra.get("group_id") is not None:
        return str(extra["group_id"])
    parts = [str(data_source)] + [f"{name}={extra[name]}" for name in ("index", "uid") if extra.get(name) is not None]
    if len(parts) == 1:
        parts.append(json.dumps(ground_truth, sort_keys=True, default=str))
    return json.dumps(parts)


def _invalid_share(kwargs: Mapping[str, Any]) -> float:
    raw = _setting(kwargs, "invalid_share", "VERDICT_INVALID_SHARE")
    value = 1.0 if raw is None else float(raw)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"invalid_share: expected a share in (0, 1], got {value!r}")
    return value


def _rollout(index: int, data_source: str, extra: Optional[Mapping[str, Any]]) -> str:
    """A rollout by its place in the batch: extra_info["index"] is the prompt's, shared by its n rollouts."""
    prompt = (extra or {}).get("index")
    return f"rollout {index} ({data_source}" + ("" if prompt is None else f", prompt index {prompt}") + ")"


def _returned(kwargs: Mapping[str, Any]) -> str:
    value = str(_setting(kwargs, "verdict_reward", "VERDICT_REWARD") or "reward")
    if value not in ("reward", "advantage"):
        raise ValueError(f'verdict_reward: expected "reward" or "advantage", got {value!r}')
    return value


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    **kwargs: Any,
) -> list[float]:
    """verl's batched reward function (batch reward manager): one Score call for the whole batch."""
    routes = _routes(kwargs)
    returned = _returned(kwargs)
    options = _group_options(kwargs)
    if returned == "advantage" and (options is None or not options.advantage):
        raise ValueError('verdict_reward="advantage" needs group_options with advantage "grpo" or "mean"')
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    keys = [group_key(d, g, e) for d, g, e in zip(data_sources, ground_truths, extras)]
    prepared = [
        _prepare(d, s, g, e, routes, i, key)
        for i, (d, s, g, e, key) in enumerate(zip(data_sources, solution_strs, ground_truths, extras, keys))
    ]
    threshold = _invalid_share(kwargs)
    results = _score(kwargs, prepared, options)
    invalid = [i for i, r in enumerate(results) if r.status == "INVALID"]
    if results and len(invalid) / len(results) >= threshold:
        first = invalid[0]
        raise VerdictBatchError(
            f"verdict: {len(invalid)} of {len(results)} samples INVALID (invalid_share {threshold:g} reached); "
            f"first, {_rollout(first, data_sources[first], extras[first])}: {results[first].reason}",
            results,
        )
    sums: dict[str, list[float]] = {}
    for result, key in zip(results, keys):
        if result.ok and result.reward is not None:
            sums.setdefault(key, []).append(float(result.reward))
    scores: list[float] = []
    dropped = 0
    for i, (result, key) in enumerate(zip(results, keys)):
        if result.ok and result.reward is not None:
            scores.append(float(result.advantage or 0.0) if returned == "advantage" else float(result.reward))
            continue
        dropped += 1
        ok = sums.get(key, [])
        stand_in = 0.0 if returned == "advantage" or not ok else sum(ok) / len(ok)
        scores.append(stand_in)
        log.warning("verdict: %s %s %s: no reward, scored %s (zero advantage)", _rollout(i, data_sources[i], extras[i]), result.status, result.reason, stand_in)
    if dropped:
        log.warning("verdict: %d of %d samples had no reward", dropped, len(results))
    return scores
