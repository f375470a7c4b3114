"""The trainers' own reward-calling code, loaded from the files in test/fixtures/trainer-clients.

Those files are the trainers' sources as published (SOURCE.md names repository, commit and path).
Where a file can be imported whole it is; where its module imports torch, ray or the rest of its
package, the functions and classes under test are taken from it by name (their source text, parsed
with `ast`) and executed here, with the file's own path for tracebacks. Nothing of theirs is retyped:
what the harness supplies is only what their code receives from the rest of the trainer (a logger, a
tokenizer, the rollout's tensors), named where it is built.
"""

from __future__ import annotations

import __future__
import ast
import importlib.util
import logging
import os
import sys
import types
from typing import Any, Iterable

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "trainer-clients")


def fixture(project: str, path: str) -> str:
    return os.path.normpath(os.path.join(FIXTURES, project, path))


def definitions(path: str, names: Iterable[str], namespace: dict[str, Any]) -> dict[str, Any]:
    """Executes the top-level definitions `names` of the file at `path` in `namespace` (their text, unchanged)."""
    with open(path, encoding="utf-8") as file:
        source = file.read()
    tree = ast.parse(source, filename=path)
    wanted = set(names)
    nodes = []
    for node in tree.body:
        name = getattr(node, "name", None)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        if name in wanted:
            nodes.append(node)
            wanted.discard(name)
    if wanted:
        raise LookupError(f"{path}: no top-level definition of {sorted(wanted)}")
    # As the file would: with `from __future__ import annotations` its annotations are not evaluated.
    # Without it they are (a dataclass field's `torch.Tensor`), so they are read as text all the same:
    # the dataclasses here only need the names of their fields.
    code = compile(ast.Module(body=nodes, type_ignores=[]), path, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
    # A module of its own, as the file's would be (dataclasses look their module up in sys.modules).
    module = types.ModuleType(f"theirs.{os.path.basename(os.path.dirname(path))}.{os.path.basename(path)[:-3]}")
    module.__dict__.update(namespace)
    sys.modules[module.__name__] = module
    exec(code, module.__dict__)  # noqa: S102 - the trainers' own code, which is what is under test
    return module.__dict__


def _package(name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if module is None:
        module = types.ModuleType(name)
        module.__path__ = []  # type: ignore[attr-defined]
        sys.modules[name] = module
    return module


def import_file(name: str, path: str) -> types.ModuleType:
    """Imports the whole file as module `name` (its parent packages as empty namespaces)."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        _package(".".join(parts[:i]))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ---- OpenRLHF ------------------------------------------------------------------------------------

def openrlhf_agent() -> types.ModuleType:
    """openrlhf/utils/agent.py, imported whole. Its one import from OpenRLHF is `init_logger`
    (openrlhf/utils/logging_utils.py: a `logging` logger by name), supplied as that."""
    if "openrlhf.utils.agent" in sys.modules:
        return sys.modules["openrlhf.utils.agent"]
    logging_utils = types.ModuleType("openrlhf.utils.logging_utils")
    logging_utils.init_logger = logging.getLogger  # type: ignore[attr-defined]
    _package("openrlhf")
    _package("openrlhf.utils")
    sys.modules["openrlhf.utils.logging_utils"] = logging_utils
    return import_file("openrlhf.utils.agent", fixture("openrlhf", "openrlhf/utils/agent.py"))


# ---- slime ---------------------------------------------------------------------------------------

def slime_rm_hub() -> dict[str, Any]:
    """slime/rollout/rm_hub/__init__.py: remote_rm and async_rm, with slime's Sample (slime/utils/types.py)
    and load_function (slime/utils/misc.py, how --custom-rm-path is loaded). The modules import their
    rule-based scorers and torch; the remote and custom paths use none of them."""
    import asyncio
    import random
    from dataclasses import dataclass, field
    from enum import Enum

    import aiohttp

    sample_ns = definitions(fixture("slime", "slime/utils/types.py"), ["Sample"], {"dataclass": dataclass, "field": field, "Enum": Enum, "Any": Any})
    import importlib

    from functools import cache

    misc = definitions(fixture("slime", "slime/utils/misc.py"), ["load_function"], {"importlib": importlib, "cache": cache})
    namespace: dict[str, Any] = {
        "load_function": misc["load_function"],
        "asyncio": asyncio,
        "random": random,
        "aiohttp": aiohttp,
        "logging": logging,
        "logger": logging.getLogger("slime.rollout.rm_hub"),
        "Sample": sample_ns["Sample"],
    }
    return definitions(fixture("slime", "slime/rollout/rm_hub/__init__.py"), ["_shared_session", "_get_shared_session", "remote_rm", "async_rm", "batched_async_rm"], namespace)


# ---- verl ----------------------------------------------------------------------------------------

def verl_import_utils() -> types.ModuleType:
    """verl/utils/import_utils.py, imported whole (standard library only): load_extern_object."""
    if "verl.utils.import_utils" in sys.modules:
        return sys.modules["verl.utils.import_utils"]
    return import_file("verl.utils.import_utils", fixture("verl", "verl/utils/import_utils.py"))


def verl_reward() -> dict[str, Any]:
    """verl/trainer/ppo/reward.py: get_custom_reward_fn (how custom_reward_function.path/name/reward_kwargs load)."""
    import inspect
    from functools import partial
    from typing import Optional

    verl_import_utils()
    return definitions(
        fixture("verl", "verl/trainer/ppo/reward.py"),
        ["_call_with_kwargs", "_call_with_kwargs_async", "get_custom_reward_fn"],
        {"inspect": inspect, "partial": partial, "Optional": Optional},
    )


class _RewardManagerBase:
    """verl/experimental/reward_loop/reward_manager/base.py's constructor: config, tokenizer and the event loop
    (verl.utils.ray_utils.get_event_loop: the running loop)."""

    def __init__(self, config: Any, tokenizer: Any) -> None:
        import asyncio

        self.config = config
        self.tokenizer = tokenizer
        self.loop = asyncio.get_event_loop()


def _register(_name: str):
    return lambda cls: cls


def verl_reward_loop_naive() -> type:
    """verl/experimental/reward_loop/reward_manager/naive.py: the default reward manager (use_reward_loop=True)."""
    import inspect

    ns = definitions(
        fixture("verl", "verl/experimental/reward_loop/reward_manager/naive.py"),
        ["NaiveRewardManager"],
        {"inspect": inspect, "register": _register, "RewardManagerBase": _RewardManagerBase, "default_compute_score": None},
    )
    return ns["NaiveRewardManager"]


def verl_batch_manager() -> type:
    """verl/workers/reward_manager/batch.py: BatchRewardManager, whose `verify` calls compute_score_batch."""
    ns = definitions(
        fixture("verl", "verl/workers/reward_manager/batch.py"),
        ["BatchRewardManager"],
        {"register": _register, "AbstractRewardManager": object, "defaultdict": __import__("collections").defaultdict},
    )
    return ns["BatchRewardManager"]
