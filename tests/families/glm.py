"""How the exactness test checks glm.

Real config: THUDM/glm-4-9b-chat-hf's architecture fields ("GLM-4-9B-Chat as
transformers >= 4.46 exports it"), as a C++ config-loader test holds them (public-code search
index file id 70487556887, the repository not named there): printed. Cross-check:
9,399,951,360 parameters, the published 9.4B.
"""

from family_rows import Row

ROW = Row(real=("configs/GLM-4-9B-Chat-hf.json",))
