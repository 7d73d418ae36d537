"""Nginx's connection sizing has one owner, nginx/connections.env (issue 45): compose's start script
sources it, the role fox_avatar_nginx reads it through its link (neither writes a figure of its
own), the tests through tools/connections.py."""
from product_files import ROOT, code_lines, holds

OWNER = ROOT / "nginx/connections.env"
READERS = ["nginx/compose/entrypoint.d/15-connections.sh", "ansible/roles/fox_avatar_nginx/tasks/connections.yml",
           "tests/compose/test_connections.py", "ansible/molecule/default/tests/converged/test_connections.py"]


def test_the_connection_sizing_has_one_owner():
    import connections   # tools/connections.py
    values = connections.read()
    script = (ROOT / READERS[0]).read_text(encoding="utf-8")
    assert ". /usr/local/lib/fox-avatar/nginx/connections.env" in script
    assert "nginx/connections.env" in (ROOT / "nginx/Dockerfile").read_text(encoding="utf-8")
    link = ROOT / "ansible/roles/fox_avatar_nginx/files/connections.env"
    assert link.is_symlink() and link.resolve() == OWNER.resolve(), f"{link} does not link to {OWNER}"
    assert "file='connections.env'" in (ROOT / READERS[1]).read_text(encoding="utf-8")
    for reader in READERS[:2]:
        code = "\n".join(code_lines((ROOT / reader).read_text(encoding="utf-8")))
        for name, value in values.items():
            assert not holds(code, str(value)), f"{reader} writes {value} ({name}: nginx/connections.env's)"
    for test in READERS[2:]:   # what they expect is worked out from the file (their own settings aside)
        assert "import connections" in (ROOT / test).read_text(encoding="utf-8"), test
