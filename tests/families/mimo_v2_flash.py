"""How the exactness test checks mimo_v2_flash (V narrower than K: its cache and FLOPs).

Real config: tests/fixtures/configs/MiMo-V2-Flash.json (XiaomiMiMo/MiMo-V2-Flash), printed:
the hub-spelled config of a public Rust test, `mimo_v2_flash_hub_config` (found by the search
index; its repository is not reported), with the hub's own keys (hybrid_layer_pattern,
moe_layer_freq, swa_*, sliding_window_size) transformers 5.23 reads or ignores as the engine
does; the keys it leaves out take the class defaults. Cross-check: 308.8B total, 15.4B active
(published as 309B total, 15B active).
"""

from family_rows import FlopsCase, Row
from frontier_rows import MIMO_TINY, mimo_configs

ROW = Row(mimo_configs, real=("configs/MiMo-V2-Flash.json",), examples=30,
          round_trip=True, tiny=(MIMO_TINY,),
          flops=(FlopsCase(MIMO_TINY),))
