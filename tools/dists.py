"""The distributions of this repository (every ``mindtorch-*/pyproject.toml``) kept in step.

    python tools/dists.py check              versions, core ranges, license and metadata agree (lint runs it)
    python tools/dists.py set-version 0.2.0  write a new version everywhere it lives
    python tools/dists.py artifacts DIR      the built wheels and sdists in DIR carry LICENSE and README

Each distribution writes its version once, as ``__version__`` in its package (the build backend reads
it from there), and depends on the other in-repo distributions with the compatible range computed
from that version, so a new distribution joins by having its directory here.
"""

import re
import sys
import tarfile
import zipfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CORE = "mindtorch-core"
LICENSE_EXPR = "Apache-2.0"
REQUIRED = (
    "description",
    "readme",
    "license",
    "license-files",
    "authors",
    "keywords",
    "classifiers",
    "requires-python",
)
_VERSION_RE = re.compile(r'^__version__\s*=\s*["\']([^"\']+)["\']', re.M)
_REQ_RE = re.compile(r"^\s*(mindtorch-[A-Za-z0-9_.-]+?)\s*((?:[<>=!~].*)?)$")


class Dist:
    """One distribution directory: its pyproject, where its version is written, and the version."""

    def __init__(self, path):
        self.path = Path(path)
        with open(self.path / "pyproject.toml", "rb") as f:
            self.pyproject = tomllib.load(f)
        self.project = self.pyproject.get("project", {})
        self.name = self.project.get("name", self.path.name)
        rel = self.pyproject.get("tool", {}).get("hatch", {}).get("version", {}).get("path")
        self.version_file = self.path / rel if rel else None

    @property
    def version(self):
        if "version" in self.project:
            return self.project["version"]
        if self.version_file is None or not self.version_file.is_file():
            return None
        m = _VERSION_RE.search(self.version_file.read_text())
        return m.group(1) if m else None

    def internal_requirements(self):
        """(distribution, specifier) for each dependency on another mindtorch-* distribution."""
        out = []
        for req in self.project.get("dependencies", []):
            m = _REQ_RE.match(req.split(";")[0])
            if m:
                out.append((m.group(1), m.group(2).replace(" ", "")))
        return out


def find(root=ROOT):
    """Every distribution directory under root, core first."""
    dists = [Dist(p.parent) for p in sorted(Path(root).glob("mindtorch-*/pyproject.toml"))]
    return sorted(dists, key=lambda d: (d.name != CORE, d.name))


def compatible_range(version):
    """The range a dependant accepts: same minor while 0.x, same major from 1.0 on."""
    major, minor = (int(x) for x in re.match(r"(\d+)\.(\d+)", version).groups())
    upper = f"{major}.{minor + 1}" if major == 0 else f"{major + 1}"
    return f">={major}.{minor},<{upper}"


def _same_spec(a, b):
    return sorted(a.split(",")) == sorted(b.split(","))


