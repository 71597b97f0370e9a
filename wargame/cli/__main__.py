"""``python -m wargame.cli``."""

import sys

from . import main

sys.exit(main())
