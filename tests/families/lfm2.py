"""How the exactness test checks lfm2 (gated short convolutions and GQA layers, each followed
by a SwiGLU MLP whose width LFM2 derives from intermediate_size).

Real config: ``configs/LFM2-1.2B-trimmed.json``, LiquidAI/LFM2-1.2B's config.json as a Rust test
quotes it ("The REAL LiquidAI/LFM2-1.2B/config.json ... Trimmed only of keys this port does not
model (tokenizer ids, init scales, dtype); every key the mapper reads is verbatim"; the index
gives no repository, its file id is 59124207504): its layers by full_attn_idxs, its MLP by
block_ff_dim 12288 (8192 wide after LFM2's adjustment). 1,170,340,608 parameters (published:
1.17B).
"""

from family_rows import FlopsCase, Row

from ._ssm import LFM2_TINY, lfm2_configs, lfm2_flops_gap

# (the class defaults: every layer attention, as Lfm2Config builds them)
ROW = Row(lfm2_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          real=("configs/LFM2-1.2B-trimmed.json",), tiny=(LFM2_TINY,),
          flops=(FlopsCase(LFM2_TINY, gap=lfm2_flops_gap),))
