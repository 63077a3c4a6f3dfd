"""``python -m itdeid``: the ``itdeid`` command, for environments whose scripts folder is not on
the PATH."""
import sys

from itdeid.cli import main

sys.exit(main())
