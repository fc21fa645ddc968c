"""llmcourse: exact sizes of large language models, from their ``config.json``.

    >>> import llmcourse as lc
    >>> cfg = lc.load_model("Meta-Llama-3-8B")
    >>> lc.param_count(cfg).total
    8030261248

The core (configs, counts, bytes, FLOPs) imports only the standard library.
``llmcourse.tables``, ``llmcourse.plots`` and ``llmcourse.widgets`` bring in
pandas, matplotlib and ipywidgets when they are first used.
"""

from .config import (SUPPORTED_MODEL_TYPES, ConfigError, ModelConfig, as_moe, config_from_json,
                     from_hf_config)
from .counts import (FlopCount, ParamCount, flops_per_token, kv_cache_bytes,
                     kv_cache_bytes_per_token_per_layer, linear_state_bytes, param_count,
                     indexer_cache_bytes_per_token,
                     weight_bytes, weight_shapes)
from .hardware import GPU, list_gpus, load_gpu
from .inference import (critical_batch, decode_step_time, expected_experts, max_batch,
                        max_context, memory_plan, prefill_time)
from .finetune import lora_memory, lora_params
from .quantization import list_schemes, stored_weights
from .serving import VllmPlan, expected_decode_speed, vllm_plan
from .serving import vllm_changes, vllm_release
from .vllm_log import explain_vllm_log, read_vllm_log
from . import decode_speed, serving_systems  # noqa: F401  (lc.decode_speed, lc.serving_systems)
from .training import (TrainingFlops, TrainingMemory, bytes_per_param, chinchilla_tokens,
                       communication_volume, setup_settings, training_flops, training_memory,
                       training_time)
from .units import human_bytes, human_count
from .zoo import list_models, load_model, model_families, model_family

__version__ = "0.1.0"

__all__ = ["VllmPlan", "vllm_plan", "expected_decode_speed", "vllm_changes", "vllm_release",
           "read_vllm_log", "explain_vllm_log", "ConfigError", "ModelConfig", "from_hf_config", "config_from_json", "as_moe", "SUPPORTED_MODEL_TYPES",
           "ParamCount", "FlopCount", "param_count", "weight_shapes", "weight_bytes",
           "kv_cache_bytes", "kv_cache_bytes_per_token_per_layer", "linear_state_bytes", "flops_per_token",
           "indexer_cache_bytes_per_token",
           "list_models", "load_model", "model_families", "model_family", "human_count", "human_bytes",
           "GPU", "list_gpus", "load_gpu", "list_schemes", "stored_weights", "memory_plan",
           "max_context", "max_batch", "decode_step_time", "prefill_time", "critical_batch",
           "expected_experts",
           "TrainingMemory", "TrainingFlops", "training_memory", "training_flops",
           "training_time", "bytes_per_param", "chinchilla_tokens", "lora_params", "lora_memory",
           "communication_volume", "setup_settings", "CheckpointReport", "checkpoint_report"]

_LAZY = {"tables", "plots", "widgets", "exercises", "approx", "compare", "sizing", "hub", "cli"}
# names exported from a module imported on first use (the Hub client is needed only then)
_LAZY_NAMES = {"checkpoint_report": "hub", "CheckpointReport": "hub"}


def __getattr__(name):  # import the heavier layers on first use
    if name in _LAZY or name in _LAZY_NAMES:
        import importlib
        module = importlib.import_module(f".{_LAZY_NAMES.get(name, name)}", __name__)
        return getattr(module, name) if name in _LAZY_NAMES else module
    raise AttributeError(f"module 'llmcourse' has no attribute {name!r}")
