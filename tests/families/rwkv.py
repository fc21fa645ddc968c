"""How the exactness test checks rwkv (RWKV-4: every block a time mix and a channel mix)."""

from family_rows import FlopsCase, Row

from ._ssm import RWKV_TINY, rwkv_configs, rwkv_flops_gap

ROW = Row(rwkv_configs, defaults=True, examples=40, round_trip=True, deeper=True, tiny=(RWKV_TINY,),
          flops=(FlopsCase(RWKV_TINY, gap=rwkv_flops_gap),))
