"""tools/dists.py: the distributions agree on version, core range, license and metadata."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("dists", ROOT / "tools" / "dists.py")
dists = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dists)


@pytest.fixture
def tree(tmp_path):
    """A copy of the repository's distribution metadata (pyprojects, READMEs, LICENSEs, versions)."""
    shutil.copy(ROOT / "LICENSE", tmp_path / "LICENSE")
    for d in dists.find(ROOT):
        dst = tmp_path / d.path.name
        dst.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(d.path / name, dst / name)
        vf = d.version_file.relative_to(d.path)
        (dst / vf).parent.mkdir(parents=True)
        shutil.copy(d.version_file, dst / vf)
    return tmp_path


def test_repository_distributions_agree():
    assert dists.check(ROOT) == []
    names = [d.name for d in dists.find(ROOT)]
    assert names[0] == "mindtorch-core" and {"mindtorch-cpu", "mindtorch-meta"} <= set(names)


@pytest.mark.parametrize(
    "version,expected",
    [("0.1.0", ">=0.1,<0.2"), ("0.12.3", ">=0.12,<0.13"), ("1.4.2", ">=1.4,<2"), ("2.0.0rc1", ">=2.0,<3")],
)
def test_compatible_range(version, expected):
    assert dists.compatible_range(version) == expected


def test_version_disagreement_is_reported(tree):
    vf = dists.Dist(tree / "mindtorch-meta").version_file
    vf.write_text(vf.read_text().replace('__version__ = "', '__version__ = "9.', 1))
    problems = dists.check(tree)
    assert any("mindtorch-meta" in p and "differs from mindtorch-core" in p for p in problems)


def test_hand_written_core_range_is_reported(tree):
    pp = tree / "mindtorch-cpu" / "pyproject.toml"
    pp.write_text(pp.read_text().replace('"mindtorch-core>=', '"mindtorch-core>=0.0.1,<9,>=', 1))
    problems = dists.check(tree)
    assert any("mindtorch-cpu" in p and "expected mindtorch-core" in p for p in problems)


def test_missing_license_and_metadata_are_reported(tree):
    (tree / "mindtorch-meta" / "LICENSE").write_text("all rights reserved\n")
    pp = tree / "mindtorch-cpu" / "pyproject.toml"
    pp.write_text(pp.read_text().replace('license = "Apache-2.0"\n', "").replace("keywords = [", "_k = ["))
    problems = dists.check(tree)
    assert any(p.startswith("mindtorch-meta/LICENSE") for p in problems)
    assert any("mindtorch-cpu" in p and "license" in p and "keywords" in p for p in problems)


def test_a_new_distribution_joins_by_its_directory(tree):
    xpu = tree / "mindtorch-xpu"
    (xpu / "src" / "mindtorch_xpu").mkdir(parents=True)
    pp = (tree / "mindtorch-cpu" / "pyproject.toml").read_text()
    pp = pp.replace("mindtorch-cpu", "mindtorch-xpu").replace("mindtorch_cpu", "mindtorch_xpu")
    pp = pp.replace('"mindtorch-core>=0.1,<0.2"', '"mindtorch-core>=0.1,<0.2", "mindtorch-cpu>=0.0"')
    (xpu / "pyproject.toml").write_text(pp)
    (xpu / "README.md").write_text("# mindtorch-xpu\n")
    (xpu / "src" / "mindtorch_xpu" / "__init__.py").write_text('__version__ = "0.0.9"\n')
    problems = dists.check(tree)
    assert any("mindtorch-xpu" in p and "version 0.0.9" in p for p in problems)
    assert any("mindtorch-xpu" in p and "mindtorch-cpu>=0.0" in p for p in problems)
    assert any(p.startswith("mindtorch-xpu/LICENSE") for p in problems)
    # set-version brings every distribution, range and LICENSE copy into line
    dists.set_version("0.3.0", tree)
    assert dists.check(tree) == []
    assert {d.version for d in dists.find(tree)} == {"0.3.0"}
    assert '"mindtorch-cpu>=0.3,<0.4"' in (xpu / "pyproject.toml").read_text()


def test_cli_exit_codes(tree):
    tool = ROOT / "tools" / "dists.py"
    ok = subprocess.run([sys.executable, str(tool), "check"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    usage = subprocess.run([sys.executable, str(tool), "frobnicate"], capture_output=True, text=True)
    assert usage.returncode == 2 and "set-version" in usage.stderr
    bad = subprocess.run([sys.executable, str(tool), "artifacts", str(tree)], capture_output=True, text=True)
    assert bad.returncode == 1 and "no mindtorch_* wheels" in bad.stderr
