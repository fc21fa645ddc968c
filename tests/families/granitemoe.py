"""How the exactness test checks granitemoe.

Real config: ibm-granite/granite-3.1-3b-a800m-instruct, a trimmed copy (fixture
``configs/granite-3.1-3b-a800m-instruct_trimmed.json``; its source and cross-checks:
tests/fixtures/README.md)."""

from family_rows import Row

ROW = Row(defaults=True, real=("configs/granite-3.1-3b-a800m-instruct_trimmed.json",))
