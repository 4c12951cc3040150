"""torch.* forms of neural-network ops with ATen's signatures: the functional RNNs (lstm, gru, rnn_tanh,
rnn_relu, padded and packed, and their _cell forms), convolution, ctc_loss, embedding_bag,
embedding_renorm_, grid_sampler(_2d, _3d), affine_grid_generator, native_batch_norm, native_group_norm,
norm_except_dim, batch_norm_update_stats, and SyncBatchNorm's pieces (batch_norm_stats / elemt /
gather_stats(_with_counts) / backward_reduce / backward_elemt, which PyTorch runs on CUDA only: checked
here on one process against PyTorch's batch norm and its gradients). Against PyTorch 2.13."""

import itertools

import numpy as np
import pytest
from helpers import check_grad, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(11)


def arr(*shape):
    return R.standard_normal(shape)


def pair(a, grad=False):
    """The same float64 data as a (mindtorch, PyTorch) pair of tensors."""
    return mt.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a.detach().numpy()), np.asarray(b.detach().numpy()), rtol=tol, atol=tol)


# --- recurrent networks --------------------------------------------------------------------------------
MODES = {"lstm": ("LSTM", 4), "gru": ("GRU", 3), "rnn_tanh": ("RNN", 1), "rnn_relu": ("RNN", 1)}


def _params(gates, inp, hid, layers, dirs, bias):
    out = []
    for layer in range(layers):
        for _ in range(dirs):
            width = inp if layer == 0 else hid * dirs
            out += [arr(gates * hid, width), arr(gates * hid, hid)]
            if bias:
                out += [arr(gates * hid), arr(gates * hid)]
    return out


@pytest.mark.parametrize(
    "name,layers,bidirectional,bias,batch_first",
    list(itertools.product(MODES, [1, 2], [False, True], [True, False], [False, True])),
)
def test_functional_rnn_padded(name, layers, bidirectional, bias, batch_first):
    gates = MODES[name][1]
    dirs = 2 if bidirectional else 1
    params = _params(gates, 3, 4, layers, dirs, bias)
    x = arr(2, 5, 3) if batch_first else arr(5, 2, 3)
    h = arr(layers * dirs, 2, 4)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        ps = [pair(p, True)[k] for p in params]
        xs = pair(x, True)[k]
        hx = [pair(h)[k], pair(h * 0.5)[k]] if name == "lstm" else pair(h)[k]
        out = getattr(L, name)(xs, hx, ps, bias, layers, 0.0, False, bidirectional, batch_first)
        sum(o.sum() for o in out).backward()
        res.append((out, xs.grad, [p.grad for p in ps]))
    assert len(res[0][0]) == len(res[1][0]) == (3 if name == "lstm" else 2)
    for a, b in zip(res[0][0], res[1][0]):
        close(a, b)
    close(res[0][1], res[1][1])
    for a, b in zip(res[0][2], res[1][2]):
        close(a, b)


@pytest.mark.parametrize("name", list(MODES))
def test_functional_rnn_packed(name):
    gates = MODES[name][1]
    params = _params(gates, 3, 4, 1, 2, True)
    data, sizes, h = arr(6, 3), [3, 2, 1], arr(2, 3, 4)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        hx = [pair(h)[k], pair(h)[k]] if name == "lstm" else pair(h)[k]
        out = getattr(L, name)(
            pair(data)[k], L.tensor(sizes), hx, [pair(p)[k] for p in params], True, 1, 0.0, False, True
        )
        res.append(out)
    for a, b in zip(*res):
        close(a, b)


