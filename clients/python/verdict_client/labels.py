"""A trainer's label (a dataset cell) → the verifier and the Verdict label, as the HTTP trainer
routes do it (services/http/trainers.ts), so every protocol reads a dataset the same way:

- a JSON object (or a string holding one) is the label itself; its "verifier" key picks the verifier;
- any other value fills the route's label field: "gold" gives {"gold": v}, "answers[]" gives {"answers": [v]};
- None is an empty label, for the verifier's schema to judge (INVALID naming the missing field).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union


class LabelError(ValueError):
    """A label that cannot become a Verdict label (a plain value with no label field configured)."""


@dataclass(frozen=True)
class Route:
    verifier: str
    label_field: Optional[str] = None
    # How the server reads a string prompt back into messages (metadata.chat_format: chatml, glm4.5,
    # llama3, deepseek-r1, plain) and counts the tool calls of a text trajectory (metadata.tool_format:
    # hermes, glm4.5, openai); the server checks the values, naming the key.
    chat_format: Optional[str] = None
    tool_format: Optional[str] = None


RouteLike = Union[Route, str, Mapping[str, Any]]

_ROUTE_KEYS = ("verifier", "label_field", "chat_format", "tool_format")


def as_route(value: RouteLike, path: str = "route") -> Route:
    """A route from its table entry; a key it does not know is a ValueError naming it (a typo would
    otherwise leave a setting silently unset)."""
    if isinstance(value, Route):
        return value
    if isinstance(value, str):
        return Route(value)
    unknown = sorted(set(value) - set(_ROUTE_KEYS))
    if unknown:
        raise ValueError(f"{path}.{unknown[0]}: unknown key (known: {', '.join(_ROUTE_KEYS)})")
    if "verifier" not in value:
        raise ValueError(f"{path}.verifier: required")
    return Route(str(value["verifier"]), value.get("label_field"), value.get("chat_format"), value.get("tool_format"))


def parse_routes(value: Union[str, Mapping[str, RouteLike], None], path: str = "verdict_routes") -> dict[str, Route]:
    """{"openai/gsm8k": {"verifier": "math", "label_field": "gold"}, "sciq": "qa", "*": …} (or its JSON)."""
    if value is None or value == "":
        return {}
    mapping = json.loads(value) if isinstance(value, str) else value
    return {str(key): as_route(route, f"{path}[{json.dumps(str(key))}]") for key, route in mapping.items()}


def route_metadata(route: Route) -> dict[str, Any]:
    """The route's formats as the sample metadata the server reads."""
    return {key: value for key, value in (("chat_format", route.chat_format), ("tool_format", route.tool_format)) if value}


#: What a rollout knows besides its text, read by verifiers from sample metadata: explicit tool-call
#: counts, the tools offered and how the episode ended (search), and the episode's state: the databases
#: agent_state compares, the workspace or running environment terminal tests. The trainers carry them
#: beside the text (verl's extra_info, where its agent loop merges `tool_extra_fields`; slime's
#: sample.metadata, which a custom generate function fills).
TRAJECTORY_KEYS = ("tool_calls", "tools", "termination", "initialState", "finalState", "workspace", "environment")


def plain(value: Any) -> Any:
    """numpy arrays and scalars (as parquet datasets and verl's batches hand them over) as plain Python values."""
    return value.tolist() if hasattr(value, "tolist") else value


def trajectory_metadata(source: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """The TRAJECTORY_KEYS that `source` holds (None values left out), as sample metadata."""
    if not source:
        return {}
    return {key: plain(source[key]) for key in TRAJECTORY_KEYS if source.get(key) is not None}


def route_for(routes: Mapping[str, Route], key: str) -> Route:
    """The route of a data source: exact match, else the "*" default, else none (verifier from the label)."""
    return routes.get(key) or routes.get("*") or Route("")


def without_null_fields(value: Any) -> Any:
    """A label object without its None fields, in mappings at every depth (list elements stay, None or not),
    numpy values as plain Python. A column of objects stored as Arrow or Parquet (Hugging Face `datasets`,
    which OpenRLHF and verl load their data with; pandas' Parquet reader) has one struct type, the union of
    every row's keys, and gives each row None for the keys it lacks: {"gold": "42", "choice": None} is the
    math row of a column that also holds qa labels. The server's label-cell rule does the same."""
    value = plain(value)
    if isinstance(value, Mapping):
        return {key: without_null_fields(field) for key, field in value.items() if field is not None}
    if isinstance(value, list):
        return [without_null_fields(item) for item in value]
    return value


def trainer_label(raw: Any, route: Route, path: str = "label") -> tuple[str, dict[str, Any]]:
    value = raw
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise LabelError(f"{path}: looks like a JSON object but does not parse ({error})") from error
    if value is None:
        return route.verifier, {}
    if isinstance(value, Mapping):
        label = without_null_fields(value)
        verifier = label.pop("verifier", None)
        if verifier is not None and not isinstance(verifier, str):
            raise LabelError(f"{path}.verifier: expected string")
        return (route.verifier if verifier is None else verifier), label
    if route.label_field is None:
        raise LabelError(f"{path}: a plain label needs a label_field for its data source, or a JSON object label")
    listed = route.label_field.endswith("[]")
    field = route.label_field[:-2] if listed else route.label_field
    if hasattr(value, "tolist"):  # numpy arrays and scalars, as parquet datasets hand them over
        value = value.tolist()
    return route.verifier, {field: [value] if listed and not isinstance(value, list) else value}
