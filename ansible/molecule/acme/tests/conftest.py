"""The acme scenario's verifiers (see ../molecule.yml): puts ../../shared (foxmol) on sys.path.
The scenario's names and what the tests read from the host are in acme_tls.py."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared"))
