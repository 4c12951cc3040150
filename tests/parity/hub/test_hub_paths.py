"""mindtorch.hub's cache paths and hubconf behaviour against PyTorch's under the same environment."""

import itertools

from helpers import torch_or_skip

torch = torch_or_skip()

import inspect  # noqa: E402

import mindtorch.hub as mhub  # noqa: E402
import pytest  # noqa: E402
import torch.hub as thub  # noqa: E402

ENV = list(itertools.product((None, "/t/home", "~/th"), (None, "/x/cache", "~/xdg")))


@pytest.mark.parametrize("torch_home,xdg", ENV)
def test_get_dir_matches(monkeypatch, torch_home, xdg):
    for name, value in (("TORCH_HOME", torch_home), ("XDG_CACHE_HOME", xdg)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    monkeypatch.setattr(thub, "_hub_dir", None)
    monkeypatch.setattr(mhub, "_hub_dir", None)
    assert mhub.get_dir() == thub.get_dir()
    assert mhub._get_torch_home() == thub._get_torch_home()
    thub.set_dir("~/chosen")
    mhub.set_dir("~/chosen")
    assert mhub.get_dir() == thub.get_dir()


def test_constants_and_signatures_match():
    for name in ("ENV_TORCH_HOME", "ENV_XDG_CACHE_HOME", "DEFAULT_CACHE_DIR", "VAR_DEPENDENCY", "MODULE_HUBCONF"):
        assert getattr(mhub, name) == getattr(thub, name)
    assert mhub.HASH_REGEX.pattern == thub.HASH_REGEX.pattern
    for name in ("load_state_dict_from_url", "download_url_to_file", "load"):
        assert list(inspect.signature(getattr(mhub, name)).parameters) == list(
            inspect.signature(getattr(thub, name)).parameters
        )


def test_local_hubconf_matches(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        'dependencies = ["os"]\n\ndef alpha(x=1):\n    """Alpha."""\n    return x * 2\n\n'
        "def _private():\n    pass\n\nVALUE = 3\n"
    )
    assert mhub.load(str(tmp_path), "alpha", source="local", x=4) == thub.load(
        str(tmp_path), "alpha", source="local", x=4
    )
    for bad in ("VALUE", "missing"):
        with pytest.raises(RuntimeError) as theirs:
            thub.load(str(tmp_path), bad, source="local")
        with pytest.raises(RuntimeError) as ours:
            mhub.load(str(tmp_path), bad, source="local")
        assert str(ours.value) == str(theirs.value)
    assert mhub.list(str(tmp_path), source="local") == ["alpha"]
