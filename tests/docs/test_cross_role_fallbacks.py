"""A role reads another role's setting only with the owner's default (the pairs' register; the
ports' is test_fact_copies.py).

Every spelling of Jinja's fallback is read: `VAR | default(`, `VAR|default(`, `VAR | d(`, and with
any spacing."""
import re

from product_files import ROOT


# A role's setting that another role needs is read as it is where the reader has the owner's defaults
# loaded. The pre-flight play checks each role's settings (fox_avatar_common's assert_spec.yml) with
# that role's defaults only, not its dependencies', and some readers must not run the owner at all
# (Prometheus's and the exporters' role on a host without Nginx): those readers fall back on the
# owner's default, written again. These pairs, each checked to give what the owner's default gives.
# (reader role, the owner's variable)
CROSS_ROLE_FALLBACKS = {
    ("fox_avatar_monitoring", "fox_avatar_tls_mode"),
    ("fox_avatar_monitoring", "fox_avatar_tls_domains"),
    ("fox_avatar_monitoring", "fox_avatar_tls_cert_path"),
    ("fox_avatar_nginx", "fox_avatar_monitoring_enabled"),
    ("fox_avatar_app", "fox_avatar_monitoring_address"),
    ("fox_avatar_nginx", "fox_avatar_tls_domains"),
    ("fox_avatar_nginx", "fox_avatar_tls_cert_path"),
    ("fox_avatar_nginx", "fox_avatar_tls_key_path"),
    ("fox_avatar_acme", "fox_avatar_tls_mode"),
    ("fox_avatar_acme", "fox_avatar_tls_domains"),
    ("fox_avatar_acme", "fox_avatar_nginx_acme_root"),
}
FALLBACK = re.compile(r"\b(fox_avatar_[a-z0-9_]+)\s*\|\s*(?:default|d)\s*\(([^()]*(?:\([^()]*\))?[^()]*)\)")


def role_owning(variable, roles):
    return max((role for role in roles if variable.startswith(role + "_")), key=len, default=None)


def test_a_role_reads_another_roles_setting_only_with_the_owners_default():
    import os.path

    import yaml
    from jinja2.nativetypes import NativeEnvironment
    env = NativeEnvironment()
    env.filters["dirname"] = os.path.dirname
    roles_dir = ROOT / "ansible/roles"
    roles = sorted(path.name for path in roles_dir.iterdir() if (path / "tasks").is_dir())
    defaults = {role: yaml.safe_load((roles_dir / role / "defaults/main.yml").read_text(encoding="utf-8")) or {}
                for role in roles if (roles_dir / role / "defaults/main.yml").exists()}
    magic = {"playbook_dir": "/repo/ansible", "inventory_hostname": "host1"}

    def value_of(owner, variable):
        value = defaults[owner][variable]
        context = {**magic, **{k: v for k, v in defaults[owner].items() if k != variable and "{{" not in str(v)}}
        if isinstance(value, list):
            return [env.from_string(v).render(context) if isinstance(v, str) else v for v in value]
        return env.from_string(value).render(context) if isinstance(value, str) and "{{" in value else value

    found, wrong = set(), []
    for path in roles_dir.rglob("*"):
        if path.suffix not in (".yml", ".j2") or "molecule" in path.parts:
            continue
        reader = path.relative_to(roles_dir).parts[0]
        for variable, fallback in FALLBACK.findall(path.read_text(encoding="utf-8")):
            owner = role_owning(variable, roles)
            if owner is None or owner == reader:
                continue
            found.add((reader, variable))
            got = env.from_string("{{ " + fallback + " }}").render(magic)
            want = value_of(owner, variable)
            if got != want:
                wrong.append(f"{path.relative_to(ROOT)}: {variable} | default({fallback}) gives {got!r}, "
                             f"{owner}'s default {want!r}")
    assert not wrong, "fallbacks that differ from their owner's default:\n" + "\n".join(wrong)
    assert not found - CROSS_ROLE_FALLBACKS, (
        f"new fallbacks on another role's default (read it where the owner's defaults are loaded, or list "
        f"the pair with why): {sorted(found - CROSS_ROLE_FALLBACKS)}")
    assert not CROSS_ROLE_FALLBACKS - found, f"these no longer fall back: drop them: {sorted(CROSS_ROLE_FALLBACKS - found)}"


def test_every_spelling_of_a_fallback_is_read():
    for text in ["{{ fox_avatar_tls_mode | default('selfsigned') }}", "{{ fox_avatar_tls_mode|default('selfsigned') }}",
                 "{{ fox_avatar_tls_mode | d('selfsigned') }}", "{{ fox_avatar_tls_mode |d( 'selfsigned') }}",
                 "{{ fox_avatar_tls_mode | default ('selfsigned') }}"]:
        assert [(v, f.strip()) for v, f in FALLBACK.findall(text)] == [("fox_avatar_tls_mode", "'selfsigned'")], text
