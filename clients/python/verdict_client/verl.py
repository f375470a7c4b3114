"""verl custom reward functions that score over gRPC.

    custom_reward_function.path=<site>/verdict_client/verl.py
    custom_reward_function.name=compute_score            # reward_model.reward_manager=naive (one sample per call)
    custom_reward_function.name=compute_score_batch      # reward_model.reward_manager=batch

`data_source` picks the verifier through a routing table (`verdict_routes`): `{"openai/gsm8k": {"verifier": "math",
"label_field": "gold"}, "sciq": {"verifier": "qa", "label_field": "answers[]"}, "*": "qa"}`; a
ground truth that is a JSON object (or a dict) is the label itself and may name its own "verifier".
Settings come from `custom_reward_function.reward_kwargs` (verl passes them as keyword arguments) or
else the environment:

    verdict_targets / VERDICT_TARGETS          "host:50051" or "a:50051,b:50051"
    verdict_routes  / VERDICT_ROUTES           the routing table (a dict, or its JSON)
    group_options   / VERDICT_GROUP_OPTIONS    GroupOptions for compute_score_batch (dict or JSON)
    timeout         / VERDICT_TIMEOUT          seconds per call (default 300)

ABORTED (after the client's retries on other replicas) and INVALID: verl has no way to drop a sample
from a reward function. `compute_score` raises VerdictSampleError — a crash is loud, a stand-in 0
would silently teach the policy (note verl's `prime` manager turns exceptions into 0.0 itself).
`compute_score_batch` sees whole groups, so it returns the mean OK reward of the sample's group:
that leaves the group mean unchanged and gives the sample a zero advantage, so it contributes no
policy gradient; it logs a warning. Groups are keyed by extra_info["group_id"], ["uid"] or ["index"],
else by (data_source, ground_truth). verl does not pass token counts: set
extra_info["response_tokens"] to use the length penalty.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any, Mapping, Optional, Sequence, Union

# Absolute imports: verl loads custom_reward_function.path as a file, outside its package.
from verdict_client.client import VerdictClient
from verdict_client.labels import Route, parse_routes, route_for, trainer_label
from verdict_client.messages import GroupOptions, Result, Sample

log = logging.getLogger("verdict_client.verl")

_lock = threading.Lock()
_clients: dict[tuple[str, float], VerdictClient] = {}


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


def to_verdict_sample(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]], routes: Mapping[str, Route], group_id: str = "") -> Sample:
    verifier, label = trainer_label(ground_truth, route_for(routes, data_source), "ground_truth")
    extra = extra_info or {}
    return Sample(
        verifier=verifier,
        response=solution_str,
        label=label,
        id=str(extra.get("index", "")),
        group_id=group_id,
        response_tokens=int(extra.get("response_tokens", 0) or 0),
        metadata={"data_source": data_source},
    )


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> float:
    """verl's per-sample reward function (naive reward manager)."""
    sample = to_verdict_sample(data_source, solution_str, ground_truth, extra_info, _routes(kwargs))
    result = _client(kwargs).score([sample]).results[0]
    if not result.ok:
        raise VerdictSampleError(result)
    return float(result.reward)


def _group_key(data_source: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]]) -> str:
    extra = extra_info or {}
    for name in ("group_id", "uid", "index"):
        if extra.get(name) is not None:
            return f"{name}:{extra[name]}"
    return f"{data_source}:{json.dumps(ground_truth, sort_keys=True, default=str)}"


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    **kwargs: Any,
) -> list[float]:
    """verl's batched reward function (batch reward manager): one Score call for the whole batch."""
    routes = _routes(kwargs)
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    keys = [_group_key(d, g, e) for d, g, e in zip(data_sources, ground_truths, extras)]
    samples = [
        to_verdict_sample(d, s, g, e, routes, key)
        for d, s, g, e, key in zip(data_sources, solution_strs, ground_truths, extras, keys)
    ]
    results = _client(kwargs).score(samples, group_options=_group_options(kwargs)).results
    sums: dict[str, list[float]] = {}
    for result, key in zip(results, keys):
        if result.ok:
            sums.setdefault(key, []).append(float(result.reward))
    scores: list[float] = []
    dropped = 0
    for result, key in zip(results, keys):
        if result.ok:
            scores.append(float(result.reward))
            continue
        dropped += 1
        ok = sums.get(key, [])
        scores.append(sum(ok) / len(ok) if ok else 0.0)
        log.warning("verdict: sample %s %s %s: scored at its group mean (zero advantage)", result.id, result.status, result.reason)
    if dropped:
        log.warning("verdict: %d of %d samples had no reward", dropped, len(results))
    return scores
