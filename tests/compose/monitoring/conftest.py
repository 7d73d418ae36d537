"""tests/compose/monitoring: the monitoring profile (`docker compose --profile monitoring up`), run by
tests/compose/run.sh after tests/compose, on the same project. Its helpers are tests/compose's."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
