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
    from mindtorch.plugins.registry import how_runs
    how = {name: how_runs(op, device_type) for name, op in OPS.items()}
    decomp = _decompositions()
    counts = {"kernel": 0, "composite": 0, "inplace": 0, "fallback": 0}
    missing = []
    for name in sorted(OPS):
        h = how[name]
        if h == "composite" and any(how.get(p) in (None, "composite") for p in decomp.get(name, ())):
            h = None
        if h is None:
            missing.append(name)
        else:
            counts["composite" if h == "view" else h] += 1
    return counts["kernel"], counts["composite"], counts["inplace"], counts["fallback"], missing


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
