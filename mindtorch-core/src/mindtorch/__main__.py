"""`python -m mindtorch`: what is installed, what loaded, and how much of the op table each backend covers.

    python -m mindtorch            summary
    python -m mindtorch --missing  also list the ops each backend lacks
    python -m mindtorch --conformance  also show the last conformance report of each device
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
    """(kernels, composite/view, in-place via copy_ fallback, host fallback, missing names) over the op
    table. A composite counts only when every kernel its decomposition reaches is covered."""
    from mindtorch.ops.registry import OPS
    covered = {name: how for name, op in OPS.items() if (how := _direct(op, device_type))}
    decomp = _decompositions()
    kern = comp = fallback = host = 0
    missing = []
    for name, op in sorted(OPS.items()):
        how = covered.get(name)
        if how is None and op.composite is not None and op.view_fn is None:
            parts = decomp.get(name)
            if parts is None or all(p in covered for p in parts):
                how = "composite"
        if how == "kernel":
            kern += 1
        elif how in ("composite", "view"):
            comp += 1
        elif how == "inplace":
            fallback += 1
        elif how == "host":
            host += 1
        else:
            missing.append(name)
    return kern, comp, fallback, host, missing


def _direct(op, device_type):
    """How a device runs an op without looking inside composites (None: it does not)."""
    from mindtorch.ops.registry import op_out_of_place
    k = op.kernels.get(device_type)
    if k is not None:
        return "host" if getattr(k, "host_fallback", False) else "kernel"
    if op.view_fn is not None:
        return "view"
    base = op_out_of_place.get(op.qualname)
    if op.inplace and op.composite is None and base is not None and device_type in base.kernels:
        return "inplace"
    return None


def _decompositions():
    try:
        from mindtorch.testing.conformance.decompose import decompositions
        return decompositions()
    except Exception:  # noqa: BLE001 - without the kit (or cpu) composites are counted as declared
        return {}


def _show_last_conformance():
    """The summary lines of the last conformance report of each device."""
    from mindtorch.testing.conformance.report import last_reports, last_report_dir
    reports = last_reports()
    print()
    if not reports:
        print(f"No conformance report yet (in {last_report_dir()}): run "
              "`python -m mindtorch.testing.conformance --device DEVICE`.")
        return
    print("Last conformance reports:")
    for dev, rep in sorted(reports.items()):
        print(f"  {rep.get('summary', dev)}")
        bad = [n for n, r in rep.get("ops", {}).items() if r.get("status") == "failing"]
        if bad:
            print(f"    failing: {', '.join(bad[:20])}" + (" ..." if len(bad) > 20 else ""))


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
            kern, comp, fb, host, missing = _coverage(dt)
            covered = kern + comp + fb + host
            pct = 100.0 * covered / total if total else 0.0
            print(f"  {dt:<8} from {b.distribution} {b.version}")
            print(f"           available: {_safe(b.is_available)}   devices: {_safe(b.device_count)}")
            print(f"           op coverage: {covered}/{total} ({pct:.0f}%): {kern} kernels, "
                  f"{comp} composite/view, {fb} in-place via copy_, {host} fallback (host); "
                  f"{len(missing)} missing")
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
    if "--conformance" in argv:
        _show_last_conformance()
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
