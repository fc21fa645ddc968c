"""How the exactness test checks openai-gpt."""

from family_rows import OLD, Row

ROW = Row(**OLD)
