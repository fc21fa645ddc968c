"""How the exactness test checks minimax (MiniMax-01: lightning attention and softmax
attention layers, each followed by routed experts). No published config.json was found;
MiniMaxConfig's defaults are checked."""

from family_rows import FlopsCase, Row

from ._ssm import MINIMAX_TINY, minimax_configs

ROW = Row(minimax_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          tiny=(MINIMAX_TINY,), flops=(FlopsCase(MINIMAX_TINY),))
