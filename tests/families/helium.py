"""How the exactness test checks helium.

Real config: mlx-community/helium-1-preview-2b-4bit's config.json (kyutai's
helium-1-preview-2b quantized by MLX: its architecture fields, a quantization block without a
quant_method), "field-for-field" as a Rust test pins it (public-code search index file id
58879770581, the repository not named there). Cross-check: 2,172,643,840 parameters, "2B".
"""

from family_rows import Row

ROW = Row(real=("configs/helium-1-preview-2b-4bit.json",))
