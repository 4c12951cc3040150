"""The meta backend passes the conformance suite for what applies to a data-less device: shapes,
dtypes and errors (values are not compared; data-dependent ops are n/a)."""

from mindtorch.testing.conformance import NA, run
from mindtorch.testing.conformance.pytest_plugin import conformance_tests

test_conformance = conformance_tests("meta", strict=True)


def test_meta_report_is_complete_and_names_what_needs_data():
    report = run("meta", checks=False)
    assert report.complete, report.text()
    na = {n for n, r in report.ops.items() if r.status == NA}
    # ops whose output shape depends on values cannot run without data; nothing else may be n/a
    assert {"argwhere", "_unique", "_bincount", "masked_select", "nonzero"} <= na
    needs_data = {
        # one number per tensor, packed in a 1-D tensor and read on the host
        "_foreach_addcdiv.Tensor",
        "_foreach_addcdiv_.Tensor",
        "_foreach_addcmul.Tensor",
        "_foreach_addcmul_.Tensor",
        # output shape depends on values
        "_bincount",
        "bincount",
        "_unique",
        "unique",
        "argwhere",
        "nonzero",
        "where.cond_only",
        "masked_select",
        "index.Tensor",
        "one_hot",
        "repeat_interleave.Tensor",
        "repeat_interleave.self_Tensor",
        "tril_indices",
        "triu_indices",
        "unique_consecutive",
        # composed from a data-dependent op although its own shape is fixed
        "nonzero_static",
        # the group bounds are read from group_list's values
        "_grouped_matmul",
        "_grouped_matmul_backward",
        # a Python bool or number read from the values (a comparison result, a count, a data range)
        "allclose",
        "equal",
        "quantile",
        "quantile.scalar",
        "nanquantile",
        "nanquantile.scalar",
        "histc",
        "histogram.bin_ct",
        "masked_scatter",
        "masked_scatter_",
        "_foreach_adam_",
        "put",
        "put_",
        # a backward that reads values (zeros in a product, a boolean-mask gradient)
        "cumprod",
        "prod",
        "vander",
        "masked_fill.Tensor",
    }
    assert na <= needs_data, sorted(na - needs_data)