@pytest.mark.parametrize("name,bias", list(itertools.product(MODES, [True, False])))
def test_cells(name, bias):
    gates = MODES[name][1]
    w_ih, w_hh, b_ih, b_hh = arr(gates * 4, 3), arr(gates * 4, 4), arr(gates * 4), arr(gates * 4)
    x, h = arr(2, 3), arr(2, 4)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        hx = [pair(h)[k], pair(h * 2)[k]] if name == "lstm" else pair(h)[k]
        biases = (pair(b_ih)[k], pair(b_hh)[k]) if bias else (None, None)
        out = getattr(L, name + "_cell")(pair(x)[k], hx, pair(w_ih)[k], pair(w_hh)[k], *biases)
        res.append(out if isinstance(out, tuple) else (out,))
    for a, b in zip(*res):
        close(a, b)


def test_lstm_cell_gradcheck():
    x, h, c = (mt.tensor(arr(2, 3), requires_grad=True), mt.tensor(arr(2, 2)), mt.tensor(arr(2, 2)))
    w_ih, w_hh = mt.tensor(arr(8, 3), requires_grad=True), mt.tensor(arr(8, 2), requires_grad=True)
    check_grad(lambda x, a, b: mt.lstm_cell(x, [h, c], a, b)[1], x, w_ih, w_hh)


