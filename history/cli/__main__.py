"""`python -m history.cli`: the `recall` command without its console script."""

import sys

from history.cli import main

sys.exit(main())
