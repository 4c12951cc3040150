"""The conformance report: per op conformant / fallback / failing / missing / n/a, the structural
checks, and one summary line; printable, and writable as JSON."""

import json
import os
from pathlib import Path

from .runner import CONFORMANT, FAILING, FALLBACK, MISSING, NA, UNSUPPORTED
from .samples import missing_samples

PASSED, FAILED = "passed", "failed"


def last_report_dir():
    """Where the last report of each device is kept (for `python -m mindtorch --conformance`)."""
    d = os.environ.get("MINDTORCH_CONFORMANCE_DIR")
    return Path(d) if d else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mindtorch"


class Report:
    def __init__(self, device, ops, checks, seconds, dataless=False):
        self.device, self.ops, self.checks, self.seconds, self.dataless = device, ops, checks, seconds, dataless

    def count(self, status):
        return sum(1 for r in self.ops.values() if r.status == status)

    @property
    def failing_checks(self):
        return sorted(n for n, (st, _) in self.checks.items() if st == FAILED)

    @property
    def ok(self):
        """Nothing fails (missing ops are reported, not failures: see `complete`)."""
        return not self.count(FAILING) and not self.failing_checks

    @property
    def complete(self):
        unsupported_checks = any(st == UNSUPPORTED for st, _ in self.checks.values())
        return self.ok and not self.count(MISSING) and not self.count(UNSUPPORTED) and not unsupported_checks

    def samples(self):
        return sum(r.samples for r in self.ops.values())

    def dtype_pairs(self):
        """(op, dtype) pairs checked beyond each op's own samples' dtypes."""
        return sum(len(r.dtypes) for r in self.ops.values())

    def lacked_pairs(self):
        """(op, dtype) pairs the device declares it lacks (an op listed conformant runs in its other dtypes)."""
        return sum(len(r.lacks) for r in self.ops.values())

    def lacks_by_dtype(self):
        """{dtype name: how many ops lack it}, most lacked first."""
        counts = {}
        for r in self.ops.values():
            for d in r.lacks:
                counts[d] = counts.get(d, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def summary(self):
        n = len(self.ops)
        passed = sum(1 for st, _ in self.checks.values() if st == PASSED)
        na_checks = sum(1 for st, _ in self.checks.values() if st == NA)
        unsupported_checks = sum(1 for st, _ in self.checks.values() if st == UNSUPPORTED)
        with_samples = n - len([q for q in missing_samples() if q in self.ops])
        ok = self.count(CONFORMANT) + self.count(FALLBACK)
        unsupported = self.count(UNSUPPORTED)
        return (
            f"conformance {self.device}: {ok}/{n} ops conformant ({self.count(FALLBACK)} via host fallback), "
            f"{self.count(FAILING)} failing, {self.count(MISSING)} missing, "
            + (f"{unsupported} unsupported by the device, " if unsupported else "")
            + f"{self.count(NA)} n/a; checks {passed}/{len(self.checks)} passed ({na_checks} n/a"
            + (f", {unsupported_checks} unsupported" if unsupported_checks else "")
            + f"); samples for {with_samples}/{n} ops, {self.samples()} run, {self.dtype_pairs()} in other dtypes"
            + (f" ({self.lacked_pairs()} more lacked by the device)" if self.lacked_pairs() else "")
            + f"; {self.seconds:.1f}s"
        )

    def text(self, verbose=False):
        lines = [
            f"mindtorch conformance report for device '{self.device}'"
            + (" (data-less: shapes, dtypes and errors only)" if self.dataless else "")
        ]
        for status in (FAILING, MISSING, UNSUPPORTED, FALLBACK, NA) + ((CONFORMANT,) if verbose else ()):
            rows = [r for r in self.ops.values() if r.status == status]
            if rows:
                lines.append(f"\n{status} ({len(rows)}):")
                for r in sorted(rows, key=lambda r: r.name):
                    lines.append(f"  {r.name:<34} {r.coverage:<10} {r.detail}".rstrip())
        if self.lacked_pairs():
            lacks = ", ".join(f"{d} in {k}" for d, k in self.lacks_by_dtype().items())
            lines.append(f"\ndtypes the device lacks, in ops conformant in the others: {lacks}")
        if self.checks:
            lines.append("\nchecks:")
            for name, (st, detail) in self.checks.items():
                lines.append(f"  {name:<22} {st:<7} {detail}".rstrip())
        lines.append("")
        lines.append(self.summary())
        return "\n".join(lines)

    def as_dict(self):
        return {
            "device": str(self.device),
            "summary": self.summary(),
            "ok": self.ok,
            "seconds": self.seconds,
            "dataless": self.dataless,
            "ops": {n: r.as_dict() for n, r in sorted(self.ops.items())},
            "checks": {n: {"status": st, "detail": d} for n, (st, d) in self.checks.items()},
        }

    def write_json(self, path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_dict(), indent=1))
        return path

    def save_last(self):
        """Keep this report as the device type's last one (best effort: a read-only home is fine)."""
        try:
            return self.write_json(last_report_dir() / f"conformance-{self.device.type}.json")
        except OSError:
            return None


def last_reports():
    """{device type: report dict} of the last saved reports."""
    out = {}
    d = last_report_dir()
    if d.is_dir():
        for p in sorted(d.glob("conformance-*.json")):
            try:
                out[p.stem[len("conformance-") :]] = json.loads(p.read_text())
            except (OSError, ValueError):
                continue
    return out
