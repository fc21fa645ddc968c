"""One file per supported ``model_type``: ``tests/families/<type>.py`` holds ``ROW``, a
:class:`family_rows.Row` saying how tests/test_exact_vs_transformers.py checks the type
against transformers (random configs of the type, tiny models' caches, decode-step FLOPs,
the real configs it is checked on). Adding a family adds its file (CONTRIBUTING.md,
"Adding a family"); ``ROWS`` collects them all.
"""

import importlib
import pathlib

ROWS = {path.stem: importlib.import_module(f"{__name__}.{path.stem}").ROW
        for path in sorted(pathlib.Path(__file__).parent.glob("*.py"))
        if not path.name.startswith("_")}
