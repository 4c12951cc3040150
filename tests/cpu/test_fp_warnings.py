"""NumPy floating-point warnings from mindtorch's kernels never reach the user; PyTorch's errors do."""

import subprocess
import sys
import warnings

import mindtorch as torch
import numpy as np
import pytest
from mindtorch import _fpwarnings


@pytest.fixture
def caught():
    """Warnings recorded with mindtorch's filter in place as a plain `import mindtorch` leaves it.

    pytest imports test modules inside its own catch_warnings, which drops filters added there
    when it exits; the fresh-interpreter test below covers the import itself.
    """
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("default")
        _fpwarnings.install()
        yield log


CASES = {
    "half of large ints": lambda: torch.tensor([100000, 2**40]).half(),
    "float64 to float32": lambda: torch.tensor([1e300], dtype=torch.float64).float(),
    "bfloat16 cast": lambda: torch.tensor([1e39], dtype=torch.float64).to(torch.bfloat16),
    "tensor() overflow": lambda: torch.tensor([1e40], dtype=torch.float32),
    "float16 add": lambda: torch.tensor([60000.0], dtype=torch.float16) * 2,
    "divide by zero": lambda: torch.tensor([1.0, -1.0, 0.0]) / 0,
    "log of negative": lambda: torch.tensor([-1.0, 0.0]).log(),
    "sqrt of negative": lambda: torch.tensor([-1.0]).sqrt(),
    "exp overflow": lambda: torch.tensor([1000.0]).exp(),
    "prod overflow (numpy wrapper)": lambda: torch.tensor([1e30, 1e30]).prod(),
    "norm overflow": lambda: torch.tensor([1e38, 1e38]).norm(),
    "nan to int": lambda: torch.tensor([float("nan"), float("inf")]).long(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_numpy_warning_reaches_the_user(name, caught):
    CASES[name]()
    assert [str(w.message) for w in caught] == []


def test_values_are_computed_silently_like_pytorch(caught):
    assert torch.tensor([100000]).half().tolist() == [float("inf")]
    assert (torch.tensor([1.0, -1.0]) / 0).tolist() == [float("inf"), float("-inf")]
    assert torch.tensor([-1.0]).sqrt().isnan().all()


def test_users_own_numpy_warnings_are_untouched(caught):
    torch.tensor([1e38, 1e38]).norm()
    np.array([1e308]) * 10  # the user's NumPy code: still warns
    np.prod(np.array([1e300, 1e300]))  # also through NumPy's Python wrappers
    assert [str(w.message) for w in caught] == ["overflow encountered in multiply", "overflow encountered in reduce"]


def test_integer_division_by_zero_raises_pytorchs_error():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.tensor([1, 2]) // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.tensor([1, 2]) % 0


def test_fresh_interpreter_prints_no_warning():
    code = (
        "import mindtorch as t; t.tensor([100000, 2**40]).half(); (t.tensor([1.0]) / 0).log(); "
        "t.tensor([1e300], dtype=t.float64).float(); t.tensor([1e30, 1e30]).prod(); t.tensor([1e40])"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
