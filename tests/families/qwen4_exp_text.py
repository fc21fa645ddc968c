"""How the exactness test checks qwen4_exp_text."""

from family_rows import FlopsCase, QWEN4_TINY, Row, _qwen4_checks, _qwen4_gap, qwen4_configs

# (the class defaults give no indexer sizes (transformers cannot build them): drawn by qwen4_configs)
ROW = Row(qwen4_configs, examples=40, extra=_qwen4_checks, tiny=(QWEN4_TINY,),
          flops=tuple(FlopsCase(dict(QWEN4_TINY, indexer_budget=b), n,
                                _qwen4_gap)
                      for b, n in ((64, 20), (4, 20), (4, 9))),
          small=None)
