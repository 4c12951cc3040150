"""nn.Module, containers, Parameter and init (no PyTorch import)."""

import copy
from collections import OrderedDict

import mindtorch as torch
import mindtorch.nn as nn
import pytest


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.seq = nn.Sequential(nn.Linear(4, 2), nn.Tanh())
        self.register_buffer("stat", torch.zeros(2))
        self.register_buffer("tmp", torch.ones(1), persistent=False)

    def forward(self, x):
        return self.seq(self.act(self.fc(x)))


def test_parameter_basics():
    p = nn.Parameter(torch.ones(2))
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor([1., 1.], requires_grad=True)")
    assert not nn.Parameter(torch.ones(2), requires_grad=False).requires_grad
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.data_ptr() != p.data_ptr()


def test_registration_and_names():
    m = Net()
    assert [n for n, _ in m.named_parameters()] == ["fc.weight", "fc.bias", "seq.0.weight", "seq.0.bias"]
    assert [n for n, _ in m.named_buffers()] == ["stat", "tmp"]
    assert [n for n, _ in m.named_modules()] == ["", "fc", "act", "seq", "seq.0", "seq.1"]
    assert [n for n, _ in m.named_children()] == ["fc", "act", "seq"]
    assert list(m.state_dict()) == ["stat", "fc.weight", "fc.bias", "seq.0.weight", "seq.0.bias"]
    assert m.state_dict()._metadata["seq.0"] == {"version": 1}
    assert not m.state_dict()["fc.weight"].requires_grad
    assert m.state_dict(keep_vars=True)["fc.weight"] is m.fc.weight


