"""How the exactness test checks recurrent_gemma (Griffin: RG-LRU recurrent blocks and local
MQA attention, each followed by a gated MLP with biases).

Real config: ``configs/recurrentgemma-2b-trimmed.json``, google/recurrentgemma-2b's config.json
as a Rust test quotes it ("The REAL google/recurrentgemma-2b/config.json ... read through the
authenticated Hub connector"; keys such as its token ids and dtype are absent, so taken as
trimmed; the index gives no repository, its file id is 59202640340). It writes its pattern as
_block_types, the name of transformers' older class, which 5.23 does not read (its default is
the same pattern), and its head_dim 256, which the class derives anyway. 2,682,862,080
parameters (published: 2.7B).
"""

from family_rows import FlopsCase, Row

from ._ssm import RECURRENT_GEMMA_TINY, recurrent_gemma_configs, recurrent_gemma_flops_gap

ROW = Row(recurrent_gemma_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          real=("configs/recurrentgemma-2b-trimmed.json",),
          tiny=(RECURRENT_GEMMA_TINY,),
          flops=(FlopsCase(RECURRENT_GEMMA_TINY, gap=recurrent_gemma_flops_gap),))
