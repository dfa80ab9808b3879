"""``python -m spades_sim.cli``: the `spades-sim` command."""

import sys

from . import main

sys.exit(main())
