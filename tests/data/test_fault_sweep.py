"""The generated fault sweep: every DataLoader and queue fault case (fault_cases.cases()) in its own
process tree with a hard timeout, its outcome compared with PyTorch's, and what it left behind
counted: files in /dev/shm, live processes, descriptors the main process gained. The totals are a
ratchet: fault_sweep_expected.json holds the committed counts; a run may not do worse, and a run
that does better must lower them."""

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import fault_cases
import isolated
from isolated import SUMMARY

EXPECTED = Path(__file__).with_name("fault_sweep_expected.json")
PARALLEL = 3  # cases at once: each is a few processes mostly waiting


def _run(case):
    r = isolated.run(case.script, "mindtorch", *case.args, timeout=60)
    return case, r


def _row(case, r):
    got = r.lines.get("outcome", f"exit {r.returncode}")
    fds = abs(int(r.lines.get("fds", 0)))
    return {
        "wrong_outcome": int(got != case.expect),
        "hangs": int(r.timed_out),
        "shm_files": r.shm_files,
        "processes": r.processes,
        "fds": fds,
    }, got


def test_fault_sweep_leaves_nothing_and_matches_the_ratchet():
    cases = fault_cases.cases()
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(_run, cases))
    totals = {"cases": len(cases), "wrong_outcome": 0, "hangs": 0, "shm_files": 0, "processes": 0, "fds": 0}
    where = "a private /dev/shm per case" if isolated.private_shm() else "new mindtorch* files in /dev/shm"
    SUMMARY.append(f"{'case':44s} {'expected':18s} {'outcome':18s} {'secs':>6s} shm procs fds  ({where})")
    bad = []
    for case, r in results:
        row, got = _row(case, r)
        for k, v in row.items():
            totals[k] += v
        SUMMARY.append(
            f"{case.name:44s} {case.expect:18s} {got:18s} {r.seconds:6.1f} {r.shm_files:3d} {r.processes:5d} {row['fds']:3d}"
        )
        if any(row.values()):
            bad.append(f"{case.name}: {row} outcome {got!r}\n{r.stderr[-1500:]}")
    SUMMARY.append("totals " + json.dumps(totals))
    expected = json.loads(EXPECTED.read_text())
    assert totals["cases"] >= expected["cases"], "the sweep lost cases"
    worse = {k: (totals[k], expected[k]) for k in expected if k != "cases" and totals[k] > expected[k]}
    assert not worse, f"worse than the ratchet {worse}:\n" + "\n".join(bad)
    better = {k: (totals[k], expected[k]) for k in expected if totals[k] != expected[k]}
    assert not better, f"better than the ratchet: lower {EXPECTED.name} to {totals}"