# --- convolution, sampling, embeddings, ctc --------------------------------------------------------
CONVS = {
    "conv1d": ((2, 4, 7), (6, 2, 3), [2], [1], [1], False, [0], 2),
    "conv2d": ((1, 2, 5, 6), (3, 2, 3, 2), [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
    "conv3d": ((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), [1, 1, 1], [0, 0, 0], [2, 1, 1], False, [0, 0, 0], 1),
    "conv_transpose2d": ((1, 2, 4, 4), (2, 3, 3, 3), [2, 2], [1, 1], [1, 1], True, [1, 0], 1),
    "conv_transpose1d groups": ((1, 4, 5), (4, 1, 3), [1], [0], [1], True, [0], 2),
}


@pytest.mark.parametrize("name", list(CONVS))
def test_convolution(name):
    xs, ws, stride, padding, dilation, transposed, output_padding, groups = CONVS[name]
    x, w = arr(*xs), arr(*ws)
    b = arr(ws[1] * groups if transposed else ws[0])
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        xt, wt = pair(x, True)[k], pair(w, True)[k]
        out = L.convolution(xt, wt, pair(b)[k], stride, padding, dilation, transposed, output_padding, groups)
        out.sum().backward()
        res.append((out, xt.grad, wt.grad))
    for a, b_ in zip(*res):
        close(a, b_)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_ctc_loss(reduction):
    lp = np.log(np.abs(arr(6, 2, 4)) + 0.1)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        x = pair(lp, True)[k]
        log_probs = x.log_softmax(2)
        targets = L.tensor([[1, 2, 1], [3, 1, 0]])
        loss = L.ctc_loss(log_probs, targets, [6, 5], [3, 2], 0, reduction, False)
        loss.sum().backward()
        res.append((loss, x.grad))
    close(res[0][0], res[1][0], 1e-8)
    close(res[0][1], res[1][1], 1e-8)


@pytest.mark.parametrize(
    "mode,padding_idx,include_last",
    [(1, None, False), (2, None, False), (1, 4, False), (2, 4, False), (0, None, False), (1, None, True)],
)
def test_embedding_bag(mode, padding_idx, include_last):
    w = arr(10, 3)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        wt = pair(w, True)[k]
        # with include_last_offset the last offset ends the last bag (PyTorch's mean path on an empty last
        # bag reads past it, so that case is left out)
        idx, off = L.tensor([1, 2, 4, 5, 4, 3, 2, 9]), L.tensor([0, 3, 8] if include_last else [0, 4, 4])
        out = L.embedding_bag(wt, idx, off, False, mode, False, None, include_last, padding_idx)
        out[0].sum().backward()
        res.append((out, wt.grad))
    close(res[0][0][0], res[1][0][0])
    close(res[0][1], res[1][1])
    assert res[0][0][2].tolist() == res[1][0][2].tolist()
    assert res[0][0][3].tolist() == res[1][0][3].tolist()
    if mode:  # PyTorch's float32 fast path for sums leaves offset2bag empty; every other case fills it
        assert res[0][0][1].tolist() == res[1][0][1].tolist()


def test_embedding_renorm_():
    w = arr(5, 3) * 3
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        t = pair(w)[k]
        out = L.embedding_renorm_(t, L.tensor([1, 1, 2]), 1.0, 2.0)
        res.append((out is t, t))
    assert res[0][0] and res[1][0]
    close(res[0][1], res[1][1])


@pytest.mark.parametrize("mode,padding,align", list(itertools.product([0, 1], [0, 1, 2], [False, True])))
def test_grid_sampler(mode, padding, align):  # bicubic (2): grid_sample has no bicubic mode yet
    x, g = arr(1, 2, 4, 5), arr(1, 3, 2, 2) * 1.2
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        xt = pair(x, True)[k]
        a = L.grid_sampler(xt, pair(g)[k], mode, padding, align)
        b = L.grid_sampler_2d(xt, pair(g)[k], mode, padding, align)
        (a.sum() + b.sum()).backward()
        res.append((a, b, xt.grad))
    for a, b in zip(*res):
        close(a, b, 1e-8)


@pytest.mark.parametrize("mode,padding,align", list(itertools.product([0, 1], [0, 1, 2], [False, True])))
def test_grid_sampler_3d(mode, padding, align):
    x, g = arr(2, 2, 3, 4, 5), arr(2, 2, 3, 2, 3) * 1.2
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        xt, gt = pair(x, True)[k], pair(g, True)[k]
        a = L.grid_sampler(xt, gt, mode, padding, align)
        b = L.grid_sampler_3d(xt, gt, mode, padding, align)
        (a.sum() + (b * b).sum()).backward()
        res.append((a, b, xt.grad, gt.grad))
    for a, b in zip(*res):
        close(a, b, 1e-8)


def test_grid_sampler_3d_wants_5d():
    for L in (mt, torch):
        with pytest.raises(RuntimeError):
            L.grid_sampler_3d(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 1, 2), 0, 0, False)


def test_grid_sampler_2d_wants_4d():
    for L in (mt, torch):
        with pytest.raises(RuntimeError):
            L.grid_sampler_2d(L.zeros(1, 1, 2, 2, 2), L.zeros(1, 1, 1, 1, 3), 0, 0, False)


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_generator(align):
    th = arr(2, 2, 3)
    res = [L.affine_grid_generator(pair(th)[k], [2, 3, 4, 5], align) for L, k in ((mt, 0), (torch, 1))]
    close(*res)


# --- normalization ---------------------------------------------------------------------------------
@pytest.mark.parametrize("training,affine", list(itertools.product([True, False], [True, False])))
def test_native_batch_norm(training, affine):
    x, w, b = arr(4, 3, 5), arr(3), arr(3)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        rm, rv = L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)
        wb = (pair(w)[k], pair(b)[k]) if affine else (None, None)
        out = L.native_batch_norm(pair(x)[k], *wb, rm, rv, training, 0.1, 1e-5)
        res.append((*out, rm, rv))
    for a, b_ in zip(*res):
        assert tuple(a.shape) == tuple(b_.shape)
        close(a, b_)


def test_native_group_norm():
    x, w, b = arr(2, 4, 3), arr(4), arr(4)
    res = [L.native_group_norm(pair(x)[k], pair(w)[k], pair(b)[k], 2, 4, 3, 2, 1e-5) for L, k in ((mt, 0), (torch, 1))]
    for a, b_ in zip(*res):
        assert tuple(a.shape) == tuple(b_.shape)
        close(a, b_)
    msgs = []
    for L in (mt, torch):
        with pytest.raises(RuntimeError) as info:
            L.native_group_norm(L.zeros(2, 4, 3), None, None, 2, 4, 3, 3, 1e-5)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("p,dim", [(2, 0), (2, 1), (3, 2), (2, -1), (1, -2)])
