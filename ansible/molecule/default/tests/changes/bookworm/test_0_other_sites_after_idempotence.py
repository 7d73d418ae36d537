"""First of the changes, after Molecule's idempotence run (changed=0) and tests/converged: every
other name still gets on 80 and 443 what it got before the first converge (tests/fresh/bookworm,
owner.py), and Debian's default site is still there."""
import owner


def test_every_other_name_gets_what_it_got_before_on_80_and_443(addr):
    before, now = owner.load(), owner.snapshot(addr)
    assert not owner.differences(before, now), owner.differences(before, now)


def test_debians_default_site_is_still_there(host):
    assert host.file("/etc/nginx/sites-enabled/default").is_symlink
