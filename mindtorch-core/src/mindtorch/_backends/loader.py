"""Backend discovery through the ``mindtorch.backends`` entry-point group.

MINDTORCH_BACKENDS selects what is autoloaded (like PyTorch's
TORCH_DEVICE_BACKEND_AUTOLOAD):
  unset or "all"   load every installed backend
  "0" / "none"     load nothing
  "cpu,meta"       load only the entry points with these names
MINDTORCH_STRICT_PLUGINS=1 turns a broken or incompatible plugin into an
error instead of a warning.
"""

import os
import sys
import threading
import time
import warnings
from importlib import metadata

import pluggy

from ..plugins import hookspec as spec
from ..plugins.protocols import Allocator, CopyRoutines, protocol_methods
from . import registry
from .registry import BACKENDS, KNOWN_DISTRIBUTIONS, DeviceBackend

GROUP = "mindtorch.backends"
ENV_SELECT = "MINDTORCH_BACKENDS"
ENV_STRICT = "MINDTORCH_STRICT_PLUGINS"


class PluginLoadError(RuntimeError):
    pass


# what the plugin contract (plugins/protocols.py) requires of the objects a plugin returns; checked at
# load so that a missing method names its distribution instead of failing later as an AttributeError
REQUIRED_METHODS = {"allocator": protocol_methods(Allocator), "copy routines": protocol_methods(CopyRoutines)}
SLOW_IMPORT_SECONDS = 1.0
# device type -> the distributions that claimed it after the first (reported by `python -m mindtorch`)
clashes: list = []


def _new_manager():
    pm = pluggy.PluginManager(spec.PROJECT)
    pm.add_hookspecs(spec)
    return pm


# one plugin manager per plugin, so that every answer is attributed to the
# distribution that gave it
managers: dict = {}
# what happened at load time, for `python -m mindtorch`
skipped: list = []  # (distribution, reason)
_skipped_devices: dict = {}  # entry-point name (the device type, by convention) -> "from 'dist': reason"
# entry points whose module was mid-import when mindtorch loaded (`import my_backend` before
# `import mindtorch`): loaded on first need, once that import has finished
deferred: list = []
_deferred_lock = threading.RLock()
_loading: list = []  # non-empty while a thread (the lock's owner) loads the deferred plugins
_loaded_late: list = []  # the device types loaded from `deferred`
deselected: list = []  # (entry-point name, distribution) installed but left out by MINDTORCH_BACKENDS
unknown_selected: list = []  # names in MINDTORCH_BACKENDS that no installed backend has


def _selected_names():
    raw = os.environ.get(ENV_SELECT, "all").strip().lower()
    if raw in ("", "all", "1", "true"):
        return None
    if raw in ("0", "none", "false", "off"):
        return set()
    return {n.strip() for n in raw.split(",") if n.strip()}


def _strict():
    return os.environ.get(ENV_STRICT, "").strip().lower() in ("1", "true", "yes")


def _fail(dist, reason, strict, name=None):
    if strict:
        raise PluginLoadError(f"mindtorch backend plugin from '{dist}' could not be loaded: {reason}")
    skipped.append((dist, reason))
    if name:
        _skipped_devices[name] = f"plugin from '{dist}': {reason}"
    warnings.warn(f"skipping mindtorch backend plugin from '{dist}': {reason}", RuntimeWarning, stacklevel=3)


def _first(results):
    return results[0] if isinstance(results, list) and results else (None if isinstance(results, list) else results)


def load_plugins(entry_points=None, strict=None):
    """Discover, check and register backends. Returns the names of device types loaded."""
    strict = _strict() if strict is None else strict
    if entry_points is None:
        selected = _selected_names()
        installed = list(metadata.entry_points(group=GROUP))
        if selected is not None:
            _note_selection(selected, installed)
        entry_points = [ep for ep in installed if selected is None or ep.name in selected]
    loaded = []
    for ep in sorted(entry_points, key=lambda e: e.name):
        if _initializing(ep):
            deferred.append((ep, strict))
            continue
        loaded += _load_one(ep, strict)
    install_host_fallbacks()
    return loaded


