from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.nn.functional as F  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

RNG = np.random.default_rng(1234)


def rnd(*shape, dtype=np.float32, low=None):
    a = RNG.standard_normal(shape).astype(dtype)
    if low is not None:
        a = np.abs(a) + low
    return a


def pair(a, rg=True):
    """The same array as a mindtorch and a PyTorch tensor."""
    m = mt.tensor(a.copy())
    t = torch.tensor(a.copy())
    if rg and a.dtype.kind == "f":
        m.requires_grad_(True)
        t.requires_grad_(True)
    return m, t


def close(a, b, rtol=1e-5, atol=1e-5):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def run_both(mfn, tfn, arrays, nondiff=(), rtol=1e-5, atol=1e-5, seed_grad=True):
    """Compare outputs and gradients of mindtorch vs PyTorch for the same inputs."""
    ms, ts = [], []
    for i, a in enumerate(arrays):
        m, t = pair(a, rg=i not in nondiff)
        ms.append(m)
        ts.append(t)
    mo, to = mfn(*ms), tfn(*ts)
    if isinstance(to, tuple):
        mo, to = mo[0], to[0]
    close(mo, to, rtol, atol)
    assert str(mo.dtype).split(".")[-1] == str(to.dtype).split(".")[-1]
    if not to.requires_grad:
        return
    g = rnd(*to.shape)
    (mo * mt.tensor(g)).sum().backward()
    (to * torch.tensor(g)).sum().backward()
    for m, t in zip(ms, ts):
        if t.grad is not None:
            close(m.grad, t.grad, rtol, atol)


def test_linear_shapes_and_grads():
    for xs in [(4,), (3, 4), (2, 3, 4)]:
        run_both(F.linear, TF.linear, [rnd(*xs), rnd(5, 4), rnd(5)])
    run_both(lambda x, w: F.linear(x, w), lambda x, w: TF.linear(x, w), [rnd(3, 4), rnd(5, 4)])


def test_linear_errors():
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        F.linear(mt.zeros(2, 3), mt.zeros(4, 5))
    with pytest.raises(RuntimeError):
        F.linear(mt.zeros(2, 3), mt.zeros(4, 3, dtype=mt.float64))


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2, padding=1),
        dict(padding=(2, 1), dilation=(2, 1)),
        dict(groups=2, padding="same"),
        dict(padding="valid", stride=(1, 2), groups=4),
    ],
)
def test_conv2d(kw):
    run_both(
        lambda x, w, b: F.conv2d(x, w, b, **kw),
        lambda x, w, b: TF.conv2d(x, w, b, **kw),
        [rnd(2, 4, 7, 8), rnd(8, 4 // kw.get("groups", 1), 3, 2), rnd(8)],
        rtol=1e-4,
        atol=1e-4,
    )


def test_conv2d_unbatched_and_even_same():
    run_both(
        lambda x, w: F.conv2d(x, w, padding="same"),
        lambda x, w: TF.conv2d(x, w, padding="same"),
        [rnd(3, 6, 5), rnd(2, 3, 4, 2)],
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=2, dilation=2), dict(groups=3, padding="same")])
def test_conv1d(kw):
    run_both(
        lambda x, w, b: F.conv1d(x, w, b, **kw),
        lambda x, w, b: TF.conv1d(x, w, b, **kw),
        [rnd(2, 3, 11), rnd(6, 3 // kw.get("groups", 1), 3), rnd(6)],
        rtol=1e-4,
        atol=1e-4,
    )


def test_conv_errors():
    with pytest.raises(RuntimeError, match="channels"):
        F.conv2d(mt.zeros(1, 3, 5, 5), mt.zeros(2, 4, 3, 3))
    with pytest.raises(ValueError, match="strided"):
        F.conv2d(mt.zeros(1, 3, 5, 5), mt.zeros(2, 3, 3, 3), stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string"):
        F.conv2d(mt.zeros(1, 3, 5, 5), mt.zeros(2, 3, 3, 3), padding="full")
    with pytest.raises(RuntimeError):
        F.conv2d(mt.zeros(1, 3, 2, 2), mt.zeros(2, 3, 3, 3))


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=(3, 2), stride=(2, 1), dilation=(1, 2), ceil_mode=True),
        dict(kernel_size=3, stride=2, ceil_mode=True, padding=1),
    ],
)
def test_max_pool2d(kw):
    run_both(lambda x: F.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), [rnd(2, 3, 7, 8)])
    m, t = pair(rnd(2, 3, 7, 8))
    mo, mi = F.max_pool2d(m, return_indices=True, **kw)
    to, ti = TF.max_pool2d(t, return_indices=True, **kw)
    np.testing.assert_array_equal(mi.numpy(), ti.numpy())
    assert mi.dtype is mt.int64