def test_setattr_semantics():
    m = Net()
    with pytest.raises(
        TypeError,
        match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
        r"\(torch.nn.Parameter or None expected\)",
    ):
        m.fc.weight = torch.ones(4, 3)
    with pytest.raises(KeyError, match="attribute 'fc' already exists"):
        m.register_buffer("fc", torch.ones(1))
    with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'b'"):
        m.register_buffer("b", 3)
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        _ = m.nope
    m.stat = torch.ones(2)  # reassigning a buffer keeps it a buffer
    assert m._buffers["stat"] is m.stat
    m.fc = None
    assert "fc" in m._modules and m.fc is None
    del m.stat
    assert "stat" not in m._buffers
    with pytest.raises(AttributeError):

        class Bad(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(torch.ones(1))

        Bad()


def test_weight_tying_listed_once():
    a, b = nn.Embedding(5, 3), nn.Linear(3, 5, bias=False)
    b.weight = a.weight
    m = nn.Sequential(a, b)
    assert len(list(m.parameters())) == 1
    assert list(m.state_dict()) == ["0.weight", "1.weight"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == ["0.weight", "1.weight"]


def test_load_state_dict_strict_and_errors():
    m = Net()
    sd = m.state_dict()
    res = Net().load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == [] and repr(res) == "<All keys matched successfully>"
    bad = OrderedDict(sd)
    del bad["fc.bias"]
    bad["extra"] = torch.ones(1)
    with pytest.raises(RuntimeError) as ei:
        Net().load_state_dict(bad)
    assert str(ei.value) == (
        'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "fc.bias". '
        '\n\tUnexpected key(s) in state_dict: "extra". '
    )
    res = Net().load_state_dict(bad, strict=False)
    assert res.missing_keys == ["fc.bias"] and res.unexpected_keys == ["extra"]
    bad = OrderedDict(sd)
    bad["fc.weight"] = torch.ones(3, 3)
    with pytest.raises(
        RuntimeError,
        match="size mismatch for fc.weight: copying a param with shape "
        r"torch.Size\(\[3, 3\]\) from checkpoint",
    ):
        Net().load_state_dict(bad)
    n = Net()
    n.load_state_dict(sd)
    assert n.fc.weight.tolist() == m.fc.weight.tolist() and isinstance(n.fc.weight, nn.Parameter)


def test_train_eval_zero_grad_requires_grad():
    m = Net()
    assert m.training and not m.eval().seq[0].training and m.train().seq[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")
    m(torch.ones(2, 3)).sum().backward()
    assert m.fc.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m.fc.weight.grad.abs().sum().item() == 0
    m.zero_grad()
    assert m.fc.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype_keeps_parameter_identity():
    m = Net()
    w = m.fc.weight
    m.double()
    assert m.fc.weight is w and w.dtype is torch.float64 and m.stat.dtype is torch.float64
    m.to(torch.float32)
    assert m.fc.weight.dtype is torch.float32
    m.half().float()
    with pytest.raises(TypeError, match="floating point or complex dtypes"):
        m.to(torch.int64)


def test_hooks_and_apply():
    m = nn.Linear(2, 2)
    seen = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: seen.append(out) or out + 1)
    out = m(torch.ones(1, 2))
    assert out.tolist() == (m.bias + 1).unsqueeze(0).tolist() and len(seen) == 1
    h1.remove()
    h2.remove()
    assert m(torch.zeros(1, 2)).tolist() == m.bias.unsqueeze(0).tolist()
    names = []
    Net().apply(lambda mod: names.append(type(mod).__name__))
    assert names == ["Linear", "ReLU", "Linear", "Tanh", "Sequential", "Net"]


def test_repr():
    assert repr(Net()) == (
        "Net(\n  (fc): Linear(in_features=3, out_features=4, bias=True)\n  (act): ReLU()\n"
        "  (seq): Sequential(\n    (0): Linear(in_features=4, out_features=2, bias=True)\n"
        "    (1): Tanh()\n  )\n)"
    )


def test_sequential_and_lists():
    s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    assert len(s) == 3 and isinstance(s[1], nn.Tanh) and isinstance(s[-1], nn.Sigmoid)
    assert isinstance(s[1:], nn.Sequential) and len(s[1:]) == 2
    s.append(nn.Identity())
    assert list(s._modules) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError, match="index 7 is out of range"):
        s[7]
    del s[0]
    assert list(s._modules) == ["0", "1", "2"] and isinstance(s[0], nn.Tanh)
    od = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert list(od._modules) == ["a", "b"]
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml.append(nn.ReLU())
    assert len(ml) == 4 and len(list(ml.parameters())) == 6 and len(ml[:2]) == 2
    md = nn.ModuleDict({"x": nn.ReLU(), "y": nn.Linear(1, 2)})
    assert list(md.keys()) == ["x", "y"] and "y" in md and len(list(md.parameters())) == 2
    pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
    assert len(pl) == 2 and isinstance(pl[1], nn.Parameter) and len(list(pl.parameters())) == 2
    assert (
        repr(pl) == "ParameterList(\n    (0): Parameter containing: [torch.float32 of size 2]\n"
        "    (1): Parameter containing: [torch.float32 of size 3]\n)"
    )
    pd = nn.ParameterDict({"a": nn.Parameter(torch.ones(2))})
    pd["b"] = torch.zeros(1)
    assert list(pd.keys()) == ["a", "b"] and isinstance(pd["b"], nn.Parameter)
    assert [n for n, _ in pd.named_parameters()] == ["a", "b"]


def test_init_functions():
    w = torch.empty(64, 32)
    nn.init.constant_(w, 0.5)
    assert set(w.flatten().tolist()) == {0.5}
    nn.init.zeros_(w)
    assert w.abs().sum().item() == 0
    nn.init.ones_(w)
    assert w.sum().item() == 64 * 32
    assert nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)) == (36, 72)
    assert nn.init.calculate_gain("relu") == pytest.approx(2**0.5)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx((2 / 1.04) ** 0.5)
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("nope")
    nn.init.kaiming_uniform_(w, a=5**0.5)
    bound = 1 / 32**0.5
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.8 * bound
    nn.init.xavier_uniform_(w)
    assert w.abs().max().item() <= (6 / 96) ** 0.5
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert w.abs().max().item() <= 0.5
    nn.init.normal_(w, 2.0, 0.1)
    assert abs(w.mean().item() - 2.0) < 0.05
    x = torch.ones(3, requires_grad=True)
    nn.init.uniform_(x)  # under no_grad: allowed on a leaf that requires grad
    assert x.is_leaf
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(torch.empty(3))
