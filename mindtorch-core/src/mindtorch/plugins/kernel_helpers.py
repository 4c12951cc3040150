"""Helpers for the common shapes of a backend's kernel table."""


def kernel_table():
    """A kernel dict and the decorator that fills it: `@kernel("add", "add.Tensor")`."""
    table = {}

    def kernel(*names):
        def deco(fn):
            for name in names:
                table[name] = fn
            return fn

        return deco

    return table, kernel


def clamp_family(clamp, clamp_):
    """Every op of the clamp family from one kernel pair, `clamp(m, self, min, max)` and its in-place
    form: clamp/clip (Scalar and Tensor bounds) and clamp_min/clamp_max, out of place and in place."""
    table = {}
    for name in ("clamp", "clip"):
        table[name] = table[name + ".Tensor"] = clamp
        table[name + "_"] = table[name + "_.Tensor"] = clamp_
    for suffix, fn in (("", clamp), ("_", clamp_)):
        table["clamp_min" + suffix] = table["clamp_min" + suffix + ".Tensor"] = lambda m, a, lo, fn=fn: fn(
            m, a, lo, None
        )
        table["clamp_max" + suffix] = table["clamp_max" + suffix + ".Tensor"] = lambda m, a, hi, fn=fn: fn(
            m, a, None, hi
        )
    return table