def test_norm_except_dim(p, dim):
    x = arr(2, 3, 4)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        xt = pair(x, True)[k]
        out = L.norm_except_dim(xt, p, dim)
        out.sum().backward()
        res.append((out, xt.grad))
    assert tuple(res[0][0].shape) == tuple(res[1][0].shape)
    for a, b in zip(*res):
        close(a, b)


def test_batch_norm_update_stats():
    x = arr(4, 3, 5)
    res = []
    for L, k in ((mt, 0), (torch, 1)):
        rm, rv = L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)
        res.append((*L.batch_norm_update_stats(pair(x)[k], rm, rv, 0.1), rm, rv))
    for a, b in zip(*res):
        close(a, b)


def _sync_batch_norm_one_process(x, w, b, rm, rv, counts):
    """SyncBatchNorm's forward as PyTorch composes it, with the batch split in parts standing for processes."""
    parts = x.split(counts, 0)
    stats = [mt.batch_norm_stats(p, 1e-5) for p in parts]
    n = [p.numel() // p.shape[1] for p in parts]
    mean, invstd = mt.batch_norm_gather_stats_with_counts(
        x,
        mt.stack([s[0] for s in stats]),
        mt.stack([s[1] for s in stats]),
        rm,
        rv,
        0.1,
        1e-5,
        mt.tensor(n, dtype=mt.float64),
    )
    return mt.batch_norm_elemt(x, w, b, mean, invstd, 1e-5), mean, invstd


def test_sync_batch_norm_pieces_make_batch_norm():
    x, w, b, g = arr(6, 3, 4), arr(3), arr(3), arr(6, 3, 4)
    xm, wm, bm = (mt.tensor(a, requires_grad=True) for a in (x, w, b))
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    rm, rv = mt.zeros(3, dtype=mt.float64), mt.ones(3, dtype=mt.float64)
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    out, mean, invstd = _sync_batch_norm_one_process(xm, wm, bm, rm, rv, [2, 4])
    want = torch.nn.functional.batch_norm(xt, trm, trv, wt, bt, True, 0.1, 1e-5)
    close(out, want)
    close(rm, trm)
    close(rv, trv)
    want.backward(torch.tensor(g))
    # backward as SyncBatchNorm does it: reduce per process, sum the reductions, then the elementwise part
    gm = mt.tensor(g)
    sum_dy, sum_dy_xmu, grad_w, grad_b = mt.batch_norm_backward_reduce(gm, xm, mean, invstd, wm, True, True, True)
    grad_x = mt.batch_norm_backward_elemt(gm, xm, mean, invstd, wm, sum_dy, sum_dy_xmu, mt.tensor([24], dtype=mt.int32))
    close(grad_x, xt.grad)
    close(grad_w, wt.grad)
    close(grad_b, bt.grad)
    none = mt.batch_norm_backward_reduce(gm, xm, mean, invstd, None, False, False, True)
    assert none[:3] == (None, None, None) and none[3] is not None


def test_gather_stats_with_equal_counts():
    x = arr(4, 3, 2)
    m = mt.tensor(x)
    parts = m.split(2, 0)
    stats = [mt.batch_norm_stats(p, 1e-5) for p in parts]
    means, invstds = mt.stack([s[0] for s in stats]), mt.stack([s[1] for s in stats])
    a = mt.batch_norm_gather_stats(m, means, invstds, None, None, 0.1, 1e-5, 4)
    full = mt.batch_norm_stats(m, 1e-5)
    close(a[0], full[0])
    close(a[1], full[1])


def test_sync_batch_norm_pieces_gradcheck():
    w = mt.tensor(arr(3), requires_grad=True)
    x = mt.tensor(arr(4, 3, 2), requires_grad=True)

    def fn(x, w):
        mean, invstd = mt.batch_norm_stats(x, 1e-5)
        return mt.batch_norm_elemt(x, w, None, mean, invstd, 1e-5)

    check_grad(fn, x, w)
