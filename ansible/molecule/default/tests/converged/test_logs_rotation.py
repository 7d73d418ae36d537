"""Our logs' own directory and their retention on the converged host: /var/log/nginx/fox-avatar
(root:adm 0755 as Debian's, each log www-data:adm 0640), /etc/logrotate.d/fox-avatar keeping them fox_avatar_nginx_log_retention_days (7)
days beside Debian's rule for /var/log/nginx/*.log, logrotate's timer; a forced rotation rotates,
Nginx writes the fresh file, and a rotated log older than 7 days is deleted."""
import time

import logprobe
import pytest
from logprobe import LOG_DIR

DAYS = 7   # the default of fox_avatar_nginx_log_retention_days


def test_logs_live_in_a_directory_of_their_own_only_root_writes(host):
    d = host.file(LOG_DIR)
    assert (d.is_directory, d.user, d.group, oct(d.mode)) == (True, "root", "adm", "0o755")


def test_every_log_is_readable_by_the_operators_only(host):
    """www-data:adm 0640, rotated ones too: none is world-readable."""
    listing = host.check_output(f"stat -c '%n %U:%G %a' {LOG_DIR}/*")
    print(listing)
    assert {line.split(" ", 1)[1] for line in listing.splitlines()} == {"www-data:adm 640"}, listing


def test_no_log_of_ours_is_left_where_debians_rule_rotates(host):
    assert host.run("ls /var/log/nginx/fox-avatar.*").rc != 0


def test_our_logrotate_rule_keeps_the_logs_7_days(host):
    rule = host.file("/etc/logrotate.d/fox-avatar").content_string
    print(rule)
    for line in (f"{LOG_DIR}/*.log {{", f"rotate {DAYS}", f"maxage {DAYS}", "daily",
                 "create 0640 www-data adm", "invoke-rc.d nginx rotate"):
        assert line in rule


def test_whole_logrotate_configuration_with_debians_nginx_rule_has_no_error(host):
    """Two rules for one file would be 'duplicate log entry' (logrotate -d exits 1 on any error)."""
    out = host.run("logrotate -d /etc/logrotate.conf")
    errors = [line for line in out.stderr.splitlines() if line.startswith("error")]
    assert out.rc == 0 and errors == [], errors
    assert f"considering log {LOG_DIR}/access.log" in out.stderr + out.stdout


def test_logrotate_timer_is_enabled_and_active(host):
    timer = host.service("logrotate.timer")
    assert timer.is_enabled and timer.is_running


@pytest.fixture(scope="module")
def rotated(host, host_name):
    """A rotated log older than the retention, a recent one, then a forced rotation and a request."""
    host.check_output(
        f"cd {LOG_DIR} && rm -f access.log.* && echo old | gzip > access.log.2.gz && touch -d '{DAYS + 3} days ago' access.log.2.gz"
        f" && echo recent | gzip > access.log.1.gz && touch -d '1 day ago' access.log.1.gz"
        f" && chown www-data:adm access.log.*.gz && chmod 0640 access.log.*.gz")
    before = host.check_output(f"ls -l --time-style=+%F {LOG_DIR}")
    out = host.run("logrotate -v -f /etc/logrotate.d/fox-avatar")
    after = host.check_output(f"ls -l --time-style=+%F {LOG_DIR}")
    print(before, out.stdout, out.stderr, after, sep="\n")
    # Nginx's master and then each worker reopen the logs after the postrotate's signal: a few
    # requests until one lands in the fresh file (at most 10 s)
    for _ in range(20):
        logprobe.send(host_name, logprobe.Visit("after-rotation"))
        if host.file(f"{LOG_DIR}/access.log").size:
            break
        time.sleep(0.5)
    return out


def test_forced_rotation_succeeds(rotated):
    assert rotated.rc == 0, rotated.stderr


def test_forced_rotation_keeps_the_last_log_uncompressed_and_the_recent_one(host, rotated):
    assert host.file(f"{LOG_DIR}/access.log.1").exists
    assert host.run(f"zcat {LOG_DIR}/access.log.2.gz").stdout == "recent\n"


def test_rotated_log_older_than_7_days_is_deleted(host, rotated):
    old = host.run(f"zgrep -lx old {LOG_DIR}/*.gz")
    assert old.stdout == "", old.stdout


def test_nginx_writes_the_fresh_log_after_rotation(host, rotated):
    log = host.file(f"{LOG_DIR}/access.log")
    assert (log.user, log.group, oct(log.mode)) == ("www-data", "adm", "0o640")
    assert f"{logprobe.NETWORK} " in log.content_string
