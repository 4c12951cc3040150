"""Docstrings of the generated API: every op of the table has a one-line summary, and
help() shows the signatures in PyTorch's documented form, with PyTorch's parameter names."""

import re

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import pytest  # noqa: E402
from mindtorch.ops.docs import documented_signature, summary  # noqa: E402
from mindtorch.ops.registry import BY_NAME  # noqa: E402


def test_every_op_has_a_summary():
    assert [n for n in BY_NAME if not summary(n)] == []


@pytest.mark.parametrize(
    "name,text",
    [
        ("add", "add(input, other, *, alpha=1, out=None) -> Tensor"),
        ("sum", "sum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor"),
        ("max", "max(input, dim, keepdim=False, *, out=None) -> (Tensor, Tensor)"),
        ("zeros", "zeros(size, *, dtype=None, layout=None, device=None"),
    ],
)
def test_help_shows_summary_and_documented_signatures(name, text, capsys):
    help(getattr(mindtorch, name))
    shown = capsys.readouterr().out
    assert summary(name) in shown and text in shown


def test_method_docstrings_drop_self():
    doc = mindtorch.Tensor.add.__doc__
    assert doc.startswith(summary("add")) and "Tensor.add(other, *, alpha=1) -> Tensor" in doc


def _names(sig):
    sig = sig.split("->")[0]
    inside = sig[sig.index("(") + 1 : sig.rindex(")")]
    parts = (p.strip() for p in re.split(r",\s*(?![^\[]*\])", inside))
    return [p.split("=")[0].split(":")[0].lstrip("*").strip() for p in parts if p and p not in ("*", "/")]


# where the names differ from PyTorch's docstring and why (PyTorch's docstring lists fewer overloads or
# keywords than its functions accept, or calls a parameter differently from its keyword)
KNOWN = {
    "all",
    "any",
    "argmax",
    "max",
    "min",
    "mean",
    "median",
    "nanmedian",
    "nansum",
    "hash_tensor",
    "prod",
    "sum",
    "std",
    "var",
    "std_mean",
    "var_mean",
    "bernoulli",
    "scatter",
    "normal",
    "broadcast_to",
    "concatenate",
    "dsplit",
    "hsplit",
    "vsplit",
    "tensor_split",
    "einsum",
    "isin",
    "searchsorted",
    "true_divide",
    "trapz",
    "tril_indices",
    "triu_indices",
    "hamming_window",
    # PyTorch's docstring names it split_size_or_sections; its function takes split_size (ours too)
    "unsafe_split",
}


def test_parameter_names_follow_pytorch_documentation():
    differ = set()
    for name, ops in sorted(BY_NAME.items()):
        doc = (getattr(torch, name, None).__doc__ or "").strip() if hasattr(torch, name) else ""
        if name.startswith("_") or not doc.startswith(name + "("):
            continue
        theirs = {n for line in doc.split("\n") if line.startswith(name + "(") for n in _names(line)}
        ours = {n for o in ops if "function" in o.variants for n in _names(documented_signature(o))}
        if ours - theirs - {"out", "pin_memory"}:
            differ.add(name)
    assert differ <= KNOWN, sorted(differ - KNOWN)
