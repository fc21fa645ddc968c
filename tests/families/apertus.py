"""How the exactness test checks apertus: its learned xIELU activation (two parameters, two
buffers per layer) only with hidden_act xielu."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(small=dict(fields={"hidden_act": st.sampled_from(["xielu", "relu2", "silu"])}))
