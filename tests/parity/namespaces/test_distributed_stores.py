"""torch.distributed's stores, rendezvous and small API against PyTorch: the same operations on
mindtorch's and PyTorch's HashStore, TCPStore, FileStore and PrefixStore give the same results and
raise the same exception classes; debug levels, availability, *Options defaults and the rendezvous
errors agree."""

import os
import warnings
from datetime import timedelta

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

SHORT = timedelta(seconds=0.3)


def _script(d, s, strict=True):
    """A sequence of store operations, each result (or exception classes) recorded. Not strict: that an
    operation raised a RuntimeError, whichever (PyTorch's FileStore raises plain RuntimeErrors where
    mindtorch's raises DistStoreError, a RuntimeError too), and no queue operations (its FileStore has
    none, and says so in has_extended_api)."""
    steps = [
        lambda: s.set("a", "x"),
        lambda: s.get("a"),
        lambda: s.set("b", b"\x00\xffbytes"),
        lambda: s.get("b"),
        lambda: s.add("n", 2),
        lambda: s.add("n", -5),
        lambda: s.get("n"),
        lambda: s.compare_set("a", "x", "y"),
        lambda: s.compare_set("a", "nope", "z"),
        lambda: s.compare_set("new", "", "fresh"),
        lambda: s.compare_set("absent", "q", "w"),
        lambda: s.check(["a", "b"]),
        lambda: s.check(["a", "absent"]),
        lambda: s.num_keys(),
        lambda: s.delete_key("a"),
        lambda: s.delete_key("a"),
        lambda: s.num_keys(),
        lambda: s.append("ap", "12"),
        lambda: s.append("ap", "34"),
        lambda: s.get("ap"),
        lambda: s.multi_set(["m1", "m2"], ["v1", "v2"]),
        lambda: s.multi_get(["m1", "m2"]),
        lambda: s.wait(["m1"]),
        lambda: s.wait(["never"], SHORT),
        lambda: s.get("never"),
        lambda: s.timeout,
    ]
    if strict:
        steps += [
            lambda: s.has_extended_api(),
            lambda: s.queue_push("q", "first"),
            lambda: s.queue_len("q"),
            lambda: s.queue_pop("q"),
            lambda: s.queue_pop("q", block=False),
        ]
    out = []
    for step in steps:
        try:
            out.append(step())
        except RuntimeError as e:
            kinds = [c.__name__ for c in type(e).__mro__ if c.__name__.startswith(("Dist", "QueueEmpty"))]
            out.append(("raised", kinds if strict else "RuntimeError"))
    return out


def _stores(lib, tmp_path, tag):
    d = lib.distributed
    return {
        "hash": lambda: d.HashStore(),
        "tcp": lambda: d.TCPStore("127.0.0.1", 0, 1, True, timeout=SHORT),
        "file": lambda: d.FileStore(str(tmp_path / f"{tag}-file"), 1),
        "prefix": lambda: d.PrefixStore("pre", d.HashStore()),
    }


@pytest.mark.parametrize("kind", ["hash", "tcp", "file", "prefix"])
def test_store_operations_as_pytorch(kind, tmp_path):
    def run(lib, tag):
        s = _stores(lib, tmp_path, tag)[kind]()
        if kind != "tcp":
            s.set_timeout(SHORT)
        return _script(lib.distributed, s, strict=kind != "file")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(mt, "mt") == run(torch, "torch")


def test_prefix_store_writes_under_its_prefix():
    for lib in (mt, torch):
        base = lib.distributed.HashStore()
        p = lib.distributed.PrefixStore("job", base)
        p.set("k", "v")
        assert base.get("job/k") == b"v" and p.underlying_store is base and p.check(["k"])


def test_tcp_store_client_timeout_is_a_network_error():
    outcomes = []
    for lib in (mt, torch):
        with pytest.raises(lib.distributed.DistNetworkError) as e:
            lib.distributed.TCPStore("127.0.0.1", 1, 1, False, timeout=timedelta(seconds=0.3))
        outcomes.append([c.__name__ for c in type(e.value).__mro__][:4])
        assert "timed out after" in str(e.value)
    assert outcomes[0] == outcomes[1]


def test_error_classes_as_pytorch():
    for name in ("DistError", "DistBackendError", "DistStoreError", "DistNetworkError", "QueueEmptyError"):
        mine = [c.__name__ for c in getattr(mt.distributed, name).__mro__]
        theirs = [c.__name__ for c in getattr(torch.distributed, name).__mro__]
        assert mine == theirs, name


def test_debug_levels_as_pytorch(monkeypatch):
    for lib in (mt, torch):
        d = lib.distributed
        levels = [d.DebugLevel.OFF, d.DebugLevel.INFO, d.DebugLevel.DETAIL]
        assert [(m.name, int(m)) for m in levels] == [("OFF", 0), ("INFO", 1), ("DETAIL", 2)]
        monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "detail")
        d.set_debug_level_from_env()
        assert d.get_debug_level() == d.DebugLevel.DETAIL
        monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "bogus")
        with pytest.raises(ValueError, match="must be OFF, INFO, or DETAIL"):
            d.set_debug_level_from_env()
        d.set_debug_level(d.DebugLevel.OFF)
        assert d.get_debug_level() == d.DebugLevel.OFF and str(d.DebugLevel.INFO) == "DebugLevel.INFO"


