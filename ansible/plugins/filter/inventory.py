# Where the roles find each other's hosts, from the inventory (run on the control machine):
#
#   APPS | fox_avatar.deploy.pool_members(hostvars, proxies, this_host)
#        fox_avatar_pool's upstream pool: {"<app host>.conf": "server address:port;"}
#   MEMBER | fox_avatar.deploy.pool_files(groups, hostvars, this_host)
#        where each proxy keeps one member's upstream file (fox_avatar_pool's tasks/mark.yml)
#   GROUPS | fox_avatar.deploy.scrape_targets(hostvars, probe_modules)
#        fox_avatar_monitoring's file_sd target groups, one list per Prometheus job
#
# A host's settings come from its hostvars (inventory, group_vars, -e). A setting the inventory does
# not give has the default of the role that owns it, read here from that role's defaults/main.yml
# (fox_avatar_pool's directory and proxies' group, fox_avatar_monitoring's listeners' address) or,
# for a port, from ports.env (the collection's copy: fox_avatar_app's port and /metrics port, the
# exporters'), never
# written here a second time.
from functools import cache
from pathlib import Path

import yaml
from ansible.errors import AnsibleFilterError
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.ports import read as read_ports

# plugins/filter/ -> the collection's root (ansible/ in the repository)
_ROLES = Path(__file__).resolve().parents[2] / "roles"
_PORTS = Path(__file__).resolve().parents[2] / "ports.env"


@cache
def role_default(role, name):
    """A literal default of a role of this collection (its defaults/main.yml)."""
    defaults = yaml.safe_load((_ROLES / role / "defaults" / "main.yml").read_text()) or {}
    value = defaults.get(name)
    if value is None or (isinstance(value, str) and "{{" in value):
        raise AnsibleFilterError(f"{role}/defaults/main.yml: {name} is not a literal default")
    return value


@cache
def default_port(name):
    """A default port of ports.env (the collection's copy)."""
    return read_ports(_PORTS)[name]


def _setting(hostvars, host, name, default):
    value = hostvars[host].get(name)
    return default if value is None else value


def _bracket(address):
    """An IPv6 literal in brackets (for address:port)."""
    address = str(address)
    return f"[{address}]" if ":" in address else address


def pool_members(apps, hostvars, proxies, this_host):
    """One upstream member per app host: its fox_avatar_app_address (127.0.0.1, the app role's rule,
    only when the host is this proxy and the only one) and its fox_avatar_app_port."""
    port_default = default_port("APP_PORT")
    members = {}
    for host in apps:
        address = hostvars[host].get("fox_avatar_app_address")
        if address is None:
            if host == this_host and list(proxies) == [host]:
                address = "127.0.0.1"
            else:
                raise AnsibleFilterError(
                    f"fox_avatar_app_address ({host}): not set; the proxy {this_host} cannot reach this app host"
                    " (only a host that is its own and only proxy defaults to 127.0.0.1)")
        port = _setting(hostvars, host, "fox_avatar_app_port", port_default)
        members[f"{host}.conf"] = f"server {_bracket(address)}:{port};"
    return members


def pool_files(member, groups, hostvars, this_host):
    """Where each proxy keeps MEMBER's upstream file: one {"proxy", "path"} per host of THIS_HOST's
    fox_avatar_pool_proxies_group, the path in that proxy's fox_avatar_pool_dir (each setting, when
    the inventory does not give it, fox_avatar_pool's default)."""
    group = _setting(hostvars, this_host, "fox_avatar_pool_proxies_group",
                     role_default("fox_avatar_pool", "fox_avatar_pool_proxies_group"))
    dir_default = role_default("fox_avatar_pool", "fox_avatar_pool_dir")
    return [{"proxy": proxy, "path": f"{_setting(hostvars, proxy, 'fox_avatar_pool_dir', dir_default)}/{member}.conf"}
            for proxy in groups.get(group, [])]


def scrape_targets(groups, hostvars, probe_modules):
    """file_sd target groups for fox-avatar-app (every app host's /metrics listener, unless off) and
    fox-avatar-nginx, -mtail, -probe (every proxy's exporters); the label `host` tells hosts apart
    whose listeners are all loopback."""
    metrics_port_default = default_port("APP_METRICS_PORT")
    address_default = role_default("fox_avatar_monitoring", "fox_avatar_monitoring_address")
    sd = {"fox-avatar-app": [], "fox-avatar-nginx": [], "fox-avatar-mtail": [], "fox-avatar-probe": []}

    def listen(host):
        return _bracket(_setting(hostvars, host, "fox_avatar_monitoring_address", address_default))

    for host in groups.get("avatar_apps", []):
        port = str(_setting(hostvars, host, "fox_avatar_app_metrics_port", metrics_port_default))
        if port == "off":
            continue
        address = hostvars[host].get("fox_avatar_app_metrics_address")
        address = _bracket(address) if address is not None else listen(host)
        sd["fox-avatar-app"].append({"targets": [f"{address}:{port}"], "labels": {"host": host}})
    for host in groups.get("avatar_proxies", []):
        address = listen(host)
        sd["fox-avatar-nginx"].append({"targets": [f"{address}:{default_port('NGINX_EXPORTER_PORT')}"], "labels": {"host": host}})
        sd["fox-avatar-mtail"].append({"targets": [f"{address}:{default_port('MTAIL_PORT')}"], "labels": {"host": host}})
        # fox_avatar_monitoring's default: the first name of the certificate (fox_avatar_tls_domains,
        # whose default is the host's inventory name)
        url = hostvars[host].get("fox_avatar_monitoring_probe_url")
        if url is None:
            url = f"https://{(hostvars[host].get('fox_avatar_tls_domains') or [host])[0]}/"
        for module in probe_modules:
            sd["fox-avatar-probe"].append({"targets": [url], "labels": {
                "host": host, "module": module, "__param_module": module,
                "__fox_avatar_blackbox": f"{address}:{default_port('BLACKBOX_PORT')}"}})
    return sd


class FilterModule:
    def filters(self):
        return {"pool_members": pool_members, "pool_files": pool_files, "scrape_targets": scrape_targets}
