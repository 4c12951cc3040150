"""Anomaly detection: NaN gradients raise with PyTorch's message, the forward traceback is reported."""

import warnings

import mindtorch as torch
import pytest


def _nan_in_div():
    x = torch.tensor([0.0], requires_grad=True)
    y = x / x  # the forward line the report must point at
    y.sum().backward()


def test_nan_gradient_raises_naming_the_node_and_output():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ctx = torch.autograd.detect_anomaly()
    with ctx, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"Function 'DivBackward0' returned nan values in its 1th output\."):
            _nan_in_div()
    report = [str(w.message) for w in caught if "Error detected in DivBackward0" in str(w.message)]
    assert len(report) == 1 and "y = x / x" in report[0] and "test_anomaly_mode.py" in report[0]
    assert not torch.is_anomaly_enabled()


def test_without_anomaly_mode_nan_flows_silently():
    x = torch.tensor([0.0], requires_grad=True)
    (x / x).sum().backward()
    assert torch.isnan(x.grad).all()


def test_check_nan_false_and_set_detect_anomaly_restore():
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
        _nan_in_div()  # no NaN check
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    torch.set_anomaly_enabled(True)
    try:
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            torch.tensor([-1.0], requires_grad=True).sqrt().backward()
    finally:
        torch.set_anomaly_enabled(False)


def test_decorator_form():
    with pytest.warns(UserWarning):

        @torch.autograd.detect_anomaly()
        def run():
            assert torch.is_anomaly_enabled()
            _nan_in_div()

    with pytest.raises(RuntimeError, match="returned nan values"):
        run()
    assert not torch.is_anomaly_enabled()
