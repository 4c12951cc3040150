"""`python -m mindtorch`: what is installed, what loaded, and how much of the op table each backend covers.

    python -m mindtorch                   the report
    python -m mindtorch --json            the same, as JSON
    python -m mindtorch --missing [DEV]   also list the ops a backend lacks (every backend without DEV)
    python -m mindtorch --conformance     also show the last conformance report of each device

Exit status: 0 when at least one backend loaded and none failed to; 1 when no backend loaded or a
plugin failed to load; 2 for a usage error (an unknown option, or --missing naming a device that
no loaded backend provides).
"""

import argparse
import json
import os
import sys
from importlib import metadata

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def coverage(device_type):
    """How much of the op table a device covers: counts, and the names of the ops it lacks.
    A composite counts only when every op its decomposition reaches is covered (a composite reached
    counts when its own decomposition is)."""
    from mindtorch._backends.coverage import how_runs
    from mindtorch.ops.registry import OPS

    how = {name: how_runs(op, device_type) for name, op in OPS.items()}
    decomp = _decompositions()
    covered = {}

    def runs(name, seen=()):
        if name not in covered:
            h = how.get(name)
            if h == "composite":
                h = (
                    None
                    if name in seen
                    or any(how.get(p) is None or runs(p, seen + (name,)) is None for p in decomp.get(name, ()))
                    else h
                )
            covered[name] = h
        return covered[name]

    counts = {"kernel": 0, "composite": 0, "inplace": 0, "fallback": 0}
    missing = []
    for name in sorted(OPS):
        h = runs(name)
        if h is None:
            missing.append(name)
        else:
            counts["composite" if h == "view" else h] += 1
    total = len(OPS)
    covered = total - len(missing)
    return {
        "covered": covered,
        "total": total,
        "percent": round(100.0 * covered / total, 1) if total else 0.0,
        "kernels": counts["kernel"],
        "composite_or_view": counts["composite"],
        "inplace_via_copy": counts["inplace"],
        "host_fallback": counts["fallback"],
        "missing": missing,
    }


def _decompositions():
    try:
        from mindtorch.testing.conformance.decompose import decompositions

        return decompositions()
    except Exception:
        return {}


def _last_conformance_lines():
    """The summary lines of the last conformance report of each device."""
    from mindtorch.testing.conformance.report import last_report_dir, last_reports

    reports = last_reports()
    if not reports:
        return [
            "",
            f"No conformance report yet (in {last_report_dir()}): run "
            "`python -m mindtorch.testing.conformance --device DEVICE`.",
        ]
    lines = ["", "Last conformance reports:"]
    for dev, rep in sorted(reports.items()):
        lines.append(f"  {rep.get('summary', dev)}")
        bad = [n for n, r in rep.get("ops", {}).items() if r.get("status") == "failing"]
        if bad:
            lines.append(f"    failing: {', '.join(bad[:20])}" + (" ..." if len(bad) > 20 else ""))
    return lines


def _probe(fn):
    """(value, None) or (None, "ExcType: message"): a probe failing is itself worth reporting."""
    try:
        return fn(), None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"


def _backend_entry(b):
    entry = {"distribution": b.distribution, "version": b.version}
    errors = {}
    for key, fn in (("available", b.is_available), ("device_count", b.device_count)):
        entry[key], err = _probe(fn)
        if err:
            errors[key] = err
    entry["coverage"] = coverage(b.device_type)
    info_fn = getattr(b.module, "backend_info", None)
    if callable(info_fn):
        info, err = _probe(info_fn)
        if err:
            errors["backend_info"] = err
        else:
            entry["info"] = {str(k): v for k, v in dict(info or {}).items()}
    if errors:
        entry["errors"] = errors
    return entry


def gather():
    """Everything the report says, as a plain dict (the text report and --json both print this)."""
    import mindtorch
    from mindtorch.ops.registry import OPS

    loader = mindtorch._loader  # what the load found (the package imported the loader)
    from mindtorch._backends.registry import BACKENDS
    from mindtorch.plugins.hookspec import PLUGIN_API_VERSION

    load_error = getattr(mindtorch, "_LOAD_ERROR", None)
    return {
        "mindtorch": {
            "version": mindtorch.__version__,
            "distribution": "mindtorch-core",
            "distribution_version": _version("mindtorch-core"),
            "plugin_api_version": PLUGIN_API_VERSION,
        },
        "python": sys.version.split()[0],
        "ops": len(OPS),
        "environment": {
            loader.ENV_SELECT: os.environ.get(loader.ENV_SELECT) or "all",
            loader.ENV_STRICT: os.environ.get(loader.ENV_STRICT) or "0",
        },
        "backends": {dt: _backend_entry(BACKENDS[dt]) for dt in sorted(BACKENDS)},
        "not_selected": [{"name": n, "distribution": d} for n, d in getattr(loader, "deselected", [])],
        "unknown_selected": list(getattr(loader, "unknown_selected", [])),
        "skipped": [{"distribution": s[0], "reason": s[1]} for s in loader.skipped],
        "load_error": f"{type(load_error).__name__}: {load_error}" if load_error else None,
    }


