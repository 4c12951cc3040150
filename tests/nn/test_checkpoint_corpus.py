"""A generated corpus of malicious and corrupt checkpoints: nothing executes, memory stays bounded
(each load runs in a child under an address-space limit), and every failure is CheckpointError."""

import io
import json
import struct
import subprocess
import sys
import textwrap
import zipfile

import mindtorch as torch
import pytest
from mindtorch import serialization
from mindtorch.serialization import CheckpointError


# -- pickle opcodes, written by hand so the corpus can say anything a file can say ----------
def S(text):
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def N(n):
    return b"L" + str(n).encode() + b"L\n"


def G(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def T(*items):
    return b"(" + b"".join(items) + b"t"


def storage(key="0", numel=4, kind="FloatStorage", location="cpu"):
    return T(S("storage"), G("torch", kind), S(key), S(location), N(numel)) + b"Q"


def tensor(offset=0, size=(4,), stride=(1,), numel=4, **kw):
    return (
        G("torch._utils", "_rebuild_tensor_v2")
        + T(
            storage(numel=numel, **kw),
            N(offset),
            T(*map(N, size)),
            T(*map(N, stride)),
            b"\x89",
            G("collections", "OrderedDict") + b")R",
        )
        + b"R"
    )


def pkl(body):
    return b"\x80\x02" + body + b"."


def archive(records, compress=()):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in records.items():
            zf.writestr(name, data, zipfile.ZIP_DEFLATED if name in compress else zipfile.ZIP_STORED)
    return buf.getvalue()


def ckpt(body, data=b"\0" * 16, extra=None, compress=()):
    records = {"a/data.pkl": pkl(body), "a/byteorder": b"little"}
    if data is not None:
        records["a/data/0"] = data
    records.update(extra or {})
    return archive(records, compress)


def _patch_sizes(raw, name, file_size):
    """Rewrite a record's uncompressed size in both zip headers (a lying header)."""
    raw = bytearray(raw)
    n = name.encode()
    for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        i = 0
        while (i := raw.find(sig, i)) != -1:
            name_off = 30 if sig == b"PK\x03\x04" else 46
            ln = struct.unpack_from("<H", raw, i + (26 if sig == b"PK\x03\x04" else 28))[0]
            if bytes(raw[i + name_off : i + name_off + ln]) == n:
                struct.pack_into("<I", raw, i + off, file_size)
            i += 4
    return bytes(raw)


def _bomb(declared_numel, real_bytes, lie=None):
    raw = ckpt(tensor(size=(declared_numel,), numel=declared_numel), data=b"\0" * real_bytes, compress=("a/data/0",))
    return raw if lie is None else _patch_sizes(raw, "a/data/0", lie)


def corpus(canary):
    canary = str(canary)
    run = T(S(f"touch {canary}"))
    good = io.BytesIO()
    serialization.save({"w": torch.ones(4)}, good)
    good = good.getvalue()
    crc = bytearray(good)
    crc[good.index(b"\0\0\x80?") + 1] ^= 0xFF  # a byte of the stored float data, not a header
    missing = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(missing, "w") as dst:
        for info in src.infolist():
            if not info.filename.endswith("data/0"):
                dst.writestr(info.filename, src.read(info))
    cases = {
        # code-executing globals, by every opcode that resolves one
        "os.system": ckpt(G("os", "system") + run + b"R"),
        "posix.system": ckpt(G("posix", "system") + run + b"R"),
        "builtins.eval": ckpt(G("builtins", "eval") + T(S(f"open({canary!r}, 'w')")) + b"R"),
        "builtins.exec via __builtin__": ckpt(G("__builtin__", "exec") + T(S(f"open({canary!r}, 'w')")) + b"R"),
        "builtins.getattr": ckpt(G("builtins", "getattr") + T(G("collections", "OrderedDict"), S("fromkeys")) + b"R"),
        "INST os.system": ckpt(b"(" + S(f"touch {canary}") + b"ios\nsystem\n"),
        "STACK_GLOBAL subprocess": ckpt(S("subprocess") + S("getoutput") + b"\x93" + run + b"R"),
        "unknown torch global": ckpt(G("torch", "load") + T(S(canary)) + b"R"),
        "NEWOBJ of an allowed function": ckpt(G("torch", "Size") + b")\x81"),
        # memory bombs
        "set(range(10**12))": ckpt(G("builtins", "set") + T(G("builtins", "range") + T(N(10**12)) + b"R") + b"R"),
        "bytearray(10**12)": ckpt(G("builtins", "bytearray") + T(N(10**12)) + b"R"),
        "Size(range)": ckpt(G("torch", "Size") + T(G("__builtin__", "xrange") + T(N(10**12)) + b"R") + b"R"),
        "storage declares 10**12 elements": ckpt(tensor(size=(10**12,), numel=10**12)),
        "truncated huge bytes opcode": ckpt(b"B" + struct.pack("<I", 0xFFFFFFF0) + b"xx"),
        "zip bomb: 4 elements declared, 64 MiB record": _bomb(4, 64 << 20),
        "zip bomb: header claims 4 GiB": _bomb((0xFFFFFFF0) // 4, 1 << 20, lie=0xFFFFFFF0),
        "zip bomb: header understates": _bomb(4, 1 << 20, lie=16),
        # impossible geometry
        "negative size": ckpt(tensor(size=(-1,), stride=(1,))),
        "negative offset": ckpt(tensor(offset=-1)),
        "4 elements viewed as a million": ckpt(tensor(size=(10**6,))),
        "enormous stride": ckpt(tensor(size=(2,), stride=(2**62,))),
        "negative stride": ckpt(tensor(size=(2,), stride=(-1,), offset=3)),
        "offset past the end": ckpt(tensor(size=(1,), offset=4)),
        "size and stride lengths differ": ckpt(tensor(size=(2, 2), stride=(1,))),
        "float size": ckpt(tensor(size=(1,)).replace(b"(L1L\nt(L1L\nt", b"(G" + struct.pack(">d", 1.0) + b"t(L1L\nt")),
        "record too short for its storage": ckpt(tensor(), data=b"\0" * 15),
        "storage key is a path": ckpt(tensor(key="../../etc/passwd")),
        "storage type is not a storage": ckpt(tensor(kind="float32")),
        "persistent id not a tuple": ckpt(S("storage") + b"Q"),
        # state a file may not set
        "parameter state sets _shape": ckpt(
            G("torch._utils", "_rebuild_parameter_with_state")
            + T(tensor(), b"\x88", G("collections", "OrderedDict") + b")R", b"}" + S("_shape") + T(N(10**6)) + b"s")
            + b"R"
        ),
        "BUILD sets a tensor slot": ckpt(tensor() + b"N}" + S("_shape") + T(N(10**6)) + b"s\x86b"),
        "BUILD on a torch.device": ckpt(G("torch", "device") + T(S("cpu")) + b"R}" + S("type") + S("x") + b"sb"),
        # corrupt archives
        "bad CRC": bytes(crc),
        "missing storage record": missing.getvalue(),
        "missing data.pkl": archive({"a/data/0": b"\0" * 16}),
        "not a zip": b"\x80\x02}q\x00.",
        "truncated archive": good[: len(good) // 2],
        "truncated pickle": archive({"a/data.pkl": pkl(tensor())[:-4], "a/data/0": b"\0" * 16}),
        "path-like entry ../": archive({"../data.pkl": pkl(b"N")}),
        "path-like entry /abs": archive({"/abs/data.pkl": pkl(b"N"), "a/data.pkl": pkl(b"N")}),
        "path-like entry drive": archive({"C:/data.pkl": pkl(b"N")}),
        "big-endian": ckpt(b"N", extra={"a/byteorder": b"big"}),
    }
    return cases


CHILD = textwrap.dedent("""
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (AS_BYTES, AS_BYTES))
    from mindtorch import serialization
    out = {}
    for path in sys.argv[1:]:
        try:
            serialization.load(path)
            out[path] = "loaded"
        except serialization.CheckpointError as exc:
            out[path] = "CheckpointError" if path in str(exc) else "CheckpointError without the file name"
        except BaseException as exc:
            out[path] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
""")


def test_malicious_corpus_is_refused_safely(tmp_path):
    canary = tmp_path / "canary"
    paths = {}
    for i, (name, raw) in enumerate(corpus(canary).items()):
        p = tmp_path / f"case{i}.pt"
        p.write_bytes(raw)
        paths[str(p)] = name
    limit = 1 << 30  # the interpreter with NumPy needs ~200 MiB of address space; a bomb needs far more
    child = CHILD.replace("AS_BYTES", str(limit))
    res = subprocess.run([sys.executable, "-c", child, *paths], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    outcome = {paths[p]: r for p, r in json.loads(res.stdout).items()}
    wrong = {name: r for name, r in outcome.items() if r != "CheckpointError"}
    assert not wrong, wrong
    assert len(outcome) == len(paths) >= 40
    assert not canary.exists()


def test_checkpoint_error_is_pytorch_classes_and_names_the_record():
    assert issubclass(CheckpointError, RuntimeError)
    import pickle

    assert issubclass(CheckpointError, pickle.UnpicklingError)
    with pytest.raises(CheckpointError, match=r"record a/data/0.*declares 16"):
        serialization.load(io.BytesIO(ckpt(tensor(), data=b"\0" * 15)))
    with pytest.raises(CheckpointError, match=r"record a/data.pkl.*out of bounds"):
        serialization.load(io.BytesIO(ckpt(tensor(size=(10**6,)))))


def test_honest_hand_written_checkpoint_loads():
    # the corpus helpers write a valid file too, so a refusal above is about the mutation, not the writer
    t = serialization.load(io.BytesIO(ckpt(tensor(size=(2, 2), stride=(2, 1)), data=struct.pack("<4f", 1, 2, 3, 4))))
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    t = serialization.load(io.BytesIO(ckpt(tensor(size=(0,), offset=4))))
    assert t.shape == (0,)
    p = serialization.load(
        io.BytesIO(
            ckpt(
                G("torch._utils", "_rebuild_parameter_with_state")
                + T(tensor(), b"\x88", G("collections", "OrderedDict") + b")R", b"}" + S("note") + S("hi") + b"s")
                + b"R"
            )
        )
    )
    assert p.note == "hi" and p.requires_grad