def _load_one(ep, strict):
    dist = _dist_name(ep)
    version = ep.dist.version if getattr(ep, "dist", None) is not None else "unknown"
    start = time.perf_counter()
    try:
        plugin = ep.load()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a broken plugin (even one calling sys.exit) must not break `import mindtorch`
        _fail(dist, f"import failed: {type(exc).__name__}: {exc}", strict, ep.name)
        return []
    finally:
        took = time.perf_counter() - start
        if took > SLOW_IMPORT_SECONDS:
            warnings.warn(
                f"mindtorch backend plugin from '{dist}' took {took:.1f}s to import; `import mindtorch` "
                f"waits for every installed backend (MINDTORCH_BACKENDS selects which)",
                RuntimeWarning,
                stacklevel=3,
            )
    return register_plugin(plugin, dist, version, strict=strict, name=ep.name)


def _initializing(ep):
    """Whether the entry point's module (or a parent package) is being imported right now."""
    parts = ep.value.split(":")[0].strip().split(".")
    for i in range(1, len(parts) + 1):
        mod = sys.modules.get(".".join(parts[:i]))
        if mod is not None and getattr(getattr(mod, "__spec__", None), "_initializing", False):
            return True
    return False


def finish_deferred():
    """Load the plugins deferred at import; returns the device types loaded.

    Several threads may need a deferred backend at once: one loads while the others wait on the lock,
    and the entries stay listed until they are registered, so no thread sees them neither pending nor
    loaded; a waiter gets what the loading thread loaded, so it retries as that thread does. The loading
    thread re-entering (a plugin's import touching mindtorch) returns at once."""
    if not deferred:
        return []
    with _deferred_lock:
        if _loading:
            return []
        if not deferred:  # loaded by another thread while this one waited
            return list(_loaded_late)
        _loading.append(True)
        still, loaded = [], []
        try:
            for ep, strict in deferred[:]:
                if _initializing(ep):
                    still.append((ep, strict))
                else:
                    loaded += _load_one(ep, strict)
        finally:
            deferred[:] = still
            _loading.clear()
        if loaded:
            install_host_fallbacks()
            _loaded_late.extend(loaded)
        return loaded


def skip_reason(device_type):
    """Why the plugin for `device_type` was skipped at load, or None."""
    reason = _skipped_devices.get(device_type)
    if reason is None:
        dist = KNOWN_DISTRIBUTIONS.get(device_type)
        for d, r in skipped:
            if d == dist:
                return f"plugin from '{d}': {r}"
    return reason


def why_missing(device_type):
    """The error for a device type no loaded backend provides, saying why and what to do."""
    reason = skip_reason(device_type)
    if reason is not None:
        return RuntimeError(f"the mindtorch backend for the device '{device_type}' was skipped at load: {reason}")
    dist = distribution_for_device(device_type)
    # installed but left out by MINDTORCH_BACKENDS: say so, not "install it"
    for name, d in deselected:
        if name == device_type or d == dist:
            sel = ",".join(sorted({*BACKENDS, name}))
            return RuntimeError(
                f"the mindtorch backend for the device '{device_type}' is installed ({d}) but not loaded: "
                f"{ENV_SELECT} does not select '{name}'; set {ENV_SELECT}={sel} (or unset it) "
                f"before importing mindtorch"
            )
    if device_type == "cuda" and dist is None:  # PyTorch's own message and class on a build without CUDA
        return AssertionError("Torch not compiled with CUDA enabled")
    hint = f"; install it with `pip install {dist}`" if dist else ""
    return RuntimeError(f"no installed mindtorch backend provides the device '{device_type}'{hint}")


def install_host_fallbacks():
    from .fallback import install

    for rec in BACKENDS.values():
        if rec.host_fallback:
            install(rec)


def _note_selection(selected, installed):
    """Remember what MINDTORCH_BACKENDS left out, and warn about names no installed backend has."""
    names = sorted({ep.name for ep in installed})
    deselected[:] = sorted({(ep.name, _dist_name(ep)) for ep in installed if ep.name not in selected})
    unknown_selected[:] = sorted(selected - set(names))
    if unknown_selected:
        warnings.warn(
            f"{ENV_SELECT}={os.environ.get(ENV_SELECT, '')} names {', '.join(map(repr, unknown_selected))}, "
            f"which no installed backend provides; installed backends: {', '.join(names) or 'none'}",
            RuntimeWarning,
            stacklevel=4,
        )


