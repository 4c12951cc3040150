"""The conformance kit against third-party backends: the report, its sensitivity, and coverage."""

import json


def test_vault_report_shows_fallbacks(run_python, tmp_path):
    out = tmp_path / "vault.json"
    r = run_python(
        None,
        plugins=["vault"],
        MINDTORCH_CONFORMANCE_DIR=tmp_path / "last",
        args=["-m", "mindtorch.testing.conformance", "--device", "vault", "--json", str(out)],
    )
    assert r.returncode == 0, r
    summary = r.stdout.strip().splitlines()[-1]
    from mindtorch.ops.registry import OPS

    n = len(OPS)  # every op of the table, whatever ops are added later
    assert summary.startswith(f"conformance vault:0: {n}/{n} ops conformant") and "0 failing" in summary, summary
    rep = json.loads(out.read_text())
    assert rep["ok"] is True and rep["summary"] == summary
    assert rep["ops"]["linear"]["status"] == "fallback" and rep["ops"]["add"]["status"] == "conformant"
    assert rep["ops"]["mul_"]["coverage"] == "inplace"
    assert all(c["status"] == "passed" for c in rep["checks"].values()), rep["checks"]
    info = run_python(
        None, plugins=["vault"], MINDTORCH_CONFORMANCE_DIR=tmp_path / "last", args=["-m", "mindtorch", "--conformance"]
    )
    assert info.returncode == 0, info
    assert summary in info.stdout and "fallback (host)" in info.stdout


def test_frozen_passes_the_whole_kit_without_host_fallback(run_python, tmp_path):
    out = tmp_path / "frozen.json"
    r = run_python(
        None,
        plugins=["frozen"],
        MINDTORCH_CONFORMANCE_DIR=tmp_path / "last",
        args=["-m", "mindtorch.testing.conformance", "--device", "frozen", "--strict", "--json", str(out)],
    )
    assert r.returncode == 0, r
    summary = r.stdout.strip().splitlines()[-1]
    from mindtorch.ops.registry import OPS

    n = len(OPS)
    assert summary.startswith(f"conformance frozen:0: {n}/{n} ops conformant (0 via host fallback)"), summary
    rep = json.loads(out.read_text())
    assert {o["status"] for o in rep["ops"].values()} == {"conformant"}
    assert all(c["status"] == "passed" for c in rep["checks"].values()), rep["checks"]


def test_frozen_writes_are_copy_on_write(run_python):
    r = run_python(
        """
import mindtorch as torch

def steps(dev):
    a = torch.arange(12.0).reshape(3, 4).to(dev)
    a[:, 1].mul_(10)  # on frozen, a NumPy kernel: a new buffer with the column's bytes replaced
    a.add_(torch.ones(4, device=dev), alpha=2)
    a[0].lerp_(torch.zeros(4, device=dev), 0.5)  # on frozen, served by the host kernel
    return a

a = torch.arange(12.0).reshape(3, 4).to("frozen")
box = a.untyped_storage().data
before = box.buf
a[:, 1].mul_(10)
after = box.buf
done = steps("frozen")
emit({
    "immutable": isinstance(before, bytes) and isinstance(after, bytes),
    "swapped": before is not after,
    "old_kept": before == torch.arange(12.0).numpy().tobytes(),
    "same_as_cpu": done.to("cpu").tolist() == steps("cpu").tolist(),
    "version": done._version_value,
})
""",
        plugins=["frozen"],
    )
    assert r.returncode == 0, r
    assert r.result == {"immutable": True, "swapped": True, "old_kept": True, "same_as_cpu": True, "version": 3}


def test_a_dtype_the_device_declares_it_lacks_is_listed_not_the_ops_status(run_python):
    r = run_python(
        """
import mindtorch as torch
from mindtorch.plugins import OPS
from mindtorch.testing.conformance.runner import check_op
from mindtorch.testing.conformance.report import Report

exp = OPS["exp"].kernels["frozen"]

def no_float64(meta, a):
    if a.dtype is torch.float64:
        raise TypeError("exp: torch.float64 is not held by this frozen chip")
    return exp(meta, a)

OPS["exp"].kernels["frozen"] = no_float64
dev = torch.device("frozen", 0)
declared = check_op("exp", dev, unsupported="is not held by this frozen chip")
undeclared = check_op("exp", dev)
report = Report(dev, {"exp": declared}, {}, 1.0, False)
emit({
    "declared": [declared.status, declared.lacks, "float64" in declared.dtypes, declared.detail],
    "undeclared": [undeclared.status, undeclared.lacks],
    "summary": report.summary(),
    "text": report.text(),
})
""",
        plugins=["frozen"],
    )
    assert r.returncode == 0, r
    status, lacks, covered, detail = r.result["declared"]
    assert (status, lacks, covered) == ("conformant", ["float64"], False)
    assert detail.startswith("lacks float64: in float64: sample") and "not held" in detail
    assert r.result["undeclared"] == ["failing", []]
    assert "(1 more lacked by the device)" in r.result["summary"]
    assert "dtypes the device lacks, in ops conformant in the others: float64 in 1" in r.result["text"]


