"""The acme scenario's verifiers (see ../molecule.yml): shared helpers from ../../shared (foxmol),
the scenario's names, and the facts each stage compares with the one before."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared"))