def check(root=ROOT):
    """A list of problems (empty when the distributions agree)."""
    root = Path(root)
    dists = find(root)
    names = {d.name for d in dists}
    problems = []
    core = next((d for d in dists if d.name == CORE), None)
    if core is None or core.version is None:
        return [f"{CORE}: no distribution or no version found under {root}"]
    want_range = compatible_range(core.version)
    license_text = (root / "LICENSE").read_bytes() if (root / "LICENSE").is_file() else None
    if license_text is None:
        problems.append("LICENSE: missing at the repository root")
    backend = core.pyproject.get("build-system", {}).get("build-backend")
    for d in dists:
        where = f"{d.path.name}/pyproject.toml"
        if d.version is None:
            problems.append(f"{where}: no version (set __version__ in the file [tool.hatch.version] names)")
        elif d.version != core.version:
            problems.append(f"{where}: version {d.version} differs from {CORE} {core.version}")
        for dep, spec in d.internal_requirements():
            if dep not in names:
                problems.append(f"{where}: depends on {dep}, which is not a distribution in this repository")
            elif not _same_spec(spec, want_range):
                problems.append(
                    f"{where}: requires {dep}{spec}, expected {dep}{want_range} "
                    f"(run `python tools/dists.py set-version {core.version}`)"
                )
        if d.name != CORE and CORE not in dict(d.internal_requirements()):
            problems.append(f"{where}: does not depend on {CORE}")
        missing = [k for k in REQUIRED if not d.project.get(k)]
        if missing:
            problems.append(f"{where}: metadata missing: {', '.join(missing)}")
        if d.project.get("license") != LICENSE_EXPR:
            problems.append(f'{where}: license should be "{LICENSE_EXPR}", not {d.project.get("license")!r}')
        readme = d.project.get("readme")
        if isinstance(readme, str) and not (d.path / readme).is_file():
            problems.append(f"{where}: readme {readme} does not exist")
        lic = d.path / "LICENSE"
        if license_text is not None and (not lic.is_file() or lic.read_bytes() != license_text):
            problems.append(
                f"{d.path.name}/LICENSE: missing or not the repository's LICENSE "
                f"(run `python tools/dists.py set-version {core.version}` to copy it)"
            )
        if d.pyproject.get("build-system", {}).get("build-backend") != backend:
            problems.append(f"{where}: build backend differs from {CORE}'s ({backend})")
    return problems


def set_version(version, root=ROOT):
    """Write `version` into every distribution and the matching range into every internal dependency."""
    root = Path(root)
    if not re.fullmatch(r"\d+\.\d+\.\d+([a-z]+\d+)?", version):
        raise ValueError(f"not a release version: {version!r}")
    rng = compatible_range(version)
    license_text = (root / "LICENSE").read_bytes()
    for d in find(root):
        if d.version_file is not None:
            text = d.version_file.read_text()
            d.version_file.write_text(_VERSION_RE.sub(f'__version__ = "{version}"', text, count=1))
        pp = d.path / "pyproject.toml"
        text = pp.read_text()
        text = re.sub(
            r'"(mindtorch-[A-Za-z0-9_.-]+?)\s*[<>=!~][^";]*(;[^"]*)?"',
            lambda m: f'"{m.group(1)}{rng}{m.group(2) or ""}"',
            text,
        )
        pp.write_text(text)
        (d.path / "LICENSE").write_bytes(license_text)


def check_artifacts(directory):
    """Problems with the built wheels and sdists in `directory`: each carries LICENSE and README."""
    problems = []
    files = sorted(Path(directory).glob("mindtorch_*"))
    if not files:
        return [f"{directory}: no mindtorch_* wheels or sdists"]
    for f in files:
        if f.suffix == ".whl":
            names = zipfile.ZipFile(f).namelist()
            ok_lic = any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
            meta = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
            # a wheel carries the README as the body of its METADATA
            ok_readme = meta is not None and b"Description-Content-Type: text/markdown" in zipfile.ZipFile(f).read(meta)
        elif f.name.endswith(".tar.gz"):
            with tarfile.open(f) as t:
                names = t.getnames()
                ok_lic = any(n.count("/") == 1 and n.endswith("/LICENSE") and t.getmember(n).isfile() for n in names)
            ok_readme = any(n.count("/") == 1 and n.endswith("/README.md") for n in names)
        else:
            continue
        if not ok_lic:
            problems.append(f"{f.name}: no LICENSE file")
        if not ok_readme:
            problems.append(f"{f.name}: no README.md")
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["check"] and len(argv) == 1:
        problems = check()
        ok = f"{len(find())} distributions agree: version {find()[0].version}"
    elif argv[:1] == ["set-version"] and len(argv) == 2:
        set_version(argv[1])
        problems, ok = check(), f"version set to {argv[1]}"
    elif argv[:1] == ["artifacts"] and len(argv) == 2:
        problems, ok = check_artifacts(argv[1]), f"artifacts in {argv[1]} carry LICENSE and README"
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(f"dists: {p}", file=sys.stderr)
    if not problems:
        print(f"dists: {ok}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
