"""How the exactness test checks recurrent_gemma (Griffin: RG-LRU recurrent blocks and local
MQA attention, each followed by a gated MLP with biases)."""

from family_rows import FlopsCase, Row

from ._ssm import RECURRENT_GEMMA_TINY, recurrent_gemma_configs, recurrent_gemma_flops_gap

ROW = Row(recurrent_gemma_configs, examples=50, round_trip=True, deeper=True,
          tiny=(RECURRENT_GEMMA_TINY,),
          flops=(FlopsCase(RECURRENT_GEMMA_TINY, gap=recurrent_gemma_flops_gap),))
