"""torch.stft and torch.istft (and their Tensor methods): short-time Fourier transforms built on
mindtorch.fft, so every backend with the fft primitives has them and gradients flow through them.

stft cuts the (optionally reflect-padded) signal into frames of n_fft samples every hop_length,
multiplies each by the window (win_length samples centred in n_fft) and transforms it; istft
transforms back, overlap-adds the windowed frames and divides by the summed squared window.
"""

import warnings

import mindtorch

from ._dtype import _cname

__all__ = ["stft", "istft"]


def _real_dtype(d):
    return {mindtorch.complex64: mindtorch.float32, mindtorch.complex128: mindtorch.float64}.get(d, d)


def _window(window, n_fft, win_length, like, where, args):
    """The window padded (centred) to n_fft samples; a rectangular one when none is given."""
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{where}{args} : expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is None:
        window = mindtorch.ones(win_length, dtype=_real_dtype(like.dtype), device=like.device)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(
            f"{where}{args} : expected a 1D window tensor of size equal to win_length={win_length}, but got "
            f"window with size {list(window.shape)}"
        )
    left = (n_fft - win_length) // 2
    return mindtorch.nn.functional.pad(window, (left, n_fft - win_length - left)) if win_length < n_fft else window


def _describe(x, n_fft, hop, win, window, extra, scalar_type=False):
    """PyTorch's rendering of the call in its messages (istft names the input by its scalar type)."""
    kind = f"{x.device.type.upper()}{_cname(x.dtype)}Type" if scalar_type else f"torch.{_cname(x.dtype)}Tensor"
    kind += str(list(x.shape))
    shown = "None" if window is None else f"torch.{_cname(window.dtype)}Tensor{{{list(window.shape)}}}"
    return f"({kind}, n_fft={n_fft}, hop_length={hop}, win_length={win}, window={shown}, {extra})"


def _settings(where, input, n_fft, hop_length, win_length, window, advice, extra):
    """(hop, window length, the call as PyTorch's messages render it); warns when no window is given."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        joint = "," if where == "stft" else "."
        warnings.warn(
            f"A window was not provided. A rectangular window will be applied{joint}{advice}To suppress this "
            "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=3,
        )
    return hop, win, _describe(input, n_fft, hop, win, window, extra, scalar_type=where == "istft")


def stft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """The short-time Fourier transform: (n_fft // 2 + 1 or n_fft) frequencies by frames (a batch first
    for 2-D input), complex unless return_complex=False asks for view_as_real's layout."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if not input.dtype.is_complex and not (window is not None and window.dtype.is_complex) and return_complex is None:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will further require that "
            "return_complex=True in a future PyTorch release."
        )
    if return_complex is False:
        warnings.warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
            "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
            "torch.view_as_real on the complex output to recover the old return format.",
            UserWarning,
            stacklevel=2,
        )
    if center:
        pad = n_fft // 2
        shape = list(input.shape)
        input = mindtorch.nn.functional.pad(input.reshape([1] * (3 - input.dim()) + shape), (pad, pad), pad_mode)
        input = input.reshape(input.shape[-len(shape) :])
    hop, win, args = _settings(
        "stft",
        input,
        n_fft,
        hop_length,
        win_length,
        window,
        "which is known to cause spectral leakage. Other windows such as torch.hann_window or torch.hamming_window "
        "are recommended to reduce spectral leakage.",
        f"normalized={int(normalized)}, onesided={onesided}, "
        f"return_complex={return_complex if return_complex is None else int(return_complex)}, "
        f"align_to_window={align_to_window}",
    )
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft{args} : expected a 1D or 2D tensor")
    if hop <= 0:
        raise RuntimeError(f"stft{args} : expected hop_length > 0, but got hop_length={hop}")
    w = _window(window, n_fft, win, input, "stft", args)
    if align_to_window:  # frames follow the window: every win_length samples lie inside the signal
        left = (n_fft - win) // 2
        input = mindtorch.nn.functional.pad(input, (left, n_fft - win - left))
    length = input.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft{args} : expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    frames = input.unfold(-1, n_fft, hop) * w
    real = not input.dtype.is_complex and not w.dtype.is_complex
    if onesided is None:
        onesided = real
    spectrum = mindtorch.fft.rfft(frames) if onesided else mindtorch.fft.fft(frames)
    if normalized:
        spectrum = spectrum * n_fft**-0.5
    spectrum = spectrum.transpose(-1, -2)
    return spectrum if return_complex is not False else mindtorch.view_as_real(spectrum)


def istft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    """The inverse of stft (with the same window): the signal, by overlap-adding the windowed frames and
    dividing by the window's summed square (which must not vanish anywhere in the kept part)."""
    if not input.dtype.is_complex:
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."
        )
    hop, win, args = _settings(
        "istft",
        input,
        n_fft,
        hop_length,
        win_length,
        window,
        "Please provide the same window used by stft to make the inversion lossless.",
        f"center={int(center)}, normalized={int(normalized)}, onesided={onesided}, length={length}, "
        f"return_complex={int(return_complex)}",
    )
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft{args} : expected a tensor with 2 or 3 dimensions of complex dtype")
    w = _window(window, n_fft, win, input, "istft", args)
    batched = input.dim() == 3
    spec = (input if batched else input.unsqueeze(0)).transpose(-1, -2)  # (B, frames, freq)
    if normalized:
        spec = spec * n_fft**0.5
    if onesided is None:
        onesided = spec.shape[-1] != n_fft
    frames = mindtorch.fft.irfft(spec, n_fft) if onesided and not return_complex else mindtorch.fft.ifft(spec, n_fft)
    if not return_complex and frames.dtype.is_complex:
        frames = frames.real
    frames = frames * w
    count = frames.shape[1]
    total = n_fft + hop * (count - 1)
    where = (mindtorch.arange(count).unsqueeze(1) * hop + mindtorch.arange(n_fft)).reshape(-1)
    signal = mindtorch.zeros((frames.shape[0], total), dtype=frames.dtype, device=frames.device)
    signal = signal.index_add(1, where.to(signal.device), frames.reshape(frames.shape[0], -1))
    envelope = mindtorch.zeros(total, dtype=w.dtype, device=w.device).index_add(
        0, where.to(w.device), (w * w).repeat(count)
    )
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else min(start + length, total)
    signal, envelope = signal[:, start:end], envelope[start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError(f"istft{args} window overlap add min: 1")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        signal = mindtorch.nn.functional.pad(signal, (0, length - signal.shape[-1]))
    return signal if batched else signal.squeeze(0)


mindtorch.Tensor.stft = stft
mindtorch.Tensor.istft = istft