def test_max_pool1d_and_unbatched():
    kw = dict(kernel_size=3, stride=2, padding=1)
    run_both(lambda x: F.max_pool1d(x, **kw), lambda x: TF.max_pool1d(x, **kw), [rnd(2, 3, 9)])
    run_both(lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), [rnd(3, 6, 6)])
    m, t = pair(rnd(2, 3, 9))
    np.testing.assert_array_equal(
        F.max_pool1d(m, return_indices=True, **kw)[1].numpy(), TF.max_pool1d(t, return_indices=True, **kw)[1].numpy()
    )


def test_max_pool_errors():
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(mt.zeros(1, 1, 5, 5), 2, padding=2)


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=3, stride=2, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=(2, 3), divisor_override=5),
    ],
)
def test_avg_pool2d(kw):
    run_both(lambda x: F.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), [rnd(2, 3, 7, 8)])


def test_avg_pool1d():
    kw = dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)
    run_both(lambda x: F.avg_pool1d(x, **kw), lambda x: TF.avg_pool1d(x, **kw), [rnd(2, 3, 10)])


@pytest.mark.parametrize("size", [1, 3, (2, 5), (None, 3), (7, 8)])
def test_adaptive_avg_pool2d(size):
    run_both(lambda x: F.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size), [rnd(2, 3, 7, 8)])


def test_layer_norm():
    run_both(
        lambda x, w, b: F.layer_norm(x, (4, 5), w, b),
        lambda x, w, b: TF.layer_norm(x, (4, 5), w, b),
        [rnd(3, 4, 5), rnd(4, 5), rnd(4, 5)],
        rtol=1e-4,
        atol=1e-5,
    )
    run_both(
        lambda x: F.layer_norm(x, 5, eps=1e-3),
        lambda x: TF.layer_norm(x, (5,), eps=1e-3),
        [rnd(3, 5)],
        rtol=1e-4,
        atol=1e-5,
    )
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F.layer_norm(mt.zeros(3, 4), (5,))


def test_rms_norm():
    run_both(
        lambda x, w: F.rms_norm(x, (5,), w),
        lambda x, w: TF.rms_norm(x, (5,), w),
        [rnd(3, 5), rnd(5)],
        rtol=1e-4,
        atol=1e-5,
    )
    run_both(
        lambda x: F.rms_norm(x, (2, 5), eps=1e-2),
        lambda x: TF.rms_norm(x, (2, 5), eps=1e-2),
        [rnd(3, 2, 5)],
        rtol=1e-4,
        atol=1e-5,
    )


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm_training_and_stats(shape):
    rm, tm = pair(rnd(3), rg=False)
    rv, tv = pair(rnd(3, low=0.5), rg=False)
    run_both(
        lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2),
        lambda x, w, b: TF.batch_norm(x, tm, tv, w, b, training=True, momentum=0.2),
        [rnd(*shape), rnd(3), rnd(3)],
        rtol=1e-4,
        atol=1e-4,
    )
    close(rm, tm)
    close(rv, tv, rtol=1e-5)
    run_both(
        lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False),
        lambda x, w, b: TF.batch_norm(x, tm, tv, w, b, training=False),
        [rnd(*shape), rnd(3), rnd(3)],
        rtol=1e-4,
        atol=1e-4,
    )


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(mt.zeros(1, 3), None, None, training=True)


