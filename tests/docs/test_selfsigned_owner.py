"""The self-signed certificate's days have one owner, nginx/selfsigned.env (issue 37; the ports'
register is test_fact_copies.py)."""
import re

from product_files import ROOT, holds


def test_the_self_signed_policy_has_one_owner():
    """nginx/selfsigned.env owns the self-signed certificate's days (issue 37): compose's start
    script sources it, the TLS role reads it through its link; neither writes a number of its own."""
    owner = ROOT / "nginx/selfsigned.env"
    values = dict(line.split("=", 1) for line in owner.read_text(encoding="utf-8").splitlines()
                  if line and not line.startswith("#"))
    assert set(values) == {"SELFSIGNED_DAYS", "SELFSIGNED_RENEW_DAYS"}, values
    script = (ROOT / "nginx/compose/entrypoint.d/20-certificate.sh").read_text(encoding="utf-8")
    assert ". /usr/local/lib/fox-avatar/nginx/selfsigned.env" in script
    assert "nginx/selfsigned.env" in (ROOT / "nginx/Dockerfile").read_text(encoding="utf-8")
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"-days [0-9]|checkend \$\(\([0-9]", code), "20-certificate.sh writes days of its own"
    link = ROOT / "ansible/roles/fox_avatar_tls/files/selfsigned.env"
    assert link.is_symlink() and link.resolve() == owner.resolve(), f"{link} does not link to {owner}"
    role = ROOT / "ansible/roles/fox_avatar_tls"
    for path in [*role.glob("tasks/*.yml"), *role.glob("vars/*.yml"), *role.glob("defaults/*.yml")]:
        for name, days in values.items():
            assert not holds(path.read_text(encoding="utf-8"), days), f"{path.relative_to(ROOT)} writes {days} ({name})"
