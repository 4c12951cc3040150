"""torch.torch_version: TorchVersion, the `torch.__version__` string that also compares as a version.

Programs check `torch.__version__ >= "2.0"` or `>= (2, 0)`: the comparison operators parse both sides
as PEP 440 versions (a tuple or list joined with dots), falling back to plain string comparison when
the other side is no version; `!=` and hashing stay those of str.
"""

import re
from collections.abc import Iterable

__all__ = ["TorchVersion", "InvalidVersion"]

_PATTERN = re.compile(
    r"""v?
    (?:(?P<epoch>\d+)!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>alpha|beta|preview|pre|a|b|c|rc)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc", "preview": "rc"}
_LOW, _HIGH = (-1, ""), (1, "")  # below / above every (phase, number) pair


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


def version_key(text):
    """A tuple ordering versions as PEP 440 does (the release without trailing zeros, then pre-, post-,
    dev- and local parts)."""
    m = _PATTERN.fullmatch(text.strip())
    if m is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    pre = (0, _PRE[m["pre_l"].lower()], int(m["pre_n"] or 0)) if m["pre_l"] else None
    post_n = m["post_n1"] or m["post_n2"]
    post = (0, int(post_n or 0)) if (m["post_n1"] or m["post_l"]) else _LOW
    dev = (0, int(m["dev_n"] or 0)) if m["dev_l"] else _HIGH
    if pre is None:  # a bare dev release sorts before the pre-releases of its release
        pre = _LOW if m["dev_l"] and post is _LOW else _HIGH
    local = _LOW
    if m["local"]:
        # numeric segments sort after alphanumeric ones
        local = (
            0,
            tuple((1, int(s), "") if s.isdigit() else (0, 0, s.lower()) for s in re.split(r"[-_.]", m["local"])),
        )
    return (int(m["epoch"] or 0), tuple(release), pre, post, dev, local)


def _as_version_text(other):
    if isinstance(other, str):
        return other
    if isinstance(other, Iterable):
        return ".".join(str(part) for part in other)
    raise InvalidVersion(f"Invalid version: {other!r}")


class TorchVersion(str):
    """A version string comparing with version strings, tuples and lists as versions."""

    __slots__ = ()
    __hash__ = str.__hash__

    def _compare(self, other, method):
        try:
            mine, theirs = version_key(self), version_key(_as_version_text(other))
        except InvalidVersion:
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")
