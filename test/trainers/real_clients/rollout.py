"""What the trainers' reward code receives from the rest of the trainer, built here.

Their reward paths take a tokenizer, a generation engine's output and (verl) the rollout's tensors;
none of these decide a reward, so they are the smallest objects with the attributes the code reads:

- `CharTokenizer`: one token per character (ids are code points), so decode(encode(t)) == t and a
  decode with special tokens kept returns the text as the policy wrote it (`<|im_end|>` included).
- `Engine`: vLLM's AsyncLLM surface that OpenRLHF's executor calls (`generate` → outputs[0] with
  token_ids, text, finish_reason, logprobs), answering a fixed response.
- `DataProto`: verl's batch (`batch` tensors, `non_tensor_batch` numpy object arrays, `data[i]`,
  `data[i:j]`, iteration), with numpy arrays in place of torch tensors (`sum(dim=)` as torch spells it).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Optional, Sequence

import numpy as np


class TokenRow(list):
    def tolist(self) -> list[int]:
        return list(self)


class CharTokenizer:
    def __call__(self, text: str, add_special_tokens: bool = False, return_tensors: Optional[str] = None) -> dict[str, list[TokenRow]]:
        return {"input_ids": [TokenRow(ord(c) for c in text)]}

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        return "".join(chr(int(i)) for i in ids if int(i) != 0)


class Engine:
    """Answers every prompt with `response` (as token ids and text)."""

    def __init__(self, response: str):
        self.response = response

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        ids = [ord(c) for c in self.response]
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, text=self.response, finish_reason="stop", logprobs=None)])


def sampling_params(max_tokens: int = 4096) -> Any:
    return SimpleNamespace(max_tokens=max_tokens, logprobs=None)


class Tensor(np.ndarray):
    """A numpy array that answers torch's `sum(dim=...)`."""

    def sum(self, dim: Optional[int] = None, axis: Optional[int] = None, **kwargs: Any) -> Any:  # type: ignore[override]
        return np.asarray(self).sum(axis=dim if dim is not None else axis, **kwargs)


def _tensor(rows: list[list[int]]) -> Tensor:
    return np.array(rows, dtype=np.int64).view(Tensor)


@dataclass
class DataProtoItem:
    batch: dict[str, Any]
    non_tensor_batch: dict[str, Any]


class DataProto:
    """verl's rollout batch: left-padded prompts, right-padded responses, their attention mask."""

    def __init__(self, batch: dict[str, Any], non_tensor_batch: dict[str, np.ndarray]):
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch

    @classmethod
    def of(cls, rows: Sequence[dict[str, Any]]) -> "DataProto":
        """rows: {"prompt", "response", "data_source", "ground_truth", "extra_info", and optionally any other non-tensor key}."""
        prompt_len = max(len(r["prompt"]) for r in rows)
        response_len = max(len(r["response"]) for r in rows)
        prompts, responses, masks = [], [], []
        for r in rows:
            p = [ord(c) for c in r["prompt"]]
            s = [ord(c) for c in r["response"]]
            prompts.append([0] * (prompt_len - len(p)) + p)
            responses.append(s + [0] * (response_len - len(s)))
            masks.append([0] * (prompt_len - len(p)) + [1] * (len(p) + len(s)) + [0] * (response_len - len(s)))
        non_tensor: dict[str, np.ndarray] = {}

        def column(values: list[Any]) -> np.ndarray:
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out

        non_tensor["data_source"] = column([r["data_source"] for r in rows])
        non_tensor["reward_model"] = column([{"ground_truth": r["ground_truth"], "style": "rule"} for r in rows])
        non_tensor["extra_info"] = column([dict(r.get("extra_info") or {}) for r in rows])
        for key in sorted({k for r in rows for k in r} - {"prompt", "response", "data_source", "ground_truth", "extra_info"}):
            non_tensor[key] = column([r.get(key) for r in rows])
        return cls({"prompts": _tensor(prompts), "responses": _tensor(responses), "attention_mask": _tensor(masks)}, non_tensor)

    def __len__(self) -> int:
        return len(self.batch["responses"])

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, slice):
            return DataProto({k: v[item] for k, v in self.batch.items()}, {k: v[item] for k, v in self.non_tensor_batch.items()})
        return DataProtoItem({k: v[item] for k, v in self.batch.items()}, {k: v[item] for k, v in self.non_tensor_batch.items()})

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]
