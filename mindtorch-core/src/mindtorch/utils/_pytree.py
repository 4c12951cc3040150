"""mindtorch.utils._pytree: flatten nested containers to leaves and back (torch.utils._pytree's API).

Containers: tuple, list, dict (keys in insertion order), OrderedDict, defaultdict, namedtuple, and types
added with register_pytree_node; everything else (None included, as in PyTorch 2.13) is a leaf.
"""

import collections

__all__ = [
    "TreeSpec",
    "LeafSpec",
    "register_pytree_node",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_structure",
    "tree_map",
    "tree_map_only",
    "tree_all",
    "tree_any",
    "MappingKey",
    "SequenceKey",
    "GetAttrKey",
    "Context",
    "KeyEntry",
]

Context = object
KeyEntry = object

# type -> (flatten(node) -> (children, context), unflatten(children, context) -> node)
SUPPORTED_NODES = {}


def register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
):
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = (flatten_fn, unflatten_fn)


def _is_namedtuple(node):
    return isinstance(node, tuple) and hasattr(type(node), "_fields")


class _Key:
    """A path entry naming how a child is reached from its container (key paths of flatten_with_keys)."""

    __slots__ = ("key",)
    _fmt = "{!r}"

    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        return type(other) is type(self) and other.key == self.key

    def __hash__(self):
        return hash((type(self), self.key))

    def __str__(self):
        return self._fmt.format(self.key)

    def __repr__(self):
        return f"{type(self).__name__}(key={self.key!r})"


class MappingKey(_Key):
    _fmt = "[{!r}]"


class SequenceKey(_Key):
    _fmt = "[{}]"

    @property
    def idx(self):
        return self.key


class GetAttrKey(_Key):
    _fmt = ".{}"

    @property
    def name(self):
        return self.key


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _dict_flatten_with_keys(d):
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values)], context


register_pytree_node(tuple, lambda t: (list(t), None), lambda c, _: tuple(c))
register_pytree_node(list, lambda t: (list(t), None), lambda c, _: list(c))
register_pytree_node(dict, _dict_flatten, _dict_unflatten)
register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), list(d.keys())),
    lambda c, k: collections.OrderedDict(zip(k, c)),
)
register_pytree_node(
    collections.defaultdict,
    lambda d: (list(d.values()), (d.default_factory, list(d.keys()))),
    lambda c, ctx: collections.defaultdict(ctx[0], zip(ctx[1], c)),
)


def _node_type(node):
    if _is_namedtuple(node):
        return "namedtuple"
    return type(node) if type(node) in SUPPORTED_NODES else None


class TreeSpec:
    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, list(children_specs)
        self.num_leaves = sum(c.num_leaves for c in self.children_specs)
        self.num_children = len(self.children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (
            isinstance(other, TreeSpec)
            and not other.is_leaf()
            and (self.type, self.context) == (other.type, other.context)
            and self.children_specs == other.children_specs
        )

    def __repr__(self):
        name = getattr(self.type, "__name__", self.type)
        return f"TreeSpec({name}, {self.context}, {self.children_specs})"

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


class LeafSpec(TreeSpec):
    def __init__(self):
        self.type, self.context, self.children_specs = None, None, []
        self.num_leaves, self.num_children = 1, 0

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self):
        return "*"


def _flatten(node, leaves, is_leaf):
    if is_leaf is not None and is_leaf(node):
        leaves.append(node)
        return LeafSpec()
    kind = _node_type(node)
    if kind is None:
        leaves.append(node)
        return LeafSpec()
    if kind == "namedtuple":
        children, context = list(node), type(node)
    else:
        children, context = SUPPORTED_NODES[kind][0](node)
    return TreeSpec(kind, context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_flatten(tree, is_leaf=None):
    leaves = []
    spec = _flatten(tree, leaves, is_leaf)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(
            f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
            f"pytree that holds {treespec.num_leaves} items ({treespec})."
        )
    it = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(it)
        children = [build(c) for c in spec.children_specs]
        if spec.type == "namedtuple":
            return spec.context(*children)
        return SUPPORTED_NODES[spec.type][1](children, spec.context)

    return build(treespec)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [tree_flatten(r, is_leaf)[0] for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    return tree_map(lambda x: func(x) if isinstance(x, type_or_types) else x, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))
