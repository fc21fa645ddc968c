"""How the exactness test checks ernie4_5.

Real config: baidu/ERNIE-4.5-0.3B-PT's config.json (its remote-code
architectures and auto_map, model_type ernie4_5), verbatim as the public-code search index
holds it (file id 28060091361; the index does not name its GitHub repository or commit).
Cross-check: 360,748,032 parameters, the published 0.36B.
"""

from family_rows import Row

ROW = Row(real=("configs/ERNIE-4.5-0.3B-PT.json",))
