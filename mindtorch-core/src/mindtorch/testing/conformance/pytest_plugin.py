"""The conformance suite as pytest tests, for a backend's own CI.

In a test module of your backend:

    from mindtorch.testing.conformance.pytest_plugin import conformance_tests
    test_conformance = conformance_tests("mydev")

gives one test per op and per structural check (`dtypes=False`: each op on its own samples only, not in
every dtype; `unsupported`: the device's pattern for what it declares it lacks, skipped). A failing op fails its test; a missing op
(no kernel) is skipped with the reason unless `strict=True`; "n/a" is skipped. `ops` and
`checks` narrow the selection (e.g. `checks=("copies", "allocator")`, `ops=()` for the
structural checks only).
"""

import pytest


def conformance_tests(device, ops=None, checks=None, strict=False, grad=True, dtypes=True, unsupported=None):
    from mindtorch.ops.registry import OPS

    from .checks import CHECKS

    names = sorted(OPS) if ops is None else list(ops)
    check_names = list(CHECKS) if checks is None else list(checks)
    cases = [("op", n) for n in names] + [("check", c) for c in check_names]
    state = {}

    def setup():
        if not state:
            import mindtorch

            from .runner import is_dataless

            dev = mindtorch.device(device)
            if dev.index is None and dev.type not in ("cpu", "meta"):
                dev = mindtorch.device(dev.type, 0)
            state.update(device=dev, dataless=is_dataless(dev))
        return state["device"], state["dataless"]

    @pytest.mark.parametrize("case", cases, ids=[f"{kind}:{name}" for kind, name in cases])
    def test_conformance(case):
        import warnings

        from .report import FAILED
        from .runner import FAILING, MISSING, NA, UNSUPPORTED, check_op, run_check

        dev, dataless = setup()
        kind, name = case
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "op":
                r = check_op(name, dev, dataless, grad, unsupported, dtypes)
                status, detail = r.status, r.detail
            else:
                status, detail = run_check(name, dev, dataless, unsupported)
        if status in (FAILING, FAILED) or (strict and status == MISSING):
            pytest.fail(f"{name} on {dev}: {status}: {detail}", pytrace=False)
        if status in (MISSING, NA, UNSUPPORTED):
            pytest.skip(f"{status}: {detail}")

    return test_conformance
