"""Which of PyTorch's public names mindtorch lacks (needs torch installed: the parity oracle).

python tools/missing_names.py        counts per namespace
python tools/missing_names.py -v     and the missing names
"""

import importlib
import sys
import warnings

PAIRS = [
    ("torch", "mindtorch"),
    ("torch.nn", "mindtorch.nn"),
    ("torch.nn.functional", "mindtorch.nn.functional"),
    ("torch.optim", "mindtorch.optim"),
    ("torch.nn.modules", "mindtorch.nn.modules"),
    ("torch.utils.data", "mindtorch.utils.data"),
    ("torch.nn.utils", "mindtorch.nn.utils"),
    ("torch.autograd", "mindtorch.autograd"),
    ("torch.autograd.functional", "mindtorch.autograd.functional"),
    ("torch.random", "mindtorch.random"),
    ("torch.nn.init", "mindtorch.nn.init"),
]


def missing(torch_name, ours_name):
    theirs = importlib.import_module(torch_name)
    names = getattr(theirs, "__all__", None) or [n for n in dir(theirs) if not n.startswith("_")]
    try:
        ours = importlib.import_module(ours_name)
    except ModuleNotFoundError:  # the whole namespace is missing
        return names, sorted(names)
    return names, sorted(n for n in names if not hasattr(ours, n))


def main(verbose=False):
    warnings.simplefilter("ignore")
    for t, m in PAIRS:
        names, miss = missing(t, m)
        print(f"{t}: {len(miss)} of {len(names)} public names missing")
        if verbose:
            print("   ", " ".join(miss))


if __name__ == "__main__":
    main("-v" in sys.argv)
