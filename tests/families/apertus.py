"""How the exactness test checks apertus: its learned xIELU activation (two parameters, two
buffers per layer) only with hidden_act xielu.

Real config: swiss-ai/Apertus-8B's architecture fields (xIELU, qk_norm, its
llama3 RoPE scaling), as a Go test ("TestParseConfigApertus8B") holds them (public-code search
index file id 57924711764, the repository not named there): printed. Cross-check:
8,053,338,176 parameters, the published 8B.
"""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(real=("configs/Apertus-8B.json",),
          small=dict(fields={"hidden_act": st.sampled_from(["xielu", "relu2", "silu"])}))
