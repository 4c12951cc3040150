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
]


def missing(torch_name, ours_name):
    theirs = importlib.import_module(torch_name)
    names = getattr(theirs, "__all__", None) or [n for n in dir(theirs) if not n.startswith("_")]
    ours = importlib.import_module(ours_name)
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