def test_group_norm():
    run_both(
        lambda x, w, b: F.group_norm(x, 2, w, b),
        lambda x, w, b: TF.group_norm(x, 2, w, b),
        [rnd(2, 6, 3, 4), rnd(6), rnd(6)],
        rtol=1e-4,
        atol=1e-4,
    )
    run_both(lambda x: F.group_norm(x, 3), lambda x: TF.group_norm(x, 3), [rnd(2, 6, 5)], rtol=1e-4, atol=1e-4)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(mt.zeros(2, 6, 4), 4)


def test_embedding_padding_and_repeats():
    idx = np.array([[1, 2, 1], [0, 3, 1]])
    w = rnd(5, 4)
    for pidx in (None, 1, -4):
        mw, tw = pair(w)
        mo = F.embedding(mt.tensor(idx), mw, padding_idx=pidx)
        to = TF.embedding(torch.tensor(idx), tw, padding_idx=pidx)
        close(mo, to)
        g = rnd(2, 3, 4)
        (mo * mt.tensor(g)).sum().backward()
        (to * torch.tensor(g)).sum().backward()
        close(mw.grad, tw.grad)


def test_embedding_max_norm():
    w = rnd(5, 4) * 3
    mw, tw = pair(w, rg=False)
    idx = np.array([0, 2, 2, 4])
    close(F.embedding(mt.tensor(idx), mw, max_norm=1.0), TF.embedding(torch.tensor(idx), tw, max_norm=1.0))
    close(mw, tw)


def test_embedding_errors():
    with pytest.raises(IndexError, match="index out of range"):
        F.embedding(mt.tensor([5]), mt.zeros(5, 2))
    with pytest.raises(RuntimeError, match="indices"):
        F.embedding(mt.tensor([1.0]), mt.zeros(5, 2))


CE_CASES = [
    dict(),
    dict(ignore_index=2),
    dict(label_smoothing=0.1),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=True),
    dict(weight=True, ignore_index=0, label_smoothing=0.2),
    dict(reduction="none", label_smoothing=0.3, ignore_index=1),
    dict(reduction="sum", label_smoothing=0.3, weight=True),
]


@pytest.mark.parametrize("kw", CE_CASES)
@pytest.mark.parametrize("shape", [(6, 5), (3, 5, 2, 2), (5,)])
def test_cross_entropy_class_indices(kw, shape):
    kw = dict(kw)
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    tgt = RNG.integers(0, 5, tshape)
    if "ignore_index" in kw and tgt.ndim:
        tgt.reshape(-1)[0] = kw["ignore_index"]
    kw2 = dict(kw)
    if kw.get("weight"):
        w = np.arange(1, 6, dtype=np.float32)
        kw["weight"], kw2["weight"] = mt.tensor(w), torch.tensor(w)
    run_both(
        lambda x: F.cross_entropy(x, mt.tensor(tgt), **kw),
        lambda x: TF.cross_entropy(x, torch.tensor(tgt), **kw2),
        [rnd(*shape)],
        rtol=1e-5,
        atol=1e-6,
    )


def test_cross_entropy_all_ignored_is_nan():
    m = F.cross_entropy(mt.zeros(2, 3), mt.tensor([-100, -100]))
    t = TF.cross_entropy(torch.zeros(2, 3), torch.tensor([-100, -100]))
    assert np.isnan(m.item()) and np.isnan(t.item())


@pytest.mark.parametrize(
    "kw", [dict(), dict(label_smoothing=0.2), dict(reduction="sum"), dict(reduction="none"), dict(weight=True)]
)
def test_cross_entropy_probabilities(kw):
    kw2 = dict(kw)
    if kw.get("weight"):
        w = np.arange(1, 5, dtype=np.float32)
        kw["weight"], kw2["weight"] = mt.tensor(w), torch.tensor(w)
    p = np.abs(rnd(3, 4, 2))
    p /= p.sum(1, keepdims=True)
    run_both(
        lambda x, t: F.cross_entropy(x, t, **kw),
        lambda x, t: TF.cross_entropy(x, t, **kw2),
        [rnd(3, 4, 2), p],
        nondiff=(1,),
    )


def test_cross_entropy_large_logits_stable():
    x = np.array([[1000.0, -1000.0, 0.0]], np.float32)
    close(F.cross_entropy(mt.tensor(x), mt.tensor([1])), TF.cross_entropy(torch.tensor(x), torch.tensor([1])))


