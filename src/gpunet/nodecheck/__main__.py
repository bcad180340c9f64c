"""`python3 -m gpunet.nodecheck`: gpunet node-check without the rest of the gpunet CLI."""

import sys

from gpunet.nodecheck.cli import main

sys.exit(main())
