"""torch.stft / torch.istft and their Tensor methods: windows, hops, centring and padding modes,
align_to_window, one- and two-sided spectra, normalization, batches, complex signals, the round trip,
gradients (gradcheck in float64 too) and errors, against PyTorch 2.13."""

import warnings

import numpy as np
import pytest
from helpers import check_grad, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(4)
SIGNAL, BATCH = R.standard_normal(30), R.standard_normal((2, 33))
COMPLEX = R.standard_normal(30) + 1j * R.standard_normal(30)


def hann(L, n):
    return L.hann_window(n, dtype=L.float64)


STFT = {
    "rectangular": lambda L, x: L.stft(x, 8, return_complex=True),
    "hop and short window": lambda L, x: L.stft(x, 8, 3, 6, hann(L, 6), return_complex=True, normalized=True),
    "constant padding": lambda L, x: L.stft(x, 8, window=hann(L, 8), return_complex=True, pad_mode="constant"),
    "replicate padding": lambda L, x: L.stft(x, 6, window=hann(L, 6), return_complex=True, pad_mode="replicate"),
    "not centred": lambda L, x: L.stft(x, 8, 2, window=hann(L, 8), center=False, return_complex=True),
    "align_to_window": lambda L, x: L.stft(
        x, 8, 2, 4, hann(L, 4), center=False, return_complex=True, align_to_window=True
    ),
    "real layout": lambda L, x: L.stft(x, 8, window=hann(L, 8), return_complex=False),
    "two-sided": lambda L, x: L.stft(x, 8, window=hann(L, 8), return_complex=True, onesided=False),
    "method": lambda L, x: x.stft(8, window=hann(L, 8), center=False, return_complex=True),
}
ISTFT = {
    "round trip": lambda L, x: L.istft(L.stft(x, 8, window=hann(L, 8), return_complex=True), 8, window=hann(L, 8)),
    "length": lambda L, x: L.istft(
        L.stft(x, 8, window=hann(L, 8), return_complex=True), 8, window=hann(L, 8), length=25
    ),
    "longer length": lambda L, x: L.istft(
        L.stft(x, 8, 2, window=hann(L, 8), return_complex=True, normalized=True),
        8,
        2,
        window=hann(L, 8),
        normalized=True,
        length=40,
    ),
    "short window": lambda L, x: L.istft(L.stft(x, 8, 2, 6, hann(L, 6), return_complex=True), 8, 2, 6, hann(L, 6)),
    "method": lambda L, x: L.stft(x, 8, window=hann(L, 8), return_complex=True).istft(8, window=hann(L, 8)),
    "two-sided": lambda L, x: L.istft(
        L.stft(x, 8, window=hann(L, 8), return_complex=True, onesided=False), 8, window=hann(L, 8), onesided=False
    ),
}


def _compare(fn, data):
    res = []
    for L in (mt, torch):
        x = L.tensor(data, requires_grad=not np.iscomplexobj(data))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(L, x)
        weights = L.arange(out.numel(), dtype=L.float64).reshape(out.shape) / 10
        loss = (out.abs() * weights).sum() if out.dtype.is_complex else (out * weights).sum()
        grad = None
        if x.requires_grad:
            loss.backward()
            grad = x.grad.numpy()
        res.append((out.detach(), grad))
    (a, ga), (b, gb) = res
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-9)
    if gb is not None:
        np.testing.assert_allclose(ga, gb, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("name,batched", [(n, b) for n in STFT for b in (False, True)])
def test_stft(name, batched):
    _compare(STFT[name], BATCH if batched else SIGNAL)


def test_stft_complex_signal():
    _compare(lambda L, x: L.stft(x, 8, window=hann(L, 8)), COMPLEX)


@pytest.mark.parametrize("name,batched", [(n, b) for n in ISTFT for b in (False, True)])
def test_istft(name, batched):
    _compare(ISTFT[name], BATCH if batched else SIGNAL)


def test_istft_complex_output():
    _compare(lambda L, x: L.istft(L.stft(x, 8, window=hann(L, 8)), 8, window=hann(L, 8), return_complex=True), COMPLEX)


def test_gradcheck():
    x = mt.tensor(SIGNAL[:16], requires_grad=True)
    check_grad(lambda x: mt.stft(x, 8, 2, window=mt.hann_window(8, dtype=mt.float64), return_complex=True).abs(), x)
    check_grad(
        lambda x: mt.istft(mt.stft(x, 8, 2, window=mt.hann_window(8, dtype=mt.float64), return_complex=True), 8, 2),
        x,
    )


BAD = {
    "no return_complex": lambda L: L.stft(L.zeros(30), 8),
    "window size": lambda L: L.stft(L.zeros(30), 8, window=L.ones(5), return_complex=True),
    "win_length": lambda L: L.stft(L.zeros(30), 8, win_length=10, return_complex=True),
    "n_fft": lambda L: L.stft(L.zeros(30), 40, return_complex=True, center=False),
    "hop": lambda L: L.stft(L.zeros(30), 8, hop_length=0, return_complex=True),
    "3-d": lambda L: L.stft(L.zeros(2, 2, 30), 8, return_complex=True),
    "align with center": lambda L: L.stft(L.zeros(30), 8, return_complex=True, align_to_window=True),
    "real istft": lambda L: L.istft(L.zeros(5, 16), 8),
    "vanishing window": lambda L: L.istft(
        L.stft(L.zeros(30), 8, return_complex=True), 8, window=L.hann_window(8), center=False
    ),
}


@pytest.mark.parametrize("name", list(BAD))
def test_errors(name):
    raised = []
    for L in (mt, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                BAD[name](L)
        text = str(info.value)
        raised.append((info.type, text[text.rfind(" : ") :] if " : " in text else text.split("\n")[0]))
    assert raised[0] == raised[1]


def test_warnings():
    # PyTorch warns once per process (an earlier test may have had them): mindtorch's words are compared
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window will be applied,"):
        mt.stft(mt.zeros(30), 8, return_complex=True)
    with pytest.warns(UserWarning, match="stft with return_complex=False is deprecated"):
        mt.stft(mt.zeros(30), 8, window=mt.ones(8), return_complex=False)
    with pytest.warns(UserWarning, match="Please provide the same window used by stft"):
        mt.istft(mt.stft(mt.zeros(30), 8, window=mt.ones(8), return_complex=True), 8)
