"""python -m mindtorch.testing.conformance --device DEVICE [--json PATH] [--ops a,b] [--unsupported REGEX]
[--strict] [--verbose] [--no-checks | --skip-checks a,b] [--no-dtypes]"""

import argparse
import sys


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m mindtorch.testing.conformance",
        description="Run the mindtorch backend conformance suite against a device.",
    )
    p.add_argument("--device", required=True, help="device to certify, e.g. cpu, meta, npu, mydev")
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    p.add_argument("--ops", help="comma-separated op names (default: the whole table)")
    p.add_argument("--no-checks", action="store_true", help="per-op samples only, no structural checks")
    p.add_argument("--skip-checks", metavar="NAMES", help="comma-separated structural checks not to run")
    p.add_argument(
        "--no-dtypes", action="store_true", help="each op on its own samples only, not in every dtype the cpu accepts"
    )
    p.add_argument("--verbose", action="store_true", help="list conformant ops too")
    p.add_argument("--strict", action="store_true", help="exit 1 when an op is missing or unsupported, too")
    p.add_argument(
        "--unsupported",
        metavar="REGEX",
        help="the device's own errors for what it declares it lacks (e.g. an operator or dtype its chip's "
        "documentation omits): an op or check failing with an error whose 'Type: message' matches is listed as "
        "unsupported, not failing",
    )
    args = p.parse_args(argv)
    from . import run

    ops = _op_names(p, args.ops) if args.ops else None
    checks = not args.no_checks
    if checks and args.skip_checks:
        from .checks import CHECKS

        skipped = {c.strip() for c in args.skip_checks.split(",")}
        unknown = sorted(skipped - set(CHECKS))
        if unknown:
            p.error(f"--skip-checks: no check named {', '.join(unknown)} (the checks: {', '.join(CHECKS)})")
        checks = [c for c in CHECKS if c not in skipped]
    report = run(args.device, ops=ops, checks=checks, unsupported=args.unsupported, dtypes=not args.no_dtypes)
    print(report.text(verbose=args.verbose))
    if args.json:
        report.write_json(args.json)
    if ops is None:
        report.save_last()
    return 0 if (report.complete if args.strict else report.ok) else 1


def _op_names(parser, text):
    """The names of `--ops`, each an op of the table; an unknown one is a usage error naming close ones."""
    import difflib

    from mindtorch.ops.registry import OPS

    names = [o.strip() for o in text.split(",") if o.strip()]
    for name in names:
        if name not in OPS:
            close = difflib.get_close_matches(name, OPS, n=5, cutoff=0.6)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            parser.error(f"--ops: '{name}' is not an op of the table{hint}")
    return names


if __name__ == "__main__":
    sys.exit(main())
