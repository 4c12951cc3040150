"""torch.hub: the cache of downloaded weights and repositories (PyTorch's layout and environment variables),
loading a state dict from a URL (served from the cache when present), and hubconf.py entrypoints from a local
directory or a GitHub repository.

The cache is `$TORCH_HOME/hub` (TORCH_HOME defaults to `$XDG_CACHE_HOME/torch`, XDG_CACHE_HOME to ~/.cache),
or what set_dir chose; weights live in `<hub>/checkpoints/<file name>`, repositories in
`<hub>/<owner>_<name>_<ref>`. GitHub refs are not checked against GitHub's API for forks (`skip_validation`
is accepted and has nothing to skip).
"""

import contextlib
import errno
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import uuid
import zipfile
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")

_hub_dir = None


def _get_torch_home():
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, default))


def get_dir():
    """The hub cache directory: set_dir's choice, else `$TORCH_HOME/hub`."""
    if os.getenv("TORCH_HUB"):
        import warnings

        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Use `d` (~ expanded) as the hub cache directory from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# -- downloads


def _unreachable(url, dst, err):
    return RuntimeError(
        f'Could not download "{url}" to {dst}: {getattr(err, "reason", err)}. The network may be unreachable; '
        f"place the file at {dst} to use it without downloading."
    )


def _open_temp_beside(dst):
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        tmp = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            return open(tmp, "w+b")
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found")


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download `url` to the path `dst` through a temporary file beside it; with `hash_prefix`, the file's
    SHA-256 must start with it (RuntimeError otherwise, and `dst` is not written). file:// URLs work too."""
    f = _open_temp_beside(dst)
    try:
        try:
            response = urlopen(Request(url, headers={"User-Agent": "torch.hub"}))
        except HTTPError:
            raise
        except URLError as e:
            raise _unreachable(url, dst, e) from e
        sha256 = hashlib.sha256() if hash_prefix is not None else None
        with response:
            size = response.headers.get("Content-Length")
            done = 0
            while True:
                chunk = response.read(READ_DATA_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                done += len(chunk)
                if sha256 is not None:
                    sha256.update(chunk)
                if progress:
                    sys.stderr.write(f"\r{done} / {size or '?'} bytes")
        if progress:
            sys.stderr.write("\n")
        f.close()
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def load_state_dict_from_url(
    url,
    model_dir=None,
    map_location=None,
    progress=True,
    check_hash=False,
    file_name=None,
    weights_only=False,
):
    """The object saved at `url`, loaded with mindtorch.load from `<model_dir>/<file name>` (model_dir:
    `<hub>/checkpoints`), downloaded there first when absent. `check_hash`: the SHA-256 must start with the
    hex digits after the file name's last '-' (resnet18-5c106cde.pth)."""
    import mindtorch

    if os.getenv("TORCH_MODEL_ZOO"):
        import warnings

        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            m = HASH_REGEX.search(filename)
            hash_prefix = m.group(1) if m else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return mindtorch.load(cached_file, map_location=map_location, weights_only=weights_only)


# -- hubconf repositories


@contextlib.contextmanager
def _on_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, path)
    if spec is None or spec.loader is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    with _on_sys_path(repo_dir):
        spec.loader.exec_module(module)
    return module


def _attr(module, name):
    return getattr(module, name) if name in dir(module) else None


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    deps = _attr(module, VAR_DEPENDENCY)
    if deps is not None:
        missing = [pkg for pkg in deps if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    fn = _attr(module, model)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _parse_repo_info(github):
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    owner, name = repo_info.split("/")
    if ref is None:
        ref = _default_branch(owner, name)
    return owner, name, ref


def _default_branch(owner, name):
    """main when the repository has it, else master; offline, whichever the cache holds."""
    try:
        with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
            return "main"
    except HTTPError as e:
        if e.code == 404:
            return "master"
        raise
    except URLError as e:
        for ref in ("main", "master"):
            if os.path.exists(os.path.join(get_dir(), f"{owner}_{name}_{ref}")):
                return ref
        raise RuntimeError(
            f"It looks like there is no internet connection and the repo could not be found in the cache ({get_dir()})"
        ) from e


def _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    path = os.path.join(hub_dir, "trusted_list")
    Path(path).touch()
    with open(path) as f:
        trusted = tuple(line.strip() for line in f)
    downloaded = next(os.walk(hub_dir))[1]  # a repository already in the cache counts as trusted
    owner_name = f"{owner}_{name}"
    is_trusted = owner_name in trusted or owner_name_branch in downloaded or owner in _TRUSTED_REPO_OWNERS
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories and as such cannot "
            "be downloaded. Do you trust this repository and wish to add it to the trusted list of repositories "
            "(y/N)?"
        )
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # PyTorch raises this very class
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(path, "a") as f:
            f.write(owner_name + "\n")


def _safe_extract(zf, dest):
    """Extract `zf` under `dest`, refusing members that would land outside it."""
    root = os.path.realpath(dest)
    for member in zf.infolist():
        target = os.path.realpath(os.path.join(root, member.filename))
        if os.path.isabs(member.filename) or os.path.commonpath([root, target]) != root:
            raise ValueError(f"Archive entry escapes the extraction directory: {member.filename}")
    zf.extractall(dest)


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    normalized = ref.replace("/", "_")
    owner_name_branch = f"{owner}_{name}_{normalized}"
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    archive = os.path.join(hub_dir, normalized + ".zip")
    if os.path.exists(archive):
        os.remove(archive)
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {archive}\n')
    download_url_to_file(url, archive, progress=False)
    with zipfile.ZipFile(archive) as zf:
        extracted = os.path.join(hub_dir, zf.infolist()[0].filename)
        shutil.rmtree(extracted, ignore_errors=True)
        _safe_extract(zf, hub_dir)
    os.remove(archive)
    shutil.rmtree(repo_dir, ignore_errors=True)
    shutil.move(extracted, repo_dir)
    return repo_dir


def _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        return _get_cache_or_reload(repo_or_dir, force_reload, trust_repo, verbose=verbose)
    return repo_or_dir


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True, *, source="github"):
    """The callable entrypoints of a repository's hubconf.py (names starting with '_' are its helpers);
    `source="local"` reads a directory."""
    module = _import_hubconf(_repo_dir(github, source, force_reload, trust_repo, verbose))
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check", *, source="github"):
    """The docstring of entrypoint `model`."""
    module = _import_hubconf(_repo_dir(github, source, force_reload, trust_repo, True))
    return _entry(module, model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Entrypoint `model` of the repository's hubconf.py called with args and kwargs (its dependencies
    checked first); `source="local"` takes a directory."""
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose)
    module = _import_hubconf(repo_dir)
    with _on_sys_path(repo_dir):
        return _entry(module, model)(*args, **kwargs)
