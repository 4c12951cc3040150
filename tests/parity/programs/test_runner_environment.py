"""What a torch program sees of its environment under `python -m mindtorch.run`: torch.__version__
compares like PyTorch's TorchVersion, the main script's __file__ is absolute, and processes started
with the spawn method see the same alias."""

import subprocess
import sys
import textwrap

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402


def _run(tmp_path, source, *args, cwd=None):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    r = subprocess.run(
        [sys.executable, "-m", "mindtorch.run", "prog.py", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd or tmp_path,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


VERSION_CHECKS = [
    'torch.__version__ >= "2.0"',
    'torch.__version__ >= "2.13"',
    'torch.__version__ < "2.14.0"',
    'torch.__version__ > "2.13.0rc1"',
    'torch.__version__ > "2.13.0.dev20250101"',
    'torch.__version__ < "3"',
    'torch.__version__ == "2.13.0"',
    'torch.__version__ == "2.13"',
    'torch.__version__ != "2.12.1"',
    "torch.__version__ >= (2, 0)",
    "torch.__version__ >= (2, 13, 0)",
    "torch.__version__ < (2, 14)",
    "torch.__version__ == (2, 13)",
    "torch.__version__ > (1, 13, 1)",
    'Version(torch.__version__) >= Version("2.0")',
    'torch.__version__ >= Version("2.1")',
    'torch.__version__.split(".")[0] == "2"',
    "isinstance(torch.__version__, str)",
    'torch.__version__.startswith("2.")',
    "torch.version.__version__ == torch.__version__",
    'type(torch.__version__).__name__ == "TorchVersion"',
    "hash(torch.__version__) == hash(str(torch.__version__))",
]


_PROBE = """
def probe(check, names):
    try:
        return str(eval(check, names))
    except Exception as e:
        return type(e).__name__
"""


def _probe_lines(names):
    scope = {}
    exec(_PROBE, scope)
    return [scope["probe"](check, names) for check in VERSION_CHECKS]


def test_version_compares_as_in_pytorch(tmp_path):
    """Each check under the runner gives what it gives under PyTorch's TorchVersion holding the API version
    the runner reports (PyTorch's own build adds a local part, '+cpu', which changes equality)."""
    from packaging.version import Version
    from torch.torch_version import TorchVersion

    api = mindtorch.version.torch_api
    assert str(torch.__version__).split("+")[0] == api
    oracle = type("torch", (), {"__version__": TorchVersion(api), "version": type("v", (), {"__version__": api})})
    theirs = _probe_lines({"torch": oracle, "Version": Version})
    lines = _run(
        tmp_path,
        "import torch\nfrom packaging.version import Version\n"
        + _PROBE
        + f"for check in {VERSION_CHECKS!r}:\n    print(probe(check, globals()))\n",
    )
    assert lines == theirs


VERSION_PAIRS = [
    "2.13.0",
    "2.13",
    "2.13.0rc2",
    "2.13.0a1",
    "2.13.0.dev1",
    "2.13.0.post1",
    "2.13.0+cpu",
    "1!0.1",
    "2.13.0+cu121",
    "2.13.0+abc.5",
    "2.13.0rc2.dev3",
    "02.013",
    "v2.13",
    "parrot",
    "2.x",
    "2.13.0-1",
    (2, 13),
    [2, 13, 1],
    (2, "x"),
    2.13,
    None,
]


@pytest.mark.parametrize("mine", ["2.13.0", "2.13.0rc1", "2.13.0+cpu", "1.9.1.post2", "parrot"])
def test_torch_version_compares_like_pytorchs(mine):
    from mindtorch.torch_version import TorchVersion as Ours
    from torch.torch_version import TorchVersion as Theirs

    for other in VERSION_PAIRS:
        for op in ("<", "<=", ">", ">=", "==", "!="):
            outcome = []
            for cls in (Ours, Theirs):
                try:
                    outcome.append(eval(f"a {op} b", {"a": cls(mine), "b": other}))
                except TypeError:
                    outcome.append(TypeError)
            assert outcome[0] == outcome[1], (mine, op, other)
    assert hash(Ours(mine)) == hash(mine) and isinstance(Ours(mine), str)


def test_mindtorch_keeps_its_own_version_outside_the_runner():
    assert mindtorch.__version__ == "0.1.0"


def test_main_file_is_absolute_so_chdir_does_not_break_it(tmp_path):
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    lines = _run(
        tmp_path,
        """
        import os
        here = os.path.dirname(__file__)
        os.chdir("elsewhere")
        print(os.path.isabs(__file__), os.path.exists(os.path.join(os.path.dirname(__file__), "prog.py")))
        """,
    )
    assert lines == ["True True"]


SPAWNED = """
import multiprocessing as mp
import torch


def name(_):
    return torch.__name__ + " " + str(torch.__version__ >= (2, 0))


def worker(rank, q):
    q.put(name(rank))


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i * i)]), torch.__name__


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        print("pool", *sorted(set(pool.map(name, range(4)))))
    q = ctx.SimpleQueue()
    torch.multiprocessing.spawn(worker, args=(q,), nprocs=2)
    print("spawn", q.get(), q.get())
    dl = torch.utils.data.DataLoader(Squares(), batch_size=2, num_workers=2, multiprocessing_context="spawn")
    print("loader", *[(b[0].sum().item(), b[1][0]) for b in dl])
"""


def test_spawned_children_see_the_alias(tmp_path):
    lines = _run(tmp_path, SPAWNED)
    assert lines == [
        "pool mindtorch True",
        "spawn mindtorch True mindtorch True",
        "loader (1.0, 'mindtorch') (13.0, 'mindtorch')",
    ]
