"""How the exactness test checks openai-gpt.

Real config: openai-gpt.json (openai-community/openai-gpt), verbatim from Girafboy/pytorchKQI
example/evaluate.py @963269026663521e774249c3828f9e000bb2a405; 116,534,784 parameters ("117M").
"""

from family_rows import OLD, Row

ROW = Row(real=("configs/openai-gpt.json",), **OLD)
