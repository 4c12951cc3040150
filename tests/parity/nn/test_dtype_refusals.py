"""nn functionals on the dtypes PyTorch's kernels lack (integers, bool, complex, half for some), against
PyTorch: where it refuses, mindtorch refuses with the same class and message; where it computes, the result
dtype agrees."""

from helpers import torch_or_skip

torch = torch_or_skip()

import warnings  # noqa: E402

import mindtorch as mt  # noqa: E402
import pytest  # noqa: E402

DTYPES = ("int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128", "float16", "bfloat16")


def cases(L):
    F = L.nn.functional
    x4 = lambda d: L.ones(2, 4, 3, 3, dtype=d)
    return {
        "layer_norm": lambda d: F.layer_norm(L.ones(2, 3, dtype=d), (3,)),
        "group_norm": lambda d: F.group_norm(x4(d), 2),
        "batch_norm": lambda d: F.batch_norm(x4(d), None, None, training=True),
        "instance_norm": lambda d: F.instance_norm(x4(d)),
        "rms_norm": lambda d: F.rms_norm(L.ones(2, 3, dtype=d), (3,)),
        "softmax": lambda d: F.softmax(L.ones(2, 3, dtype=d), 1),
        "log_softmax": lambda d: F.log_softmax(L.ones(2, 3, dtype=d), 1),
        "gelu": lambda d: F.gelu(L.ones(2, 3, dtype=d)),
        "silu": lambda d: F.silu(L.ones(2, 3, dtype=d)),
        "relu": lambda d: F.relu(L.ones(2, 3, dtype=d)),
        "sigmoid": lambda d: L.sigmoid(L.ones(2, 3, dtype=d)),
        "tanh": lambda d: L.tanh(L.ones(2, 3, dtype=d)),
        "mish": lambda d: F.mish(L.ones(2, 3, dtype=d)),
        "elu": lambda d: F.elu(L.ones(2, 3, dtype=d)),
        "leaky_relu": lambda d: F.leaky_relu(L.ones(2, 3, dtype=d)),
        "hardswish": lambda d: F.hardswish(L.ones(2, 3, dtype=d)),
        "softplus": lambda d: F.softplus(L.ones(2, 3, dtype=d)),
        "dropout": lambda d: F.dropout(L.ones(2, 3, dtype=d), 0.5),
        "avg_pool2d": lambda d: F.avg_pool2d(x4(d), 2),
        "max_pool2d": lambda d: F.max_pool2d(x4(d), 2),
        "adaptive_avg_pool2d": lambda d: F.adaptive_avg_pool2d(x4(d), 1),
        "interpolate": lambda d: F.interpolate(x4(d), scale_factor=2),
        "interpolate_bilinear": lambda d: F.interpolate(x4(d), scale_factor=2, mode="bilinear"),
        "conv2d": lambda d: F.conv2d(x4(d), L.ones(2, 4, 1, 1, dtype=d)),
        "linear": lambda d: F.linear(L.ones(2, 3, dtype=d), L.ones(4, 3, dtype=d)),
        "embedding": lambda d: F.embedding(L.tensor([0, 1]), L.ones(3, 2, dtype=d)),
        "mse_loss": lambda d: F.mse_loss(L.ones(2, 3, dtype=d), L.ones(2, 3, dtype=d)),
        "l1_loss": lambda d: F.l1_loss(L.ones(2, 3, dtype=d), L.ones(2, 3, dtype=d)),
        "cross_entropy": lambda d: F.cross_entropy(L.ones(2, 3, dtype=d), L.tensor([0, 1])),
        "nll_loss": lambda d: F.nll_loss(L.ones(2, 3, dtype=d), L.tensor([0, 1])),
        "bce": lambda d: F.binary_cross_entropy(
            L.full((2, 3), 0.5, dtype=d) if d.is_floating_point else L.ones(2, 3, dtype=d), L.ones(2, 3, dtype=d)
        ),
        "sdpa": lambda d: F.scaled_dot_product_attention(
            L.ones(1, 2, 3, dtype=d), L.ones(1, 2, 3, dtype=d), L.ones(1, 2, 3, dtype=d)
        ),
        "cumsum": lambda d: L.cumsum(L.ones(2, 3, dtype=d), 1),
        "logsumexp": lambda d: L.logsumexp(L.ones(2, 3, dtype=d), 1),
        "pad_reflect": lambda d: F.pad(x4(d), (1, 1), mode="reflect"),
        "pixel_shuffle": lambda d: F.pixel_shuffle(x4(d), 2),
        "normalize": lambda d: F.normalize(L.ones(2, 3, dtype=d)),
        "cosine_similarity": lambda d: F.cosine_similarity(L.ones(2, 3, dtype=d), L.ones(2, 3, dtype=d)),
        "hardtanh": lambda d: F.hardtanh(L.ones(2, 3, dtype=d)),
        "glu": lambda d: F.glu(L.ones(2, 4, dtype=d)),
        "prelu": lambda d: F.prelu(L.ones(2, 3, dtype=d), L.ones(1, dtype=d)),
        "local_response_norm": lambda d: F.local_response_norm(x4(d), 2),
        "unfold": lambda d: F.unfold(x4(d), 2),
        "grid_sample": lambda d: F.grid_sample(x4(d), L.zeros(2, 2, 2, 2, dtype=d)),
    }


def _outcome(L, name, dt):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("computes", str(cases(L)[name](getattr(L, dt)).dtype).split(".")[-1])
    except Exception as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(cases(torch)))
def test_nn_functional_refuses_the_dtypes_pytorch_refuses(name, dt):
    assert _outcome(mt, name, dt) == _outcome(torch, name, dt)
