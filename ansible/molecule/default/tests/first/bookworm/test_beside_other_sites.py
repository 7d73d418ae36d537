"""The Debian 12 server in use after the first converge (prepare.yml: the owner's blog.test beside
Debian's default site): every other name gets on 80 and 443 what it got before (the same answer, the
same certificate by SNI), and tests/beside.py's."""
import owner
from beside import *  # noqa: F401,F403  (the tests both suites run after the first converge)


def test_every_other_name_gets_what_it_got_before_on_80_and_443(addr):
    before, now = owner.load(), owner.snapshot(addr)
    assert not owner.differences(before, now), owner.differences(before, now)
