"""`python -m mindtorch.plugins new NAME` writes a distribution that installs and passes the
conformance suite's structural checks as generated."""

import os
import subprocess
import sys

import pytest


class _Done(subprocess.CompletedProcess):
    def __repr__(self):
        return f"<rc={self.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}>"


def _run(argv, cwd=None, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("MINDTORCH_BACKENDS", "PYTHONPATH")}
    e.update({k: str(v) for k, v in env.items()})
    p = subprocess.run([sys.executable] + argv, capture_output=True, text=True, env=e, cwd=cwd, timeout=600)
    return _Done(p.args, p.returncode, p.stdout, p.stderr)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("scaffold")
    r = _run(["-m", "mindtorch.plugins", "new", "gizmo", "--dir", str(root), "--requires", "packaging>=20"])
    assert r.returncode == 0, r
    dist = root / "mindtorch-gizmo"
    written = sorted(str(p.relative_to(dist)) for p in dist.rglob("*") if p.is_file())
    site = root / "site"
    cmd = ["-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check", "--target", str(site)]
    r = _run(cmd + ["--no-build-isolation", str(dist)])
    if r.returncode != 0:
        r = _run(cmd + [str(dist)])
    assert r.returncode == 0, r
    return dist, site, written


def test_scaffold_files(generated):
    dist, _, names = generated
    assert names == ["README.md", "pyproject.toml", "src/mindtorch_gizmo/__init__.py", "tests/test_conformance.py"]
    assert 'gizmo = "mindtorch_gizmo:backend"' in (dist / "pyproject.toml").read_text()
    src = (dist / "src/mindtorch_gizmo/__init__.py").read_text()
    assert "from mindtorch.plugins import" in src and "mindtorch._" not in src


def test_scaffold_dependencies(generated):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    from mindtorch.plugins.scaffold import core_requirement

    dist, _, _ = generated
    project = tomllib.loads((dist / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == [core_requirement(), "numpy", "packaging>=20"]
    assert core_requirement() == "mindtorch-core>=0.1,<0.2"
    assert project["optional-dependencies"]["test"] == ["pytest", "mindtorch-cpu"]


def test_generated_backend_holds_every_dtype_and_one_device_however_spelled(generated):
    _, site, _ = generated
    code = """
import warnings
warnings.simplefilter("ignore")
import mindtorch as t
from mindtorch.plugins import dtypes
bad = []
for d in dtypes.TENSOR_DTYPES:
    x = (t.arange(6) * 7 + 250).to(d)[1::2]
    for spelling in ("gizmo", "gizmo:0", t.device("gizmo")):
        y = x.to(spelling)
        if y.device != t.device("gizmo", 0) or not t.equal(y.cpu(), x):
            bad.append(f"{d} to {spelling!r}")
mixed = t.tensor([1.0], device="gizmo") + t.zeros(1, device="gizmo:0") + t.ones(1, device=t.device("gizmo"))
print(bad, mixed.device, mixed.cpu().tolist())
"""
    r = _run(["-c", code], PYTHONPATH=site)
    assert r.returncode == 0, r
    assert r.stdout.strip() == "[] gizmo:0 [2.0]", r


def test_generated_backend_passes_structural_checks(generated, tmp_path):
    _, site, _ = generated
    out = tmp_path / "r.json"
    r = _run(
        ["-m", "mindtorch.testing.conformance", "--device", "gizmo", "--json", str(out)],
        PYTHONPATH=site,
        MINDTORCH_CONFORMANCE_DIR=tmp_path,
    )
    assert r.returncode == 0, r
    import json

    rep = json.loads(out.read_text())
    assert all(c["status"] == "passed" for c in rep["checks"].values()), rep["checks"]
    assert rep["ok"] and rep["ops"]["empty"]["status"] == "conformant" and rep["ops"]["add"]["status"] == "fallback"


def test_generated_conformance_test_runs_under_pytest(generated):
    dist, site, _ = generated
    r = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=dist, PYTHONPATH=site)
    assert r.returncode == 0, r
    from mindtorch.ops.registry import OPS
    from mindtorch.testing.conformance.checks import CHECKS

    assert f"{len(OPS) + len(CHECKS)} passed" in r.stdout, r.stdout


def test_generated_backend_without_fallback_reports_missing(generated):
    _, site, _ = generated
    r = _run(
        ["-m", "mindtorch.testing.conformance", "--device", "gizmo", "--ops", "add,empty,zeros", "--no-checks"],
        PYTHONPATH=site,
        MINDTORCH_GIZMO_HOST_FALLBACK="0",
    )
    summary = r.stdout.strip().splitlines()[-1]
    assert r.returncode == 0 and "2 missing" in summary and "1/3 ops conformant" in summary, r
    strict = _run(
        ["-m", "mindtorch.testing.conformance", "--device", "gizmo", "--ops", "add", "--no-checks", "--strict"],
        PYTHONPATH=site,
        MINDTORCH_GIZMO_HOST_FALLBACK="0",
    )
    assert strict.returncode == 1, strict


def test_bad_names_are_refused(tmp_path):
    r = _run(["-m", "mindtorch.plugins", "new", "Bad-Name", "--dir", str(tmp_path)])
    assert r.returncode != 0 and "not a usable device type" in r.stderr
