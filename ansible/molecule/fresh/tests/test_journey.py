"""docs/ansible.md's block onto a fresh Debian 13 server, then behind Caddy (docs/behind-a-proxy.md)."""
import re

import foxmol
from conftest import SITE


def test_the_docs_block_runs_as_written(block):
    assert (block / "ansible" / "inventory.yml").is_file()


def test_a_second_run_changes_nothing(block, control, addr):
    ansible_playbook = next(control["home"].glob(".*/*/bin/ansible-playbook"))
    run = foxmol.run("second-run", [str(ansible_playbook), "-i", "inventory.yml", "site.yml", "-e", f"ansible_host={addr}"],
                     env=control["env"], cwd=block / "ansible", user=True)
    assert run.unchanged, run.excerpt()


def test_the_shared_http_suite_passes(block, host, addr):
    ca = foxmol.host_file(host, "/etc/ssl/fox-avatar/fullchain.pem")
    run = foxmol.stack_suite("stack-suite", site=SITE, addr=addr, ca=ca, proxy=host, apps=[host], http3=True, pq=True,
                             network=foxmol.host_network(host))
    assert run.rc == 0, foxmol.tail(run)


def test_the_service_is_a_hardened_unit_of_its_own_user_on_loopback(block, host):
    assert foxmol.host_exec(host, "systemctl", "is-enabled", "fox-avatar", "nginx").split() == ["enabled", "enabled"]
    pid = foxmol.host_exec(host, "systemctl", "show", "-p", "MainPID", "--value", "fox-avatar")
    assert foxmol.host_exec(host, "stat", "-c", "%U", f"/proc/{pid}") == "fox-avatar"
    security = foxmol.host_exec(host, "systemd-analyze", "security", "--no-pager", "fox-avatar.service")
    exposure = float(re.search(r"Overall exposure level for fox-avatar\.service: ([0-9.]+)", security)[1])
    assert exposure <= 2.0, security
    listeners = foxmol.host_exec(host, "ss", "-Htln", "sport = :8080 or sport = :8081").split("\n")
    assert sorted(line.split()[3] for line in listeners) == ["127.0.0.1:8080", "127.0.0.1:8081"], listeners


def test_behind_caddy_nginx_leaves_80_and_443_to_caddy(behind_caddy, host):
    nginx = foxmol.host_exec(host, "ss", "-Htlnp", "sport = :80 or sport = :443 or sport = :8088")
    assert re.search(r"127\.0\.0\.1:8088 .*nginx", nginx) and not re.search(r":(80|443) .*nginx", nginx), nginx


def test_behind_caddy_visitors_get_the_302_and_the_image(behind_caddy, host, addr):
    ca = foxmol.host_file(host, "/var/lib/caddy/.local/share/caddy/pki/authorities/local/root.crt")
    code, head = foxmol.https(addr, SITE, "/", ca)
    location = foxmol.header(head, "Location")
    assert code == "302" and location.startswith("/"), head
    code, head = foxmol.https(addr, SITE, location, ca)
    assert code == "200" and "immutable" in foxmol.header(head, "Cache-Control"), head
    assert foxmol.header(head, "Strict-Transport-Security") is None, head


def test_behind_caddy_the_log_keeps_the_visitors_network_not_caddys(behind_caddy, host, addr):
    network = foxmol.host_network(host)
    gateway = foxmol.docker("network", "inspect", network, "-f", "{{(index .IPAM.Config 0).Gateway}}")
    log = "/var/log/nginx/fox-avatar/access.log"
    lines = int(foxmol.host_exec(host, "sh", "-c", f"wc -l <{log}"))
    foxmol.https(addr, SITE, "/", foxmol.host_file(host, "/var/lib/caddy/.local/share/caddy/pki/authorities/local/root.crt"))
    # the access log's buffer is written out every second
    last = foxmol.wait_for(lambda: foxmol.host_exec(host, "sed", "-n", f"{lines + 1}p", log), 10)
    assert last.startswith(gateway.rsplit(".", 1)[0] + ".0 "), (gateway, last)
