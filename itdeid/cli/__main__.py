import sys

from itdeid.cli import main

sys.exit(main())
