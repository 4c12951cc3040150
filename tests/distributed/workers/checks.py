"""What the worker scripts share (each runs as a script, so this directory is on its path)."""


def raises(exc, fn, *args, match=None, **kw):
    """fn(*args, **kw) raises `exc`, with `match` in its message when given."""
    try:
        fn(*args, **kw)
    except exc as e:
        assert match is None or match in str(e), (match, str(e))
        return
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")
