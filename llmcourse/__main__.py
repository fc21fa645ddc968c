"""``python -m llmcourse MODEL [options]``: see :mod:`llmcourse.cli`."""

import sys

from .cli import main

sys.exit(main())
