"""python -m mindtorch.plugins new NAME [--dir DIR] [--requires LIB ...]: write a backend distribution for the
device NAME."""

import argparse
import sys


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m mindtorch.plugins", description="mindtorch backend authoring tools")
    sub = p.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("new", help="write a ready backend distribution (pyproject, Backend, conformance test)")
    n.add_argument("name", help="the device type, e.g. mydev")
    n.add_argument("--dir", default=".", help="where to create mindtorch-NAME/ (default: here)")
    n.add_argument(
        "--requires",
        action="append",
        default=[],
        metavar="REQUIREMENT",
        help="a library the device needs (e.g. 'jax>=0.4'), added to the generated dependencies; repeatable",
    )
    args = p.parse_args(argv)
    from .scaffold import new_backend

    try:
        root = new_backend(args.name, args.dir, args.requires)
    except (ValueError, FileExistsError) as exc:
        p.error(str(exc))
    print(f"wrote {root}: pip install -e {root}[test] && python -m mindtorch.testing.conformance --device {args.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
