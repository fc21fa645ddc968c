"""How the exactness test checks xlstm (xLSTM-7B's mLSTM blocks, each with a SwiGLU MLP).
xLSTMConfig's defaults are xLSTM-7B's sizes (6,865,424,896 parameters); no published
config.json was found to keep as a fixture."""

from family_rows import FlopsCase, Row

from ._ssm import XLSTM_TINY, xlstm_configs, xlstm_flops_gap

ROW = Row(xlstm_configs, defaults=True, examples=40, round_trip=True, deeper=True,
          tiny=(XLSTM_TINY,), flops=(FlopsCase(XLSTM_TINY, gap=xlstm_flops_gap),))
