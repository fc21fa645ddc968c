"""How the exactness test checks gemma4_text."""

from family_rows import FlopsCase, GEMMA4_TINY, GEMMA4_VARIANTS, Row, gemma4_configs

ROW = Row(gemma4_configs, examples=40,
          tiny=tuple(dict(GEMMA4_TINY, **v) for v in GEMMA4_VARIANTS.values()),
          flops=tuple(FlopsCase(dict(GEMMA4_TINY, sliding_window=8, **v))
                      for v in GEMMA4_VARIANTS.values()))
