"""How the exactness test checks starcoder2."""

from family_rows import FlopsCase, Row, STARCODER2_TINY, starcoder2_configs

ROW = Row(starcoder2_configs, round_trip=True, deeper=True,
          tiny=(STARCODER2_TINY,),
          flops=(FlopsCase(dict(STARCODER2_TINY, sliding_window=4)),))
