"""mindtorch.utils._pytree against torch.utils._pytree."""

from helpers import torch_or_skip

torch = torch_or_skip()

import collections  # noqa: E402

import mindtorch.utils._pytree as mp  # noqa: E402
import pytest  # noqa: E402
import torch.utils._pytree as tp  # noqa: E402

Point = collections.namedtuple("Point", ["x", "y"])
TREES = [
    1,
    None,
    [],
    (),
    {},
    [1, 2, (3, 4)],
    {"b": 1, "a": [2, {"c": 3}]},
    (None, 1, [None, 2]),
    collections.OrderedDict([("z", 1), ("y", (2, 3))]),
    Point(1, [2, 3]),
    collections.defaultdict(list, {"k": [1, 2]}),
    [[[[]]], (5,)],
    "a string is a leaf",
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_unflatten_map(tree):
    ml, ms = mp.tree_flatten(tree)
    tl, ts = tp.tree_flatten(tree)
    assert ml == tl
    assert ms.num_leaves == ts.num_leaves
    back = mp.tree_unflatten(ml, ms)
    assert back == tree and type(back) is type(tree)
    assert mp.tree_map(lambda v: (v, 0), tree) == tp.tree_map(lambda v: (v, 0), tree)
    assert mp.tree_leaves(tree) == tp.tree_leaves(tree)


def test_map_over_several_trees_and_only():
    a, b = {"x": [1, 2], "y": 3}, {"x": [10, 20], "y": 30}
    assert mp.tree_map(lambda u, v: u + v, a, b) == tp.tree_map(lambda u, v: u + v, a, b)
    t = [1, "s", 2.5, (3, "t")]
    assert mp.tree_map_only(int, lambda v: -v, t) == tp.tree_map_only(int, lambda v: -v, t)
    assert mp.tree_all(lambda v: v > 0, [1, (2,)]) and not mp.tree_any(lambda v: v > 5, [1, (2,)])


def test_register_custom_node():
    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    for lib in (mp, tp):
        lib.register_pytree_node(Box, lambda bx: ([bx.a, bx.b], None), lambda c, _: Box(*c))
        leaves, spec = lib.tree_flatten([Box(1, (2, 3)), 4])
        assert leaves == [1, 2, 3, 4]
        out = lib.tree_unflatten([10, 20, 30, 40], spec)
        assert (out[0].a, out[0].b, out[1]) == (10, (20, 30), 40)
        with pytest.raises(ValueError):
            lib.register_pytree_node(Box, lambda bx: ([], None), lambda c, _: Box(0, 0))


def test_unflatten_wrong_count():
    for lib in (mp, tp):
        _, spec = lib.tree_flatten([1, 2])
        with pytest.raises(ValueError):
            lib.tree_unflatten([1], spec)


def test_pytree_key_entries():
    import mindtorch.utils._pytree as mp
    import torch.utils._pytree as tp

    for cls in ("MappingKey", "SequenceKey", "GetAttrKey"):
        m, t = (
            getattr(mp, cls)("a" if cls != "SequenceKey" else 3),
            getattr(tp, cls)("a" if cls != "SequenceKey" else 3),
        )
        assert str(m) == str(t)
    kv, ctx = mp._dict_flatten_with_keys({"x": 1, "y": 2})
    tkv, tctx = tp._dict_flatten_with_keys({"x": 1, "y": 2})
    assert [(str(k), v) for k, v in kv] == [(str(k), v) for k, v in tkv] and ctx == tctx
    assert mp._dict_unflatten([1, 2], ["x", "y"]) == tp._dict_unflatten([1, 2], ["x", "y"])
