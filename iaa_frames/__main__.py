"""Run the command line: ``python -m iaa_frames ...`` (see :mod:`iaa_frames.cli`)."""

import sys

from iaa_frames.cli import main

if __name__ == "__main__":
    sys.exit(main())
