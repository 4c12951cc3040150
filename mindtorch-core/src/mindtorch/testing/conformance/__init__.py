"""The backend conformance kit: the same checks against any installed device.

    python -m mindtorch.testing.conformance --device mydev [--json report.json]

or from Python:

    from mindtorch.testing.conformance import run
    report = run("mydev")
    print(report.text()); assert report.ok

Every op of the schema table runs on its samples (`samples.py`, keyed by op name) and is
compared with the cpu backend: values to per-dtype tolerances (shapes, dtypes and errors only
on a data-less device such as meta), the returned object of in-place ops, and the gradients of
the first sample. Structural checks follow (`checks.py`): views and in-place semantics, autograd
through the device, copies host<->device and device<->device in every dtype and for strided
views, allocator accounting back to baseline, random reproducibility under manual_seed, bad
input leaving state intact, and an MLP training step.

Statuses: conformant; fallback (conformant, through the host fallback); failing; missing (no
kernel, or a kernel its decomposition or backward needs is missing); unsupported (the device raised
its own error for what it declares it lacks, matched by `run(..., unsupported=REGEX)`); n/a (needs
data on a data-less device). A backend's own pytest suite uses `pytest_plugin.conformance_tests`.
"""

from .report import Report, last_reports  # noqa: F401
from .runner import CONFORMANT, FAILING, FALLBACK, MISSING, NA, UNSUPPORTED, check_op, coverage, run  # noqa: F401
from .samples import SAMPLES, missing_samples, samples_for  # noqa: F401
