"""How the exactness test checks afmoe (Arcee's Trinity).

Real config: arcee-ai/Trinity-Nano-Preview (fixture ``configs/Trinity-Nano-Preview.json``), a
printed copy: the ``NANO_CONFIG`` dict in whn09/neuronx-distributed-inference
``contrib/models/Trinity/test/unit/test_config.py`` @32b4a962c07a8f7e476a8fc6483df137b27ea847
("matches arcee-ai/Trinity-Nano-Preview/config.json"), written out as JSON (True/None as
true/null). A second copy agrees field for field (a Rust test's "real Trinity config", trimmed
to 8 layers). transformers builds 6,120,003,328 parameters (published: "6B total, 1B active").
"""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(defaults=True, real=("configs/Trinity-Nano-Preview.json",),
          small=dict(fields=lambda d: dict(
              num_dense_layers=st.integers(0, d["num_hidden_layers"] + 1),
              num_shared_experts=st.integers(0, 2),
              global_attn_every_n_layers=st.integers(1, 4))))