def exit_status(report):
    if report["load_error"] or report["skipped"] or not report["backends"]:
        return EXIT_PROBLEM
    return EXIT_OK


def _text(report, show_missing=()):
    m = report["mindtorch"]
    env = report["environment"]
    lines = [
        f"mindtorch {m['version']} ({m['distribution']} {m['distribution_version']}), "
        f"plugin API version {m['plugin_api_version']}, Python {report['python']}",
        f"ops in the schema table: {report['ops']}",
        "  ".join(f"{k}={v}" for k, v in env.items()),
        "",
    ]
    if report["load_error"]:
        lines += [f"Loading backends failed: {report['load_error']}", ""]
    if not report["backends"]:
        lines.append(
            "No backend is loaded: MINDTORCH_BACKENDS selects none of the installed ones (see below)."
            if report["not_selected"]
            else "No backend is installed: install mindtorch-cpu for the 'cpu' device (`pip install mindtorch-cpu`)."
        )
    else:
        lines.append("Backends:")
        pad = " " * 11
        for dt, b in report["backends"].items():
            c = b["coverage"]
            errors = b.get("errors", {})
            lines.append(f"  {dt:<8} from {b['distribution']} {b['version']}")
            lines.append(
                f"{pad}available: {_shown(b['available'], errors.get('available'))}   "
                f"devices: {_shown(b['device_count'], errors.get('device_count'))}"
            )
            lines.append(
                f"{pad}op coverage: {c['covered']}/{c['total']} ({c['percent']:.0f}%): {c['kernels']} kernels, "
                f"{c['composite_or_view']} composite/view, {c['inplace_via_copy']} in-place via copy_, "
                f"{c['host_fallback']} fallback (host); "
                f"{len(c['missing'])} missing"
            )
            if "backend_info" in errors:
                lines.append(f"{pad}backend info: ? ({errors['backend_info']})")
            for k, v in b.get("info", {}).items():
                lines.append(f"{pad}{k}: {v}")
            if dt in show_missing and c["missing"]:
                lines.append(f"{pad}missing: " + ", ".join(c["missing"]))
    if report["not_selected"]:
        names = ",".join(sorted({*report["backends"], *(e["name"] for e in report["not_selected"])}))
        lines += [
            "",
            f"Installed but not selected by MINDTORCH_BACKENDS (set MINDTORCH_BACKENDS={names}, "
            "or unset it, to load them):",
        ]
        lines += [f"  {e['name']:<8} from {e['distribution']}" for e in report["not_selected"]]
    if report["unknown_selected"]:
        lines += ["", "MINDTORCH_BACKENDS names no installed backend: " + ", ".join(report["unknown_selected"])]
    if report["skipped"]:
        lines += ["", "Skipped at load:"]
        lines += [f"  {s['distribution']}: {s['reason']}" for s in report["skipped"]]
    return "\n".join(lines)


def _shown(value, error):
    return f"? ({error})" if error else value


def _parser():
    first, _, rest = __doc__.partition("\n\n")
    p = argparse.ArgumentParser(
        prog="python -m mindtorch",
        description=first,
        epilog=rest.split("\n\n", 1)[-1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--missing",
        metavar="DEVICE",
        nargs="?",
        const="",
        default=None,
        help="list the ops DEVICE's backend lacks (every backend's when no DEVICE is given)",
    )
    p.add_argument("--conformance", action="store_true", help="also show the last conformance report of each device")
    return p


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    report = gather()
    if args.missing:
        if args.missing not in report["backends"]:
            from mindtorch._backends.registry import no_backend_error

            parser.error(f"--missing {args.missing}: {no_backend_error(args.missing)}")
        show = (args.missing,)
    else:
        show = tuple(report["backends"]) if args.missing == "" else ()
    if args.json:
        print(json.dumps(report, indent=2, default=str))  # backend_info may hold paths
    else:
        print(_text(report, show))
        if args.conformance:
            print("\n".join(_last_conformance_lines()))
    return exit_status(report)


if __name__ == "__main__":
    sys.exit(main())
