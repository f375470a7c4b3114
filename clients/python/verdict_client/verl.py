"""verl's entry point: `custom_reward_function.path=pkg://verdict_client.verl` or this file's path.

verl loads a file path under a made-up module name (`custom_module_<hash>`), outside any package,
with no guarantee that `clients/python` is on the worker's sys.path. So this module only makes
`verdict_client` importable (from the tree this file sits in, when nothing else provides it) and
re-exports the functions of `verdict_client._verl`: they then live in an importable module, whichever
way verl loaded this file, and every load shares one client per target list. The functions and the
configuration are documented in `_verl.py`.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import warnings
from types import FrameType
from typing import Any, Optional

if importlib.util.find_spec("verdict_client") is None:  # loaded by file path, clients/python not on sys.path
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from verdict_client._verl import VerdictBatchError, VerdictSampleError, compute_score, compute_score_batch, group_key, to_verdict_sample  # noqa: E402

__all__ = ["VerdictBatchError", "VerdictSampleError", "compute_score", "compute_score_batch", "group_key", "to_verdict_sample"]

PRIME_WARNING = (
    "verdict_client.verl: verl's `prime` reward manager is configured. It turns every exception of the "
    "reward function into a reward of 0.0, so samples Verdict could not score (ABORTED, INVALID: "
    "VerdictSampleError) become silent zero rewards. Use reward manager naive with compute_score, or "
    "batch with compute_score_batch."
)


def _get(node: Any, key: str) -> Any:
    try:
        return node.get(key) if hasattr(node, "get") else getattr(node, key, None)
    except Exception:  # an OmegaConf struct node refusing an unknown key: not this layout
        return None


def reward_manager_of(config: Any) -> Optional[str]:
    """The reward manager a verl config selects: `reward_manager.name` (newer verl) or `reward_model.reward_manager`."""
    for path in (("reward_manager", "name"), ("reward_model", "reward_manager")):
        node = config
        for key in path:
            node = _get(node, key)
            if node is None:
                break
        if isinstance(node, str):
            return node
    return None


def _warn_if_prime() -> None:
    """verl imports this module from load_reward_manager / get_custom_reward_fn, whose `config` local says
    which manager will call it: look up the stack for it, at import time, before any sample is scored."""
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None:
        config = frame.f_locals.get("config")
        if config is not None and reward_manager_of(config) == "prime":
            logging.getLogger("verdict_client.verl").error(PRIME_WARNING)
            warnings.warn(PRIME_WARNING, RuntimeWarning, stacklevel=2)
            return
        frame = frame.f_back


_warn_if_prime()
