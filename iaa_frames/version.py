"""The installed version of iaa_frames (``0+unknown`` in a checkout that is not installed)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("iaa-frames")
except PackageNotFoundError:  # running from a checkout without installation
    __version__ = "0+unknown"
