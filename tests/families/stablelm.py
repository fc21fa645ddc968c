"""How the exactness test checks stablelm: q, k and v biases, per-head q/k LayerNorms, the
parallel block (one norm fewer), a head_dim a config may give and transformers ignores.

Real configs: stabilityai/stablelm-2-zephyr-1_6b (q, k and v biases) and
stabilityai/stablelm-3b-4e1t, as the presets "stablelm-2-zephyr-1_6b" and "stablelm" in
mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py @79d603f085f50500e9509fa01785ffa7ecfaaa93
(library presets: the hub files' keys and values as Python dicts, written back as JSON).
Cross-check: 1,644,515,328 and 2,795,443,200 parameters, the published 1.6B and 2.8B.
"""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(real=("configs/stablelm-2-zephyr-1_6b.json", "configs/stablelm-3b-4e1t.json"),
          small=dict(fields={"use_qkv_bias": st.booleans(),
                             "use_parallel_residual": st.booleans(),
                             "head_dim": st.one_of(st.none(), st.integers(1, 8))}))
