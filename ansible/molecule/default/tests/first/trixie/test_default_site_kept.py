"""The fresh Debian 13 host after its first converge: Debian's default site kept (tests/beside.py)."""
from beside import *  # noqa: F401,F403  (the tests both suites run after the first converge)
