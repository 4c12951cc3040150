"""`python -m mindtorch`: what is installed, what loaded, and how much of the op table each backend covers.

    python -m mindtorch            summary
    python -m mindtorch --missing  also list the ops each backend lacks
"""
import sys
import warnings
from importlib import metadata


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _coverage(device_type):
    """(kernels, composite/view, in-place via copy_ fallback, missing names) over the op table."""
    from mindtorch.ops.registry import OPS, op_out_of_place
    kern, comp, fallback, missing = 0, 0, 0, []
    for name, op in sorted(OPS.items()):
        if device_type in op.kernels:
            kern += 1
        elif op.composite is not None or op.view_fn is not None:
            comp += 1
        elif op.inplace and device_type in getattr(op_out_of_place.get(name), "kernels", {}):
            fallback += 1
        else:
            missing.append(name)
    return kern, comp, fallback, missing


def _safe(fn, default="?"):
    try:
        return fn()
    except Exception as exc:  # a probe failing is itself worth reporting
        return f"{default} ({type(exc).__name__}: {exc})"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    show_missing = "--missing" in argv
    # import warnings are reported below as "skipped" instead
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindtorch
    from mindtorch.ops.registry import OPS
    from mindtorch.plugins import loader
    from mindtorch.plugins.hookspec import PLUGIN_API_VERSION
    from mindtorch.plugins.registry import BACKENDS

    print(f"mindtorch {mindtorch.__version__} (mindtorch-core {_version('mindtorch-core')}), "
          f"plugin API version {PLUGIN_API_VERSION}, Python {sys.version.split()[0]}")
    print(f"ops in the schema table: {len(OPS)}")
    print(f"{loader.ENV_SELECT}={_env(loader.ENV_SELECT, 'all')}  {loader.ENV_STRICT}={_env(loader.ENV_STRICT, '0')}")
    print()
    if not BACKENDS:
        print("No backend is installed (or none was selected): install mindtorch-cpu for the 'cpu' device,")
        print("e.g. `pip install mindtorch-cpu`.")
    else:
        print("Backends:")
        total = len(OPS)
        for dt in sorted(BACKENDS):
            b = BACKENDS[dt]
            kern, comp, fb, missing = _coverage(dt)
            covered = kern + comp + fb
            pct = 100.0 * covered / total if total else 0.0
            print(f"  {dt:<8} from {b.distribution} {b.version}")
            print(f"           available: {_safe(b.is_available)}   devices: {_safe(b.device_count)}")
            print(f"           op coverage: {covered}/{total} ({pct:.0f}%): {kern} kernels, "
                  f"{comp} composite/view, {fb} in-place via copy_; {len(missing)} missing")
            if show_missing and missing:
                print("           missing: " + ", ".join(missing))
    found = _unselected(BACKENDS, loader)
    if found:
        print()
        print(f"Installed but not loaded ({loader.ENV_SELECT}):")
        for name, dist in found:
            print(f"  {name:<8} from {dist}")
    if loader.skipped:
        print()
        print("Skipped at load:")
        for dist, reason in loader.skipped:
            print(f"  {dist}: {reason}")
    return 0


def _env(name, default):
    import os
    return os.environ.get(name) or default


def _unselected(backends, loader):
    loaded = {b.distribution for b in backends.values()}
    skipped = {d for d, _ in loader.skipped}
    out = []
    for ep in metadata.entry_points(group=loader.GROUP):
        dist = ep.dist.name if getattr(ep, "dist", None) is not None else ep.value
        if dist not in loaded and dist not in skipped:
            out.append((ep.name, dist))
    return sorted(set(out))


if __name__ == "__main__":
    sys.exit(main())
