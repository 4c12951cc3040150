"""A plugin imported before mindtorch is loaded on first need; several threads needing it at once
must all find it (none may see it neither pending nor loaded) and get the same backend."""

import pytest

_RACE = """
import threading
import mindtorch_toy  # imports mindtorch while its own import is under way: the plugin is deferred
import mindtorch
from mindtorch._backends import loader

THREADS = 8
pending = len(loader.deferred)
barrier = threading.Barrier(THREADS)
errors, devices = [], []

def work():
    barrier.wait()
    try:
        {use}
    except Exception as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work) for _ in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
emit({{"pending": pending, "errors": errors[:2], "devices": sorted(set(devices))}})
"""

_USES = {
    "dispatch": 'devices.append(str(mindtorch.ones(2).to("toy").device.type))',
    "installed": 'devices.append("toy" if "toy" in mindtorch.backends_installed() else "missing")',
}


@pytest.mark.parametrize("attempt", range(3))
@pytest.mark.parametrize("use", sorted(_USES))
def test_deferred_plugin_first_used_from_many_threads(run_python, use, attempt):
    r = run_python(_RACE.format(use=_USES[use]), plugins=("toy",))
    assert r.returncode == 0, r
    assert r.result["pending"] == 1, "the plugin was not deferred: the race was not exercised"
    assert r.result["errors"] == [], r.result
    assert r.result["devices"] == ["toy"]
