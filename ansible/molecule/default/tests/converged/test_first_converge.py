"""Molecule's converge step on the fresh host, read from its log (FOX_FROM=repo: the README's
commands' own log). The second converge's changed=0 is Molecule's idempotence step."""
from foxmol import collection_in_use


def test_first_converge_succeeds(molecule_converge):
    recap = molecule_converge.recap
    assert recap and all(r["failed"] == 0 and r["unreachable"] == 0 for r in recap.values()), \
        molecule_converge.excerpt()


def test_first_converge_warns_about_nothing(molecule_converge):
    """No [WARNING] line (e.g. a find on a directory a fresh host does not have yet)."""
    warnings = [line for line in molecule_converge.text.splitlines() if line.startswith("[WARNING]")]
    assert warnings == [], f"{molecule_converge.log}: {warnings}"


def test_first_converge_runs_the_collection_it_should(molecule_converge):
    """The roles that ran are the built tarball's, installed, not this repository's ansible/; or,
    with FOX_FROM=repo, the copy of the working tree's ansible/, reached by the README's commands as
    written (make build, then cd ansible && ansible-playbook -i inventory.yml site.yml)."""
    collection_in_use(molecule_converge)