def _dist_name(ep):
    return ep.dist.name if getattr(ep, "dist", None) is not None else ep.value


def register_plugin(plugin, dist, version="unknown", strict=False, name=None):
    pm = _new_manager()
    try:
        pm.register(plugin, name=dist)
        hook = pm.hook
        api = _first(hook.mindtorch_plugin_api_version())
        if api != spec.PLUGIN_API_VERSION:
            _fail(
                dist,
                f"built for plugin API version {api}, this mindtorch speaks version {spec.PLUGIN_API_VERSION}",
                strict,
                name,
            )
            return []
        types = [t for answer in hook.mindtorch_device_types() for t in answer]
    except (PluginLoadError, KeyboardInterrupt):
        raise
    except BaseException as exc:
        _fail(dist, f"{type(exc).__name__}: {exc}", strict, name)
        return []
    for t in types:
        if t in BACKENDS:
            clashes.append((t, BACKENDS[t].distribution, dist))
            raise PluginLoadError(
                f"device type '{t}' is claimed by two backend plugins: '{BACKENDS[t].distribution}' "
                f"and '{dist}'; uninstall one of them"
            )
    try:
        records = [_resolve(hook, plugin, t, dist, version) for t in types]
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        _fail(dist, f"{type(exc).__name__}: {exc}", strict, name)
        return []
    managers[dist] = pm
    for rec in records:
        BACKENDS[rec.device_type] = rec
        KNOWN_DISTRIBUTIONS.setdefault(rec.device_type, dist)
        _install_kernels(rec)
    return types


def _resolve(hook, plugin, device_type, dist, version):
    rec = DeviceBackend(device_type, dist, version, plugin)
    rec.allocator = hook.mindtorch_allocator(device_type=device_type)
    rec.copy = hook.mindtorch_copy_routines(device_type=device_type)
    for table in hook.mindtorch_kernels(device_type=device_type):
        rec.kernels.update(table)
    if rec.allocator is None or rec.copy is None:
        raise PluginLoadError(f"backend for '{device_type}' gives no allocator or copy routines")
    for what, obj in (("allocator", rec.allocator), ("copy routines", rec.copy)):
        missing = [m for m in REQUIRED_METHODS[what] if not callable(getattr(obj, m, None))]
        if missing:
            raise PluginLoadError(
                f"the {what} for '{device_type}' ({type(obj).__name__}) lacks "
                f"{', '.join(missing)}, which the mindtorch hookspec requires"
            )
    # Probes and per-device hooks are kept as plain callables bound to this device type.
    rec._is_available = lambda: hook.mindtorch_is_available(device_type=device_type)
    rec._device_count = lambda: hook.mindtorch_device_count(device_type=device_type)
    rec._synchronize = lambda index: hook.mindtorch_synchronize(device_type=device_type, index=index)
    if pm_has(hook, "mindtorch_generator"):
        rec._generator = lambda index: hook.mindtorch_generator(device_type=device_type, index=index)
    if pm_has(hook, "mindtorch_timing_event"):
        rec.timing_event = lambda index: hook.mindtorch_timing_event(device_type=device_type, index=index)
    rec.module = hook.mindtorch_device_module(device_type=device_type)
    if pm_has(hook, "mindtorch_distributed_backends"):
        rec.distributed = hook.mindtorch_distributed_backends(device_type=device_type) or {}
    rec.host_fallback = hook.mindtorch_host_fallback(device_type=device_type) or False
    return rec


def pm_has(hook, name):
    return bool(getattr(hook, name).get_hookimpls())


def _install_kernels(rec):
    from ..ops.registry import OPS

    for name, fn in rec.kernels.items():
        op = OPS.get(name)
        if op is not None:
            op.kernels[rec.device_type] = fn


def distribution_for_device(device_type):
    return KNOWN_DISTRIBUTIONS.get(device_type)


registry.set_loader_hooks(finish_deferred, why_missing)