OPTIONS = [
    "AllreduceOptions",
    "AllreduceCoalescedOptions",
    "ReduceOptions",
    "BroadcastOptions",
    "GatherOptions",
    "ScatterOptions",
    "ReduceScatterOptions",
    "AllToAllOptions",
    "BarrierOptions",
]


@pytest.mark.parametrize("name", OPTIONS)
def test_options_defaults_as_pytorch(name):
    def fields(lib):
        o = getattr(lib.distributed, name)()
        return {
            k: getattr(o, k)
            for k in dir(o)
            if not k.startswith("_") and k != "reduceOp" and not callable(getattr(o, k))
        }

    assert fields(mt) == fields(torch)


def test_predicates_as_pytorch(monkeypatch):
    for var in ("TORCHELASTIC_RUN_ID", "LOCAL_RANK"):
        monkeypatch.delenv(var, raising=False)
    for lib in (mt, torch):
        d = lib.distributed
        assert d.is_gloo_available() and not d.is_nccl_available() and not d.is_ucc_available()
        assert d.is_backend_available("gloo") and not d.is_backend_available("nosuch")
        assert d.get_default_backend_for_device("cpu") == "gloo"
        assert not d.is_torchelastic_launched()
        with pytest.raises(RuntimeError, match="LOCAL_RANK is not in the environment"):
            d.get_node_local_rank()
        assert d.get_node_local_rank(fallback_rank=3) == 3
        assert [d.supports_complex(op) for op in (d.ReduceOp.SUM, d.ReduceOp.MAX, d.ReduceOp.MIN)] == [
            True,
            False,
            False,
        ]
        assert d.default_pg_timeout == timedelta(minutes=30)
        assert d.group.WORLD is None and d.get_pg_count() == 0
        with pytest.warns(FutureWarning, match="reduce_op` is deprecated"):
            assert d.reduce_op.SUM == d.ReduceOp.SUM
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "job")
    monkeypatch.setenv("LOCAL_RANK", "2")
    assert mt.distributed.is_torchelastic_launched() and mt.distributed.get_node_local_rank() == 2


RENDEZVOUS_CASES = {
    "tcp without port": ("tcp://127.0.0.1", {}),
    "tcp without rank": ("tcp://127.0.0.1:1234", {"world_size": 1}),
    "tcp without world size": ("tcp://127.0.0.1:1234?rank=0", {}),
    "file without rank": ("file:///tmp/x", {"world_size": 1}),
    "unknown scheme": ("nosuch://x", {}),
    "not a string": (5, {}),
    "rank twice": ("tcp://127.0.0.1:1?rank=0", {"rank": 0}),
}


@pytest.mark.parametrize("case", sorted(RENDEZVOUS_CASES))
def test_rendezvous_errors_as_pytorch(case, monkeypatch):
    url, kw = RENDEZVOUS_CASES[case]

    def outcome(lib):
        try:
            next(lib.distributed.rendezvous(url, **kw))
        except Exception as e:
            return type(e).__name__, str(e)
        return None

    assert outcome(mt) == outcome(torch)


def test_env_rendezvous_errors_as_pytorch(monkeypatch):
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)

    def outcome(lib):
        try:
            next(lib.distributed.rendezvous("env://"))
        except Exception as e:
            return type(e).__name__, str(e)

    assert outcome(mt) == outcome(torch)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert outcome(mt) == outcome(torch)


def test_register_rendezvous_handler_as_pytorch():
    for lib in (mt, torch):
        d = lib.distributed

        def handler(url, **kwargs):
            yield d.HashStore(), 0, 1

        scheme = f"mine{os.getpid()}"
        d.register_rendezvous_handler(scheme, handler)
        store, rank, size = next(d.rendezvous(f"{scheme}://anything"))
        assert isinstance(store, d.HashStore) and (rank, size) == (0, 1)
        with pytest.raises(RuntimeError, match="already registered"):
            d.register_rendezvous_handler(scheme, handler)


@pytest.mark.filterwarnings("ignore:`torch.distributed.all_reduce_coalesced` will be deprecated")
def test_a_world_of_one_as_pytorch():
    """init_process_group("gloo") on a store, one process: the object and list collectives give what
    PyTorch's give."""

    def run(lib):
        d = lib.distributed
        d.init_process_group("gloo", store=d.HashStore(), rank=0, world_size=1)
        try:
            objs = [None]
            d.all_gather_object(objs, {"a": [1, 2]})
            lst = ["x", 3]
            d.broadcast_object_list(lst, src=0)
            got = [None]
            d.gather_object("g", got, dst=0)
            sc = [None]
            d.scatter_object_list(sc, ["s"], src=0)
            outs = [lib.zeros(3)]
            d.all_to_all(outs, [lib.arange(3.0)])
            rs = lib.zeros(2)
            d.reduce_scatter(rs, [lib.ones(2) * 4])
            co = [lib.ones(2), lib.arange(3.0)]
            d.all_reduce_coalesced(co)
            sub, subs = d.new_subgroups(group_size=1)
            d.monitored_barrier()
            mesh = d.init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
            return (
                objs,
                lst,
                got,
                sc,
                outs[0].tolist(),
                rs.tolist(),
                [t.tolist() for t in co],
                d.get_process_group_ranks(sub),
                len(subs),
                d.get_group_rank(sub, 0),
                d.get_backend(),
                mesh.shape,
                mesh.size(),
                mesh.get_coordinate(),
                mesh["dp"].size(),
            )
        finally:
            d.destroy_process_group()

    assert run(mt) == run(torch)
