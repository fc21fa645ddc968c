"""How the exactness test checks bailing_hybrid (Ling: delta-attention layers and gated MLA
layers, dense MLPs first, then routed experts beside shared experts). No published
config.json was found; BailingHybridConfig's defaults, and those a saved config writes
(linear_head_dim and the like), are checked."""

from family_rows import FlopsCase, Row

from ._ssm import BAILING_HYBRID_TINY, bailing_hybrid_configs, bailing_hybrid_flops_gap

# (the class defaults' draw: one expert group, as the router needs at a small expert count)
ROW = Row(bailing_hybrid_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          small=dict(fields={"num_expert_group": 1, "topk_group": 1}),
          tiny=(BAILING_HYBRID_TINY,),
          flops=(FlopsCase(BAILING_HYBRID_TINY, gap=bailing_hybrid_flops_gap),))
