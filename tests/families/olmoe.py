"""How the exactness test checks olmoe.

Real config: allenai/OLMoE-1B-7B-0125-Instruct, verbatim (fixture
``configs/OLMoE-1B-7B-0125-Instruct.json``; its source and cross-checks:
tests/fixtures/README.md)."""

from family_rows import Row

ROW = Row(defaults=True, real=("configs/OLMoE-1B-7B-0125-Instruct.json",))
