"""How the exactness test checks olmoe."""

from family_rows import Row

ROW = Row(defaults=True, real=("configs/OLMoE-1B-7B-0125-Instruct.json",))
