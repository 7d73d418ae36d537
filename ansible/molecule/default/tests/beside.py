"""After the first converge, on both suites (tests/first/<suite> import these): Debian's default
site is still there and still answers the names no site claims on port 80 (our role removes it
only when fox_avatar_nginx_remove_default_site asks); our site is loaded last (the link in
sites-enabled/, none in conf.d/), and answers for its own name."""
import owner
import probes


def test_debians_default_site_is_still_there(host):
    assert host.file("/etc/nginx/sites-enabled/default").is_symlink


def test_our_site_is_loaded_last_from_sites_enabled(host):
    link = host.file("/etc/nginx/sites-enabled/zz-fox-avatar.conf")
    assert link.is_symlink and host.check_output("readlink %s", link.path) == "../fox-avatar/site.conf"
    assert not host.file("/etc/nginx/conf.d/fox-avatar.conf").exists


def test_an_unknown_name_on_port_80_still_gets_debians_page(addr):
    got = owner.answer(addr, "unknown-name.test", 80)
    assert got["status"] == 200 and "nginx!" in " ".join(got["words"]), got


def test_avatar_test_gets_its_302_and_its_308(addr, server_ca):
    assert probes.https_code(addr, server_ca) == "302"
    got = owner.answer(addr, probes.SITE, 80)
    assert got["status"] == 308 and got["location"] == f"https://{probes.SITE}/", got
