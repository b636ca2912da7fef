"""Where the suite finds the repository and its fixtures, from any layer of tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
IMPORTERS = FIXTURES / "importers"