def test_a_kernel_that_broadcasts_wrongly_is_caught(run_python):
    r = run_python(
        """
import warnings
warnings.simplefilter("ignore")
import numpy as np
import mindtorch as torch
import mindtorch_vault as V
from mindtorch.plugins import OPS
from mindtorch.testing.conformance import check_op, run

def left_aligned_add(m, a, b, alpha=1):
    # the classic bug: a shorter operand is aligned on the left instead of the right
    x, y = V._values(a), V._values(b)
    if np.ndim(y) < np.ndim(x):
        y = np.reshape(y, np.shape(y) + (1,) * (np.ndim(x) - np.ndim(y)))
    return V._result(np.add(x, y * alpha), m.dtype, a.device)

good = check_op("add", torch.device("vault", 0))
OPS["add"].kernels["vault"] = left_aligned_add
bad = check_op("add", torch.device("vault", 0))
# the same kernel passes when shapes happen to agree: only the broadcasting samples catch it
a = torch.ones(3, 4, device="vault")
same = left_aligned_add(OPS["add"].meta(a, a), a, a)
emit([good.status, bad.status, bad.detail, same.cpu().tolist() == [[2.0] * 4] * 3])
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    good, bad, detail, same = r.result
    assert good == "conformant" and bad == "failing" and same, r.result
    assert "sample" in detail


def test_an_op_without_samples_fails_the_coverage_check():
    import mindtorch
    from mindtorch.testing.conformance import FAILING, check_op, missing_samples, samples

    assert missing_samples() == []
    saved = samples.SAMPLES.pop("linear")
    try:
        assert "linear" in missing_samples()
        r = check_op("linear", mindtorch.device("cpu"))
        assert r.status == FAILING and "no samples" in r.detail
    finally:
        samples.SAMPLES["linear"] = saved


def test_composite_counts_only_when_its_decomposition_is_covered(run_python):
    r = run_python(None, plugins=["toy"], args=["-m", "mindtorch", "--missing"])
    assert r.returncode == 0, r
    toy = r.stdout[r.stdout.index("from mindtorch-toy") :]
    missing = toy[toy.index("missing: ") :].split("\n")[0]
    # zeros is a composite over `full`, which toy lacks
    assert "zeros" in missing[len("missing: ") :].split(", "), missing
    meta = r.stdout[r.stdout.index("from mindtorch-meta") :]
    assert "nonzero" in meta[meta.index("missing: ") :].split("\n")[0]


def test_conformance_needs_an_installed_device(run_python):
    r = run_python(None, args=["-m", "mindtorch.testing.conformance", "--device", "nosuchdev"])
    assert r.returncode != 0 and "nosuchdev" in r.stderr, r


def test_unknown_op_name_is_a_usage_error(run_python):
    r = run_python(None, args=["-m", "mindtorch.testing.conformance", "--device", "cpu", "--ops", "add,conv2d"])
    assert r.returncode == 2 and r.stdout == "", r
    assert "'conv2d' is not an op of the table" in r.stderr and "_conv2d" in r.stderr, r
    assert "Traceback" not in r.stderr, r


def test_a_kernel_that_disagrees_with_its_decomposition_is_caught():
    import mindtorch
    from mindtorch.ops.registry import OPS
    from mindtorch.testing.conformance.checks import CHECKS

    cpu = mindtorch.device("cpu")
    assert CHECKS["overridden_composites"](cpu, False)[0] == "passed"
    op = OPS["trace"]
    own = op.kernels.get("cpu")
    op.kernels["cpu"] = lambda m, x: mindtorch.ops.sum(x)  # the whole sum, not the diagonal's
    try:
        status, detail = CHECKS["overridden_composites"](cpu, False)
    finally:
        if own is None:
            del op.kernels["cpu"]
        else:
            op.kernels["cpu"] = own
    assert status == "failed" and "trace" in detail, detail


def test_every_cpu_dtype_is_a_sample_and_refused_ones_are_not():
    """The per-op check runs each op in every dtype the cpu accepts: no hand list of dtypes."""
    import mindtorch
    from mindtorch._dtype import TENSOR_DTYPES
    from mindtorch.testing.conformance import check_op

    cpu = mindtorch.device("cpu")
    add = check_op("add", cpu)
    # add takes every dtype but float32 (its samples' own) in other dtypes
    assert add.status == "conformant" and set(add.dtypes) == {d.name for d in TENSOR_DTYPES} - {"float32"}, add.dtypes
    # bitwise ops refuse floating types on the cpu: those are no samples
    band = check_op("bitwise_and", cpu)
    assert band.status == "conformant" and not {"float16", "float32", "complex64"} & set(band.dtypes), band.dtypes
    assert {"uint32", "int8", "bool"} <= set(band.dtypes), band.dtypes


def test_out_of_range_indices_are_checked_for_every_indexing_op(run_python):
    """A backend whose gathers clamp and whose scatters drop out-of-range indices fails the kit."""
    r = run_python(
        """
import warnings
warnings.simplefilter("ignore")
import numpy as np
import mindtorch as torch
import mindtorch_vault as V
from mindtorch.plugins import OPS
from mindtorch.testing.conformance import check_op

def clamping_take(m, a, index):
    x, i = V._values(a), np.clip(V._values(index), 0, V._values(a).size - 1)
    return V._result(np.take(x.reshape(-1), i), a.dtype, a.device)  # a composite: meta is None

def clamping_embedding(m, w, idx, padding_idx=-1, *rest):
    i = np.clip(V._values(idx), 0, V._values(w).shape[0] - 1)
    return V._result(V._values(w)[i], m.dtype, w.device)

dev = torch.device("vault", 0)
before = {q: check_op(q, dev).status for q in ("take", "embedding")}
OPS["take"].kernels["vault"] = clamping_take
OPS["embedding"].kernels["vault"] = clamping_embedding
after = {q: check_op(q, dev) for q in ("take", "embedding")}
emit([before, {q: [r.status, r.detail] for q, r in after.items()}])
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    before, after = r.result
    assert set(before.values()) <= {"conformant", "fallback"}, before
    for q, (status, detail) in after.items():
        assert status == "failing" and "cpu raises" in detail, (q, detail)
