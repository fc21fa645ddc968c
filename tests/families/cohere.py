"""How the exactness test checks cohere (use_qk_norm, drawn with the generic switches, adds
per-head q and k norms).

Real config: CohereForAI/aya-23-8B, as the preset "aya-23" in mlc-ai/mlc-llm
python/mlc_llm/model/model_preset.py @79d603f085f50500e9509fa01785ffa7ecfaaa93 (a library
preset: the hub file's keys and values as a Python dict, written back as JSON). Cross-check:
8,028,033,024 parameters, Aya 23's published "8B".
"""

from family_rows import Row

ROW = Row(real=("configs/Aya-23-8B.json",))
