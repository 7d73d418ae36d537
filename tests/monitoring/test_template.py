"""The template's monitoring variables (nginx/README.md): avatar_status_listen, avatar_status_allow,
avatar_fallback_syslog. Unset, the rendered file has none of it; set, Nginx takes it without a word."""
import re
import subprocess

from stack.stacks import load_renderer

MONITORING_VARIABLES = ("avatar_status_listen", "avatar_status_allow", "avatar_fallback_syslog")


def test_without_the_monitoring_variables_there_is_no_status_server_and_no_feed(edge):
    site = load_renderer()({k: v for k, v in edge.variables.items() if k not in MONITORING_VARIABLES})
    assert "stub_status" not in site and "syslog" not in site and "avatar_fallback_feed" not in site


def test_the_status_server_allows_the_given_addresses_and_denies_the_rest(edge):
    site = load_renderer()({**edge.variables, "avatar_status_allow": ["10.89.0.0/24", "127.0.0.1"]})
    server = re.search(r"^server \{\n((?:(?!^\}).)*stub_status.*?)^\}", site, re.S | re.M).group(1)
    directives = [line.strip() for line in server.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert directives[:5] == [f"listen 127.0.0.1:{edge.status_port};", "allow 10.89.0.0/24;", "allow 127.0.0.1;",
                              "deny all;", f"error_log {edge.logs / 'error.log'} alert;"]


def test_nginx_takes_the_monitoring_variables_without_a_warning(edge):
    out = subprocess.run(edge.nginx_args("-t"), capture_output=True, text=True)
    assert out.returncode == 0 and "test is successful" in out.stderr, out.stderr
    assert not re.search(r"\[(warn|emerg|alert|crit|error)\]", out.stderr), out.stderr