def test_nll_loss_errors():
    with pytest.raises(IndexError):
        F.nll_loss(mt.zeros(2, 3), mt.tensor([0, 3]))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.nll_loss(mt.zeros(2, 3), mt.tensor([0, 1]), reduction="avg")


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_regression_losses(red):
    a, b = rnd(4, 5), rnd(4, 5)
    run_both(lambda x, y: F.mse_loss(x, y, reduction=red), lambda x, y: TF.mse_loss(x, y, reduction=red), [a, b])
    run_both(lambda x, y: F.l1_loss(x, y, reduction=red), lambda x, y: TF.l1_loss(x, y, reduction=red), [a, b])
    for beta in (1.0, 0.5):
        run_both(
            lambda x, y: F.smooth_l1_loss(x, y, reduction=red, beta=beta),
            lambda x, y: TF.smooth_l1_loss(x, y, reduction=red, beta=beta),
            [a, b],
        )
        run_both(
            lambda x, y: F.huber_loss(x, y, reduction=red, delta=beta),
            lambda x, y: TF.huber_loss(x, y, reduction=red, delta=beta),
            [a, b],
        )


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_binary_cross_entropy(red):
    p = 1 / (1 + np.exp(-rnd(4, 3)))
    t = RNG.random((4, 3)).astype(np.float32)
    w = rnd(4, 3, low=0.1)
    run_both(
        lambda x, y: F.binary_cross_entropy(x, y, reduction=red),
        lambda x, y: TF.binary_cross_entropy(x, y, reduction=red),
        [p, t],
        nondiff=(1,),
    )
    run_both(
        lambda x, y, ww: F.binary_cross_entropy(x, y, ww, reduction=red),
        lambda x, y, ww: TF.binary_cross_entropy(x, y, ww, reduction=red),
        [p, t, w],
        nondiff=(1, 2),
    )
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(mt.tensor([1.5]), mt.tensor([1.0]))
    with pytest.raises(ValueError):
        F.binary_cross_entropy(mt.tensor([0.5, 0.5]), mt.tensor([[1.0, 0.0]]))


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_bce_with_logits(red):
    x = rnd(4, 3) * 10
    t = RNG.random((4, 3)).astype(np.float32)
    pw, w = rnd(3, low=0.2), rnd(4, 3, low=0.1)
    run_both(
        lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=red),
        lambda a, b: TF.binary_cross_entropy_with_logits(a, b, reduction=red),
        [x, t],
        rtol=1e-5,
        atol=1e-5,
    )
    run_both(
        lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, d, reduction=red, pos_weight=c),
        lambda a, b, c, d: TF.binary_cross_entropy_with_logits(a, b, d, reduction=red, pos_weight=c),
        [x, t, pw, w],
        nondiff=(1, 2, 3),
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize("red", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(red, log_target):
    x = np.log(np.abs(rnd(3, 4)) + 0.1)
    t = np.abs(rnd(3, 4))
    t[0, 0] = 0.0
    if log_target:
        t = np.log(t + 0.1)
    with pytest.warns(None) if False else _nowarn():
        run_both(
            lambda a, b: F.kl_div(a, b, reduction=red, log_target=log_target),
            lambda a, b: TF.kl_div(a, b, reduction=red, log_target=log_target),
            [x, t],
            nondiff=(1,),
        )


class _nowarn:
    def __enter__(self):
        import warnings

        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        self._c.__exit__(*a)


@pytest.mark.parametrize("case", ["plain", "causal", "bool", "float", "scale", "gqa"])
def test_sdpa(case):
    q, k, v = rnd(2, 4, 5, 8), rnd(2, 4, 6, 8), rnd(2, 4, 6, 3)
    kw = {}
    extra = []
    if case == "causal":
        k, v = rnd(2, 4, 5, 8), rnd(2, 4, 5, 3)
        kw["is_causal"] = True
    elif case == "scale":
        kw["scale"] = 0.3
    elif case == "gqa":
        k, v = rnd(2, 2, 6, 8), rnd(2, 2, 6, 3)
        kw["enable_gqa"] = True
    if case == "bool":
        mask = RNG.random((5, 6)) > 0.3
        mask[:, 0] = True
        extra = [mask]
    elif case == "float":
        extra = [rnd(2, 1, 5, 6)]
    nd = (3,) if case == "bool" else ()
    run_both(
        lambda *a: F.scaled_dot_product_attention(*a[:3], attn_mask=a[3] if extra else None, **kw),
        lambda *a: TF.scaled_dot_product_attention(*a[:3], attn_mask=a[3] if extra else None, **kw),
        [q, k, v] + extra,
        nondiff=nd,
        rtol=1e-4,
        atol=1e-5,
    )


def _sdpa_keep_mask(shape, p, seed):
    """The keep mask F.scaled_dot_product_attention draws after manual_seed(seed): q = 0 gives every row the
    probabilities 1 / S, and v = the identity makes out[..., i, j] = keep[i, j] / (S * (1 - p))."""
    S = shape[-1]
    eye = mt.eye(S).expand(shape[:-2] + (S, S))
    mt.manual_seed(seed)
    out = F.scaled_dot_product_attention(mt.zeros(shape), eye, eye, dropout_p=p).numpy() * (S * (1 - p))
    np.testing.assert_allclose(out, np.round(out), atol=1e-5)  # each entry is 0 or 1
    return out > 0.5


@pytest.mark.parametrize("case", ["mha", "gqa", "causal", "bool"])
def test_sdpa_dropout_is_pytorchs_math_path_with_the_drawn_mask(case):
    """Values and gradients are those of PyTorch's math formulation given the same dropout mask; the mask
    keeps 1 - p of the scores and comes back with the seed."""
    b, n, L, S, p = 2, 4, 5, 6, 0.3
    kv = 2 if case == "gqa" else n
    keep = _sdpa_keep_mask((b, n, L, S), p, seed=5)
    np.testing.assert_array_equal(_sdpa_keep_mask((b, n, L, S), p, seed=5), keep)
    q, k, v = rnd(b, n, L, 8), rnd(b, kv, S, 8), rnd(b, kv, S, 3)
    mask = RNG.random((L, S)) > 0.3 if case == "bool" else None
    if mask is not None:
        mask[:, 0] = True
    kw = dict(is_causal=case == "causal", enable_gqa=kv != n)

    def ours(q, k, v):
        mt.manual_seed(5)
        m = None if mask is None else mt.tensor(mask)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, dropout_p=p, **kw)

    def theirs(q, k, v):
        # the aten math op takes the additive form of a bool mask (the public function converts it first)
        m = None if mask is None else torch.zeros(L, S).masked_fill(~torch.tensor(mask), float("-inf"))
        drop = torch.tensor(keep)
        return torch.ops.aten._scaled_dot_product_attention_math(q, k, v, m, p, dropout_mask=drop, **kw)[0]

    run_both(ours, theirs, [q, k, v], rtol=1e-4, atol=1e-5)


