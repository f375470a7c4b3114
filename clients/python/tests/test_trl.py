"""The TRL reward function, called exactly as TRL's GRPOTrainer calls reward functions.

From trl/trainer/grpo_trainer.py (`_calculate_rewards`, read from github:huggingface/trl): every
dataset column but prompt/completion/completion_ids becomes a keyword argument holding one value
per completion, plus `trainer_state`, `log_extra` and `log_metric`; the function is called as
`f(prompts=..., completions=..., completion_ids=..., **reward_kwargs)`; a None in its answer becomes
NaN, which the trainer's nansum leaves out. `get_callable_name` names the function by `__name__`.
TRL itself is not installed here: the calling code below does what it does, without torch.
"""

import functools
import math
import unittest
from collections import defaultdict
from typing import Any, Callable

from verdict_client import trl as verdict_trl

from .servers import GRPC_A, GRPC_B


def get_callable_name(func: Callable[..., Any]) -> str:
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", type(func).__name__)


class FakeTrainerState:
    global_step = 3


def calculate_rewards(reward_func: Callable[..., Any], inputs: list[dict[str, Any]], prompts: list[Any], completions: list[Any]):
    """TRL's call: the columns of `inputs` (one dict per completion) as lists, then None → NaN."""
    extra: dict[str, list[Any]] = defaultdict(list)
    metrics: dict[str, list[float]] = defaultdict(list)
    keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
    reward_kwargs: dict[str, Any] = {key: [example[key] for example in inputs] for key in keys}
    reward_kwargs["trainer_state"] = FakeTrainerState()
    reward_kwargs["log_extra"] = lambda column, values: extra[column].extend(values)
    reward_kwargs["log_metric"] = lambda name, value: metrics[name].append(value)
    completion_ids_list = [[1, 2, 3] for _ in completions]
    output = reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids_list, **reward_kwargs)
    return [r if r is not None else math.nan for r in output], extra, metrics


class TrlRewardTest(unittest.TestCase):
    def test_standard_dataset_plain_labels_invalid_is_none(self):
        func = verdict_trl.reward(GRPC_B, verifier="math", label_field="gold")
        self.assertEqual(get_callable_name(func), "verdict")
        inputs = [
            {"prompt": "1+1?", "label": "2", "data_source": "gsm8k"},
            {"prompt": "1+1?", "label": "2", "data_source": "gsm8k"},
            {"prompt": "2+2?", "label": {"verifier": "qa", "choice": "C"}, "data_source": "sciq"},
            {"prompt": "3+3?", "label": None, "data_source": "gsm8k"},
        ]
        completions = ["so \\boxed{2}", "\\boxed{3}", "Answer: C", "\\boxed{6}"]
        rewards, extra, metrics = calculate_rewards(func, inputs, [x["prompt"] for x in inputs], completions)
        self.assertEqual(rewards[:3], [1.0, 0.0, 1.0])
        self.assertTrue(math.isnan(rewards[3]))  # INVALID (label.gold missing): no reward, not a 0
        self.assertEqual(extra["verdict_status"], ["OK", "OK", "OK", "INVALID"])
        self.assertEqual(extra["verdict_reason"][3], "label.gold: required")
        self.assertEqual(metrics["verdict/unscored_fraction"], [0.25])

    def test_conversational_dataset(self):
        func = verdict_trl.reward(GRPC_B, verifier="qa", label_field="choice", label_column="answer", name="verdict_qa")
        prompts = [[{"role": "user", "content": "Which letter?"}]] * 2
        completions = [[{"role": "assistant", "content": "<think>x</think>\\boxed{C}"}], [{"role": "assistant", "content": "\\boxed{B}"}]]
        inputs = [{"prompt": p, "answer": "C"} for p in prompts]
        rewards, _, metrics = calculate_rewards(func, inputs, prompts, completions)
        self.assertEqual(rewards, [1.0, 0.0])
        self.assertEqual(metrics["verdict_qa/unscored_fraction"], [0.0])

    def test_aborted_is_none_which_trl_skips(self):
        # Replica A's `flaky` verifier always aborts; with no other replica and no retries it stays ABORTED.
        func = verdict_trl.reward(GRPC_A, verifier="flaky", retries=0)
        inputs = [{"prompt": "p", "label": {"reward": 1.0}}, {"prompt": "p", "label": {"verifier": "math", "gold": "1"}}]
        rewards, extra, _ = calculate_rewards(func, inputs, ["p", "p"], ["\\boxed{1}", "\\boxed{1}"])
        self.assertTrue(math.isnan(rewards[0]))
        self.assertEqual(rewards[1], 1.0)
        self.assertEqual(extra["verdict_status"], ["ABORTED", "OK"])
        # TRL's nansum over reward functions: an ABORTED sample adds nothing, where a 0 would pull it down.
        self.assertEqual(sum(r for r in rewards if not math.isnan(r)), 1.0)

    def test_missing_label_column_names_it(self):
        func = verdict_trl.reward(GRPC_B, verifier="math", label_field="gold")
        with self.assertRaisesRegex(KeyError, "no 'label' column"):
            calculate_rewards(func, [{"prompt": "p", "solution": "1"}], ["p"], ["\\boxed{1}"])


if __name__ == "__main__":
    unittest.main()
