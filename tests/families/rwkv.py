"""How the exactness test checks rwkv (RWKV-4: every block a time mix and a channel mix).
RwkvConfig's defaults (32 blocks of 4096, 7,392,649,216 parameters) are checked; no
published config.json was found to keep as a fixture."""

from family_rows import FlopsCase, Row

from ._ssm import RWKV_TINY, rwkv_configs, rwkv_flops_gap

ROW = Row(rwkv_configs, defaults=True, examples=40, round_trip=True, deeper=True, tiny=(RWKV_TINY,),
          flops=(FlopsCase(RWKV_TINY, gap=rwkv_flops_gap),))