def test_sdpa_dropout_keeps_its_share():
    keep = _sdpa_keep_mask((4, 4, 32, 32), 0.25, seed=9)
    assert abs(keep.mean() - 0.75) < 0.03  # 16384 draws: within ~9 standard deviations
    assert (_sdpa_keep_mask((4, 4, 32, 32), 0.25, seed=10) != keep).any()


@pytest.mark.parametrize(
    "kw", [dict(size=(5, 7)), dict(scale_factor=2), dict(scale_factor=(1.5, 0.5)), dict(size=(3, 2))]
)
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bilinear-ac"])
def test_interpolate2d(kw, mode):
    extra = {}
    if mode == "bilinear-ac":
        mode, extra = "bilinear", dict(align_corners=True)
    elif mode == "bilinear":
        extra = dict(align_corners=False)
    run_both(
        lambda x: F.interpolate(x, mode=mode, **kw, **extra),
        lambda x: TF.interpolate(x, mode=mode, **kw, **extra),
        [rnd(2, 3, 4, 5)],
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_interpolate1d(mode):
    run_both(
        lambda x: F.interpolate(x, scale_factor=2.5, mode=mode),
        lambda x: TF.interpolate(x, scale_factor=2.5, mode=mode),
        [rnd(2, 3, 4)],
        rtol=1e-5,
        atol=1e-5,
    )


def test_interpolate_errors():
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(mt.zeros(1, 1, 2, 2), size=3, align_corners=True)
    with pytest.raises(ValueError):
        F.interpolate(mt.zeros(1, 1, 2, 2))


def test_normalize_and_cosine():
    run_both(lambda x: F.normalize(x), lambda x: TF.normalize(x), [rnd(3, 4)])
    run_both(lambda x: F.normalize(x, p=1, dim=0), lambda x: TF.normalize(x, p=1, dim=0), [rnd(3, 4)])
    run_both(lambda a, b: F.cosine_similarity(a, b), lambda a, b: TF.cosine_similarity(a, b), [rnd(3, 4), rnd(3, 4)])
    run_both(
        lambda a, b: F.cosine_similarity(a, b, dim=-1),
        lambda a, b: TF.cosine_similarity(a, b, dim=-1),
        [rnd(2, 3, 4), rnd(1, 4)],
    )


@pytest.mark.parametrize(
    "name,args",
    [
        ("relu", ()),
        ("gelu", ()),
        ("silu", ()),
        ("mish", ()),
        ("elu", (0.5,)),
        ("leaky_relu", (0.2,)),
        ("hardtanh", (-0.5, 0.7)),
        ("softplus", (2.0, 1.0)),
        ("sigmoid", ()),
        ("tanh", ()),
        ("logsigmoid", ()),
        ("relu6", ()),
        ("hardswish", ()),
        ("hardsigmoid", ()),
        ("softsign", ()),
    ],
)
def test_activation_wrappers(name, args):
    run_both(
        lambda x: getattr(F, name)(x, *args),
        lambda x: getattr(TF, name)(x, *args),
        [rnd(3, 4) * 4],
        rtol=1e-5,
        atol=1e-5,
    )


def test_gelu_tanh_and_softmaxes():
    run_both(lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh"), [rnd(3, 4)])
    for fn in ("softmax", "log_softmax", "softmin"):
        run_both(lambda x: getattr(F, fn)(x, dim=-1), lambda x: getattr(TF, fn)(x, dim=-1), [rnd(3, 4)])
    run_both(lambda x: F.softmax(x, 1, dtype=mt.float64), lambda x: TF.softmax(x, 1, dtype=torch.float64), [rnd(3, 4)])


def test_dropout_statistics():
    x = mt.ones(200, 100)
    y = F.dropout(x, 0.3)
    vals = np.unique(y.numpy())
    assert len(vals) == 2 and vals[0] == 0.0 and np.isclose(vals[1], 1 / 0.7)
    frac = (y.numpy() == 0).mean()
    assert 0.27 < frac < 0.33
    with pytest.raises(ValueError, match="dropout probability"):
        F.dropout(x, 1.5)


EMPTY_WEIGHT_CONVS = [
    ("conv2d", (1, 2, 4, 4), (0, 2, 3, 3), {}),
    ("conv2d", (1, 4, 4, 4), (0, 2, 3, 3), {"groups": 2}),
    ("conv2d", (1, 4, 4, 4), (1, 2, 3, 3), {"groups": 2}),
    ("conv1d", (1, 2, 4), (0, 2, 3), {}),
    ("conv3d", (1, 2, 4, 4, 4), (0, 2, 3, 3, 3), {}),
    ("conv_transpose2d", (1, 2, 4, 4), (2, 0, 3, 3), {}),
    ("conv_transpose1d", (1, 2, 4), (2, 0, 3), {}),
]


@pytest.mark.parametrize("name,x,w,kw", EMPTY_WEIGHT_CONVS)
def test_a_conv_with_too_few_filters_raises_like_pytorch(name, x, w, kw):
    with pytest.raises(RuntimeError) as want:
        getattr(TF, name)(torch.ones(x), torch.ones(w), **kw)
    with pytest.raises(RuntimeError) as got:
        getattr(F, name)(mt.ones(x), mt.ones(w), **kw)
    if name == "conv2d":  # the other ranks run as conv2d and name its 4-d shapes
        assert str(got.value) == str(want.value)
