"""What Molecule's converge (the first run of site.yml on the fresh hosts) printed, from the log
molecule.yml's ANSIBLE_LOG_PATH collects (foxmol.first_converge)."""
import foxmol


def test_first_converge_succeeded_on_the_three_hosts():
    run = foxmol.first_converge()
    assert len(run.recap) == 3 and run.clean, run.excerpt()


def test_first_converge_warns_about_nothing():
    run = foxmol.first_converge()
    warnings = [line for line in run.text.splitlines() if "[WARNING]" in line]
    assert warnings == [], f"{run.log}: {warnings}"
