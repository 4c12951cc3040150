"""The mutation check's injected bugs still apply to the source (each text occurs exactly once)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("mutation_check", ROOT / "tools" / "mutation_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_mutation_applies_exactly_once():
    mod = _module()
    assert len(mod.MUTATIONS) >= 5
    for name, path, old, new, tests in mod.MUTATIONS:
        assert (ROOT / path).read_text().count(old) == 1, name
        assert old != new and tests and all((ROOT / t).exists() for t in tests), name
