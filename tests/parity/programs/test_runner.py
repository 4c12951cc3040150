"""`python -m mindtorch.run` runs torch programs unchanged: the same losses as PyTorch."""

import os
import subprocess
import sys

from helpers import torch_or_skip

torch = torch_or_skip()

import pytest  # noqa: E402

PROGRAMS = os.path.dirname(os.path.abspath(__file__))  # the scripts live beside this file


def _run(args, runner):
    cmd = [sys.executable] + (["-m", "mindtorch.run"] if runner else []) + args
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=PROGRAMS)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _losses(out):
    return [float(line.split()[1]) for line in out.splitlines() if line.startswith("loss ")]


def test_mnist_adadelta_steplr_matches_pytorch_step_by_step():
    args = [os.path.join(PROGRAMS, "mnist_adadelta.py"), "--epochs", "2"]
    ours, theirs = _losses(_run(args, True)), _losses(_run(args, False))
    assert len(ours) == len(theirs) == 8
    assert ours == pytest.approx(theirs, rel=1e-5)


PROGRAM_RUNS = [  # script and arguments, steps printed
    (["nanogpt.py", "--iters", "12"], 12),
    (["word_lm.py", "--model", "LSTM"], 9),
    (["word_lm.py", "--model", "Transformer"], 9),
    (["trainer.py", "--epochs", "2", "--workers", "2"], 8),
]


@pytest.mark.parametrize("args,steps", PROGRAM_RUNS, ids=[" ".join(a) for a, _ in PROGRAM_RUNS])
def test_public_style_programs_match_pytorch_step_by_step(args, steps):
    """A nanoGPT, a word-level LSTM / Transformer LM and a trainer with cuda checks and DataLoader workers,
    unchanged, under the runner: the same loss at every step (and the same final evaluation line)."""
    argv = [os.path.join(PROGRAMS, args[0])] + args[1:]
    ours, theirs = _run(argv, True), _run(argv, False)
    assert len(_losses(ours)) == len(_losses(theirs)) == steps
    assert _losses(ours) == pytest.approx(_losses(theirs), rel=2e-5)
    tail = [ln for ln in theirs.splitlines() if not ln.startswith("loss ")]
    mine = [ln for ln in ours.splitlines() if not ln.startswith("loss ")]
    assert [ln.split()[0] for ln in mine] == [ln.split()[0] for ln in tail]
    assert [float(ln.split()[1]) for ln in mine] == pytest.approx([float(ln.split()[1]) for ln in tail], rel=2e-5)


def test_torch_names_resolve_to_mindtorch(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys, importlib.metadata as md\n"
        "import torch, torch.nn as nn, torch.nn.functional as F, torch.optim.lr_scheduler as sch\n"
        "from torch.utils.data import DataLoader\n"
        "import torch.backends.cudnn as cudnn\n"
        "from torch import Tensor\n"
        "print(torch.__name__, nn.__name__, F.__name__, sch.__name__, cudnn.__name__, Tensor.__module__)\n"
        "print(md.version('torch'), sys.argv[1:], __name__)\n"
        "print(sys.modules['torch.nn'] is nn, hasattr(torch, 'no_such_thing'))\n"
    )
    out = _run([str(script), "x", "--flag"], True).splitlines()
    assert out[0].split()[:5] == [
        "mindtorch",
        "mindtorch.nn",
        "mindtorch.nn.functional",
        "mindtorch.optim.lr_scheduler",
        "mindtorch.backends.cudnn",
    ]
    assert out[1] == "2.13.0 ['x', '--flag'] __main__"
    assert out[2] == "True False"


def test_pytorch_submodule_paths_import_under_the_runner(tmp_path):
    script = tmp_path / "paths.py"
    script.write_text(
        "from torch.optim.adam import Adam\n"
        "from torch.optim.lr_scheduler import CyclicLR\n"
        "from torch.distributions.gamma import Gamma\n"
        "from torch.distributions.one_hot_categorical import OneHotCategorical\n"
        "from torch.utils.data.sampler import RandomSampler\n"
        "print(*(c.__module__ for c in (Adam, CyclicLR, Gamma, OneHotCategorical, RandomSampler)))\n"
    )
    assert _run([str(script)], True).split() == [
        "mindtorch.optim.adam",
        "mindtorch.optim.lr_scheduler",
        "mindtorch.distributions.gamma",
        "mindtorch.distributions.one_hot_categorical",
        "mindtorch.utils.data.sampler",
    ]


def test_module_form_and_usage(tmp_path):
    pkg = tmp_path / "prog"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text("import sys, torch\nprint(torch.__name__, sys.argv[1:], __name__)\n")
    r = subprocess.run(
        [sys.executable, "-m", "mindtorch.run", "-m", "prog.train", "a"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(tmp_path)),
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "mindtorch ['a'] __main__"
    r = subprocess.run([sys.executable, "-m", "mindtorch.run"], capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr


def test_metadata_outside_the_runner_is_untouched():
    import importlib.metadata as md

    assert md.version("torch") == torch.__version__.split("+")[0] or md.version("torch") == torch.__version__
