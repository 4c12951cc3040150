"""mindtorch.hub: the cache layout, downloads over http://127.0.0.1 and file:// (hash prefix checked),
load_state_dict_from_url served from the cache offline, a clear error when neither works, and hubconf.py
entrypoints from a local directory."""

import functools
import hashlib
import http.server
import os
import threading

import mindtorch as torch
import pytest
from mindtorch import hub

HUBCONF = '''
dependencies = ["os", "json"]


def tiny(scale=1.0):
    """A one-layer model."""
    import mindtorch

    m = mindtorch.nn.Linear(2, 1)
    with mindtorch.no_grad():
        m.weight.fill_(scale)
    return m


def _helper():
    return None


NOT_CALLABLE = 3
'''


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    return tmp_path / "home" / "hub"


@pytest.fixture
def served(tmp_path):
    """A directory served over http://127.0.0.1 (a thread of http.server): (dir, base url)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _checkpoint(path):
    sd = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2)}
    torch.save(sd, str(path))
    return sd, hashlib.sha256(path.read_bytes()).hexdigest()


def test_cache_layout_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert hub.get_dir() == os.path.expanduser("~/.cache/torch/hub")
    monkeypatch.setenv("TORCH_HOME", "~/th")
    assert hub.get_dir() == os.path.join(os.path.expanduser("~/th"), "hub")
    hub.set_dir("~/elsewhere")
    assert hub.get_dir() == os.path.expanduser("~/elsewhere")


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_download_with_hash_prefix(served, tmp_path, scheme):
    root, base = served
    _, digest = _checkpoint(root / "m.pt")
    url = f"{base}/m.pt" if scheme == "http" else (root / "m.pt").as_uri()
    dst = tmp_path / "got.pt"
    hub.download_url_to_file(url, str(dst), hash_prefix=digest[:8], progress=False)
    assert dst.read_bytes() == (root / "m.pt").read_bytes()
    bad = tmp_path / "bad.pt"
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.download_url_to_file(url, str(bad), hash_prefix="0" * 8 if digest[:8] != "0" * 8 else "1" * 8)
    assert not bad.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_load_state_dict_from_url_downloads_then_serves_the_cache(served, hub_dir):
    root, base = served
    sd, digest = _checkpoint(root / f"tiny-{'x'}.pt")
    name = f"tiny-{digest[:10]}.pt"
    (root / f"tiny-{'x'}.pt").rename(root / name)
    got = hub.load_state_dict_from_url(f"{base}/{name}", check_hash=True, progress=False)
    assert (hub_dir / "checkpoints" / name).is_file()
    assert sorted(got) == ["b", "w"] and torch.equal(got["w"], sd["w"])
    (root / name).unlink()  # the server no longer has it: the cache answers
    again = hub.load_state_dict_from_url(f"{base}/{name}", weights_only=True, map_location="cpu")
    assert torch.equal(again["b"], sd["b"])


def test_file_name_and_model_dir(served, tmp_path, hub_dir):
    root, base = served
    sd, _ = _checkpoint(root / "weights.bin")
    got = hub.load_state_dict_from_url(
        f"{base}/weights.bin", model_dir=str(tmp_path / "md"), file_name="renamed.pt", progress=False
    )
    assert (tmp_path / "md" / "renamed.pt").is_file() and torch.equal(got["w"], sd["w"])


def test_check_hash_mismatch_leaves_no_file(served, hub_dir):
    root, base = served
    _checkpoint(root / "m-00000000.pt")
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url(f"{base}/m-00000000.pt", check_hash=True, progress=False)
    assert not (hub_dir / "checkpoints" / "m-00000000.pt").exists()


def test_unreachable_url_names_the_url_and_the_cache_path(hub_dir):
    url = "http://127.0.0.1:9/nowhere/model.pt"  # the discard port: nothing listens
    with pytest.raises(RuntimeError) as info:
        hub.load_state_dict_from_url(url, progress=False)
    msg = str(info.value)
    assert url in msg and str(hub_dir / "checkpoints" / "model.pt") in msg


@pytest.fixture
def repo(tmp_path):
    d = tmp_path / "repo"
    d.mkdir()
    (d / "hubconf.py").write_text(HUBCONF)
    return d


def test_local_hubconf_entrypoints(repo):
    assert hub.list(str(repo), source="local") == ["tiny"]
    assert hub.help(str(repo), "tiny", source="local") == "A one-layer model."
    m = hub.load(str(repo), "tiny", source="local", scale=2.0)
    assert torch.equal(m.weight, torch.full((1, 2), 2.0))


def test_local_hubconf_errors(repo):
    with pytest.raises(RuntimeError, match="Cannot find callable NOT_CALLABLE in hubconf"):
        hub.load(str(repo), "NOT_CALLABLE", source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable absent in hubconf"):
        hub.load(str(repo), "absent", source="local")
    with pytest.raises(ValueError, match="model should be a string"):
        hub.load(str(repo), 3, source="local")
    with pytest.raises(ValueError, match='Unknown source: "svn"'):
        hub.load(str(repo), "tiny", source="svn")
    (repo / "hubconf.py").write_text(HUBCONF.replace('["os", "json"]', '["os", "no_such_pkg_zz"]'))
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_pkg_zz"):
        hub.load(str(repo), "tiny", source="local")


def test_github_source_offline_is_a_clear_error(hub_dir, monkeypatch):
    from urllib.error import URLError

    def offline(*a, **k):
        raise URLError("network is unreachable")

    monkeypatch.setattr(hub, "urlopen", offline)
    with pytest.raises(RuntimeError, match="no internet connection .*could not be found in the cache"):
        hub.load("someone/somerepo", "tiny")
    with pytest.raises(RuntimeError, match=r'Could not download "https://github.com/someone/somerepo/zipball/v1"'):
        hub.load("someone/somerepo:v1", "tiny", trust_repo=True)
    assert (hub_dir / "trusted_list").read_text() == "someone_somerepo\n"


def test_github_source_served_from_the_cache(hub_dir, monkeypatch, repo):
    import shutil

    hub_dir.mkdir(parents=True)
    shutil.copytree(repo, hub_dir / "someone_somerepo_main")
    monkeypatch.setattr(hub, "urlopen", lambda *a, **k: (_ for _ in ()).throw(AssertionError("no network use")))
    assert hub.list("someone/somerepo:main", trust_repo=True) == ["tiny"]
    assert (hub_dir / "trusted_list").read_text() == ""  # a repository in the cache is trusted already
