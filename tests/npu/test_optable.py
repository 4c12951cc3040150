"""The committed operator table (mindtorch_npu/optable.json, made by tools/npu_optable.py from CANN's docs):
its schema, a row for every operator the backend binds, the extraction on doc fragments of each layout the
docs use, and the command line that prints it."""

import importlib.util
import io
import json
from pathlib import Path

import pytest
from mindtorch_npu import optable
from mindtorch_npu.acl.prototypes import OPS

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_KEYS = {"950", "A3", "910b", "310b", "310p", "910"}


def _tool():
    spec = importlib.util.spec_from_file_location("npu_optable", ROOT / "tools" / "npu_optable.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_bound_operator_has_a_row_or_a_reason():
    rows = optable.ops()
    assert set(rows) == set(OPS)
    for op, row in rows.items():
        assert row["source"] is not None or row.get("note"), op


def test_the_rows_follow_the_schema():
    table = optable.load()
    assert set(table["products"]) == PRODUCT_KEYS
    assert {"ops-nn", "ops-math"} <= set(table["sources"]) <= {"ops-nn", "ops-math", "ops-transformer"}
    for op, row in table["ops"].items():
        assert set(row) <= {"header", "doc", "source", "note", "params", "products"}, op
        for key in ("header", "doc"):
            repo, _, path = (row[key] or "ops-nn:x").partition(":")
            assert repo in table["sources"] and path, (op, key)
        if row["source"] is None:
            assert "products" not in row, op
            continue
        # the doc, or where the doc is a stub the README of its operator folder
        readme = row["doc"].split("/docs/")[0] + "/README.md"
        assert row["source"] in (row["doc"], readme) and row["doc"].endswith(".md"), op
        assert row["header"].endswith(".h") if row["header"] else _prototype_in_doc(row), op
        assert set(row["products"]) <= PRODUCT_KEYS and row["products"], op
        for key, entry in row["products"].items():
            assert isinstance(entry["supported"], bool), (op, key)
            if not entry["supported"]:
                assert set(entry) == {"supported"}, (op, key)
                continue
            assert set(entry) <= {"supported", "dtypes", "formats", "constraints"}, (op, key)
            for param, dts in entry.get("dtypes", {}).items():
                assert param in row["params"] and dts, (op, key, param)
                assert set(dts) <= set(_tool().DTYPES), (op, key, param)
            for param, fmts in entry.get("formats", {}).items():
                assert param in row["params"] and set(fmts) <= set(_tool().FORMATS), (op, key, param)
            assert all(isinstance(c, str) and c for c in entry.get("constraints", [])), (op, key)


def _prototype_in_doc(row):
    """A row without a header (ops-nn ships none for RmsNorm, SwiGlu, ...) says that its doc's 函数原型 is the
    prototype."""
    return "the doc's 函数原型 gives its prototype" in row.get("note", "")


def test_the_header_declares_the_operator_it_is_listed_for():
    for op, row in optable.ops().items():
        if row["header"] is None and _prototype_in_doc(row):
            continue
        stem = Path(row["header"].partition(":")[2]).name
        assert stem.startswith("aclnn_") and stem.endswith(".h"), (op, stem)


def test_the_doc_is_the_operators_own():
    for op, row in optable.ops().items():
        names = Path(row["doc"].partition(":")[2]).stem.split("&")
        assert "aclnn" + op in names, (op, row["doc"])


_DOC = """# aclnnFoo&aclnnInplaceFoo

## 产品支持情况

<!-- npu="950" id1 -->
- <term>Ascend 950PR/Ascend 950DT</term>：支持
<!-- end id1 -->
<!-- npu="A3" id2 -->
- <term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>：支持
<!-- end id2 -->
<!-- npu="910b" id3 -->
- <term>Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>：支持
<!-- end id3 -->
<!-- npu="310p" id5 -->
- <term>Atlas 推理系列产品</term>：不支持
<!-- end id5 -->
<!-- npu="910" id6 -->
- <term>Atlas 训练系列产品</term>：支持
<!-- end id6 -->

## aclnnFooGetWorkspaceSize

- **参数说明：**

  <table><thead><tr><th>参数名</th><th>输入/输出</th><th>数据类型</th><th>数据格式</th></tr></thead>
  <tbody>
    <tr><td>self</td><td>输入</td><td>FLOAT、FLOAT16、BFLOAT16、INT32</td><td>ND、NCHW</td></tr>
    <tr><td>out</td><td>输出</td><td>FLOAT、FLOAT16、BFLOAT16</td><td>ND</td></tr>
    <tr><td>workspaceSize</td><td>输出</td><td>-</td><td>-</td></tr>
  </tbody></table>

  <!-- npu="910" id7 -->
  - <term>Atlas 训练系列产品</term>：不支持BFLOAT16数据类型。
  <!-- end id7 -->
  <!-- npu="A3,910b" id8 -->
  - <term>Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>：self和out数据类型支持FLOAT。仅支持dilation为1。
  <!-- end id8 -->

## aclnnInplaceFooGetWorkspaceSize

- **参数说明：**

  | 参数名 | 输入/输出 | 描述 |
  | --- | --- | --- |
  | selfRef | 输入 | Device侧的aclTensor，数据类型支持FLOAT、DOUBLE，[数据格式](x.md)支持ND。 |

## 约束说明

- 输入不支持NaN。
"""

_LIST_DOC = """## 产品支持情况

- <term>Atlas 训练系列产品</term>：支持
- <term>Ascend 950PR/Ascend 950DT</term>：支持

## aclnnBarGetWorkspaceSize

- **参数说明：**

  - self(const aclTensor，计算输入)：Device侧的tensor，[数据格式](x.md)支持ND。

    <!-- npu="910" id7 -->
    - <term>Atlas 训练系列产品</term>：数据类型支持FLOAT、INT64。
    <!-- end id7 -->

  - workspaceSize(uint64_t \\*，出参)：返回需要在Device侧申请的workspace大小。
"""


class _Docs:
    name = "ops-math"

    def __init__(self, text, others=None):
        self.text, self.others = text, others or {}
        self.files = list(self.others)

    def show(self, path):
        return self.others.get(path, self.text)


def _row(tool, op, text, doc):
    name = doc.rsplit("/", 1)[1][: -len(".md")]
    docs = {n: [("ops-math", doc)] for n in name.split("&")}
    return tool.row(op, {"ops-math": _Docs(text)}, docs, {op: "ops-math:m/foo/op_api/aclnn_foo.h"})


def test_the_extraction_reads_products_tables_and_product_notes():
    tool = _tool()
    row = _row(tool, "Foo", _DOC, "m/foo/docs/aclnnFoo&aclnnInplaceFoo.md")
    assert row["source"] == "ops-math:m/foo/docs/aclnnFoo&aclnnInplaceFoo.md" and "note" not in row
    assert row["params"] == ["self", "out"]
    p = row["products"]
    assert {k: e["supported"] for k, e in p.items()} == {
        "950": True,
        "A3": True,
        "910b": True,
        "310p": False,
        "910": True,
    }
    assert p["950"]["dtypes"] == {
        "self": ["FLOAT", "FLOAT16", "BFLOAT16", "INT32"],
        "out": ["FLOAT", "FLOAT16", "BFLOAT16"],
    }
    assert p["910"]["dtypes"] == {"self": ["FLOAT", "FLOAT16", "INT32"], "out": ["FLOAT", "FLOAT16"]}
    assert p["910b"]["dtypes"] == p["A3"]["dtypes"] == {"self": ["FLOAT"], "out": ["FLOAT"]}
    assert p["950"]["formats"] == {"self": ["ND", "NCHW"], "out": ["ND"]}
    assert "仅支持dilation为1。" in " ".join(p["910b"]["constraints"]) and "输入不支持NaN。" in p["950"]["constraints"]
    assert p["310p"] == {"supported": False}
    inplace = _row(tool, "InplaceFoo", _DOC, "m/foo/docs/aclnnFoo&aclnnInplaceFoo.md")
    assert inplace["products"]["950"]["dtypes"] == {"selfRef": ["FLOAT", "DOUBLE"]}
    assert inplace["products"]["950"]["formats"] == {"selfRef": ["ND"]}


def test_the_extraction_reads_the_attention_docs_product_table():
    # aclnnFlashAttentionScore.md gives the A2 training parts a row of their own: the 910b key, the one product
    # its table marks supported (a product the table leaves out is unsupported)
    tool = _tool()
    section = (
        "|产品 | 是否支持 |\n|:---|:---:|\n|<term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>| × |\n"
        "|<term>Atlas A2 训练系列产品</term>| √ |\n|<term>Atlas 800I A2 推理产品</term>| × |\n"
    )
    assert tool.support(section) == {k: k == "910b" for k in tool.PRODUCTS}
    for op in ("FlashAttentionScore", "FlashAttentionScoreGrad"):
        row = optable.ops()[op]
        assert row["source"].startswith("ops-transformer:")
        assert {k for k, e in row["products"].items() if e["supported"]} == {"910b"}
        assert row["products"]["910b"]["dtypes"]["query"] == ["FLOAT16", "BFLOAT16", "FLOAT"]


def test_the_extraction_reads_listed_parameters_and_never_fills_a_gap():
    tool = _tool()
    row = _row(tool, "Bar", _LIST_DOC, "m/bar/docs/aclnnBar.md")
    assert row["products"] == {
        "910": {
            "supported": True,
            "dtypes": {"self": ["FLOAT", "INT64"]},
            "formats": {"self": ["ND"]},
            "constraints": ["Atlas 训练系列产品：数据类型支持FLOAT、INT64。"],
        },
        # the doc states no dtypes for Ascend950: the row says none rather than borrowing the 910's
        "950": {"supported": True, "dtypes": {}, "formats": {"self": ["ND"]}, "constraints": []},
    }
    gone = _row(tool, "Baz", "## 功能说明\n", "m/baz/docs/aclnnBaz.md")
    assert gone["source"] is None and "product list" in gone["note"] and "products" not in gone
    missing = tool.row("Qux", {}, {}, {})
    assert missing["source"] is None and missing["doc"] is None and "aclnnQux" in missing["note"]


_README = """# Gmm

## 产品支持情况

|产品      | 是否支持 |
|:----------------------------|:-----------:|
|<term>Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件</term>|      √     |

## 参数说明
<table>
  <thead><tr><th>参数名</th><th>输入/输出/属性</th><th>描述</th><th>数据类型</th><th>数据格式</th></tr></thead>
  <tbody>
    <tr><td>x</td><td>输入</td><td>激活。</td><td>FLOAT、FLOAT16</td><td>ND</td></tr>
    <tr><td>out</td><td>输出</td><td>输出。</td><td>FLOAT、FLOAT16</td><td>ND</td></tr>
  </tbody>
</table>

## 约束说明
- x的最后一维应小于65536。
"""


def test_a_stub_doc_is_read_from_its_operator_folders_readme():
    # ops-transformer's aclnnGroupedMatmulV4.md points at the online manual; the folder's README has the facts
    tool = _tool()
    stub = "# aclnnGmm\n\n本文档内容正按全新接口模板整改中。\n"
    docs = {"aclnnGmm": [("ops-math", "m/gmm/docs/aclnnGmm.md")]}
    repo = _Docs(stub, {"m/gmm/README.md": _README, "m/gmm/docs/aclnnGmm.md": stub})
    row = tool.row("Gmm", {"ops-math": repo}, docs, {"Gmm": "ops-math:m/gmm/op_api/aclnn_gmm.h"})
    assert row["doc"] == "ops-math:m/gmm/docs/aclnnGmm.md" and row["source"] == "ops-math:m/gmm/README.md"
    assert "note" not in row and row["params"] == ["x", "out"]
    assert {k for k, e in row["products"].items() if e["supported"]} == {"910b"}
    assert row["products"]["910b"]["dtypes"] == {"x": ["FLOAT", "FLOAT16"], "out": ["FLOAT", "FLOAT16"]}
    assert "x的最后一维应小于65536。" in row["products"]["910b"]["constraints"]
    real = optable.ops()["GroupedMatmulV4"]
    assert real["source"].endswith("gmm/grouped_matmul/README.md") and real["doc"].endswith("aclnnGroupedMatmulV4.md")
    assert {k for k, e in real["products"].items() if e["supported"]} == {"910b", "A3"}


def test_a_product_note_naming_no_parameter_sets_the_data_parameters_dtypes():
    tool = _tool()
    doc = _DOC.replace("self和out数据类型支持FLOAT。仅支持dilation为1。", "数据类型支持FLOAT16、INT8。").replace(
        "<td>FLOAT、FLOAT16、BFLOAT16、INT32</td>", "<td>FLOAT、FLOAT16、BFLOAT16</td>"
    )
    p = _row(tool, "Foo", doc, "m/foo/docs/aclnnFoo&aclnnInplaceFoo.md")["products"]
    # the A2 / A3 note lists the operator's dtypes there, INT8 included, which the table does not have
    assert p["910b"]["dtypes"] == p["A3"]["dtypes"] == {"self": ["FLOAT16", "INT8"], "out": ["FLOAT16", "INT8"]}
    assert p["950"]["dtypes"] == {"self": ["FLOAT", "FLOAT16", "BFLOAT16"], "out": ["FLOAT", "FLOAT16", "BFLOAT16"]}
    # a note naming a parameter narrows or drops only that parameter's dtypes; a list sharing no dtype with
    # the table's adds to it
    doc = _DOC.replace("不支持BFLOAT16数据类型。", "out不支持BFLOAT16数据类型。").replace(
        "self和out数据类型支持FLOAT。", "out数据类型支持DOUBLE。"
    )
    p = _row(tool, "Foo", doc, "m/foo/docs/aclnnFoo&aclnnInplaceFoo.md")["products"]
    assert p["910"]["dtypes"] == {"self": ["FLOAT", "FLOAT16", "BFLOAT16", "INT32"], "out": ["FLOAT", "FLOAT16"]}
    assert p["910b"]["dtypes"]["out"] == ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"]


def test_the_command_line_prints_the_table():
    out = io.StringIO()
    assert optable.main(["--json"], out) == 0
    data = json.loads(out.getvalue())
    assert set(data) == set(OPS)
    exp = data["Exp"]
    assert exp["910b"]["source"].endswith("aclnnExp&aclnnInplaceExp.md") and "dtypes" in exp["910b"]
    # an override stands in for a doc row that cannot be read, and says so
    sign = data["Sign"]["950"]
    assert sign["dtypes"]["self"] == sign["dtypes"]["result"] and "result" in sign["overrides"]["self"]
    assert "overrides" not in data["Sign"]["910b"]
    out = io.StringIO()
    optable.main(["--op", "Exp"], out)
    text = out.getvalue()
    assert "Exp " in text and "aclnn_exp.h" in text and "Add " not in text
    with pytest.raises(SystemExit):
        optable.main(["--op", "NoSuchOp"], io.StringIO())


def test_the_chip_table_lacks_exactly_what_the_docs_mark_unsupported():
    from mindtorch_npu import chips

    for fam, product in chips.FAMILY_PRODUCT.items():
        marked = {
            op
            for op, row in optable.ops().items()
            if not row.get("products", {}).get(product, {}).get("supported", True)
        }
        assert chips.MISSING_OPS[fam] == marked, fam
    foreach = {op for op in OPS if op.startswith("Foreach")}
    assert foreach and foreach <= chips.MISSING_OPS["910A"] and not foreach & chips.MISSING_OPS["910B"]
    assert {"Convolution", "MaxPool2dWithIndices", "Gather", "Flip", "Exp", "Log"} <= chips.MISSING_OPS["910A"]
    assert "Add" in chips.MISSING_OPS["310P"] and "Add" not in chips.MISSING_OPS["910A"]  # aclnnAdd.md's list
    assert chips.product("Ascend910_9391") == "A3" and chips.product("Ascend910B2") == "910b"
    assert chips.product("Ascend910A") == "910" and chips.product("Ascend310P3") == "310p"


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend310P3", "Ascend910B2"])
def test_a_kernel_whose_operator_the_chip_lacks_refuses_by_op_chip_and_doc(soc):
    from npu_helpers import run_python

    res = run_python(
        """
        import mindtorch as torch
        x = torch.tensor([0.5, 1.0, 2.0]).to("npu")
        cases = (("exp", torch.exp), ("exp_", lambda t: t.clone().exp_()), ("log", torch.log),
                 ("flip", lambda t: torch.flip(t, [0])))
        for name, fn in cases:
            try:
                print(name, [round(v, 4) for v in fn(x).cpu().tolist()])
            except NotImplementedError as e:
                assert "npu" in str(e) and "docs/aclnn" in str(e), e
                print(name, "refused", str(e).split(":")[0])
    """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    got = dict(line.split(" ", 1) for line in res.stdout.strip().splitlines())
    e = "[1.6487, 2.7183, 7.3891]"
    values = {"exp": e, "exp_": e, "log": "[-0.6931, 0.0, 0.6931]", "flip": "[2.0, 1.0, 0.5]"}
    if soc == "Ascend910B2":
        assert got == values
    elif soc == "Ascend910A":  # aclnnLog and aclnnFlip: "Atlas 训练系列产品：不支持"; exp goes through Expm1
        assert got == {"exp": e, "exp_": e, "log": "refused aclnnLog", "flip": "refused aclnnFlip"}
    else:  # Atlas 推理系列产品: none of them (nor InplaceAdds, which exp's Expm1 form needs)
        refused = {n: f"refused aclnn{n.strip('_').capitalize()}" for n in values}
        assert got == refused


def test_adamw_takes_the_composite_where_the_chip_has_no_foreach_operators():
    from npu_helpers import run_python

    res = run_python(
        """
        import mindtorch as torch
        from mindtorch_npu import chips
        assert not chips.has_op("ForeachAddcdivScalarV2")
        out = []
        for dev in ("cpu", "npu"):
            torch.manual_seed(0)
            w = torch.randn(4, 3).to(dev).requires_grad_()
            opt = torch.optim.AdamW([w], lr=0.1, foreach=True)
            for _ in range(3):
                opt.zero_grad()
                (w * w).sum().backward()
                opt.step()
            out.append(w.detach().cpu())
        print(float((out[0] - out[1]).abs().max()) < 1e-5)
    """,
        {"ACLSIM_SOC_NAME": "Ascend910A"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "True"


@pytest.mark.parametrize("soc", ["Ascend910B2", "Ascend910_9391", "Ascend910A", "Ascend310P3", "Ascend950PR_9589"])
def test_the_simulator_lacks_exactly_the_operators_the_table_marks_unsupported(soc):
    """Phase 1 of every bound operator on each product: the simulator's absent table (generated from
    optable.json by simulator/build.py) and the backend's chip table name the same operators."""
    from npu_helpers import run_python

    res = run_python(
        """
        import ctypes
        from mindtorch_npu import chips
        from mindtorch_npu.acl.prototypes import OPS
        from mindtorch_npu.state import RUNTIME
        RUNTIME.ensure()
        absent = RUNTIME.libs.opapi.aclsimOpAbsent
        absent.restype, absent.argtypes = ctypes.c_int32, [ctypes.c_char_p]
        soc = RUNTIME.soc_name()
        sim = sorted(op for op in OPS if absent(op.encode()))
        py = sorted(op for op in OPS if not chips.has_op(op, soc))
        print(sim == py, len(sim), sorted(set(sim) ^ set(py)))
    """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    same, count, diff = res.stdout.strip().split(" ", 2)
    assert same == "True", diff
    assert int(count) == len({op for op in OPS if not optable.supported(op, _PRODUCT[soc])})


_PRODUCT = {
    "Ascend910B2": "910b",
    "Ascend910_9391": "A3",
    "Ascend910A": "910",
    "Ascend310P3": "310p",
    "Ascend950PR_9589": "950",
}


_TABLE_DOC = """# aclnnRope

## 产品支持情况

| 产品                                                         | 是否支持 |
| :----------------------------------------------------------- | :------: |
| <term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>     |    √     |
| <term>Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件</term> |    √     |

## 函数原型

```c++
aclnnStatus aclnnRopeGetWorkspaceSize(
const aclTensor *x,
aclTensor       *out,
uint64_t        *workspaceSize,
aclOpExecutor   **executor)
```

## aclnnRopeGetWorkspaceSize

<table>
<tr><th>参数名</th><th>输入/输出</th><th>描述</th><th>使用说明</th><th>数据类型</th><th>数据格式</th></tr>
<tr><td>x</td><td>输入</td><td>d</td><td>-</td><td>BFLOAT16、FLOAT32</td><td>ND</td></tr>
<tr><td>out</td><td>输出</td><td>d</td><td>-</td><td>BFLOAT16、FLOAT32</td><td>ND</td></tr>
</table>
"""


def test_a_product_table_lists_the_products_that_run_the_operator():
    # ops-transformer's docs: a table of the products with √; a product it does not list lacks the operator
    tool = _tool()
    docs = {"aclnnRope": [("ops-math", "m/rope/docs/aclnnRope.md")]}
    row = tool.row("Rope", {"ops-math": _Docs(_TABLE_DOC)}, docs, {})
    assert {k: e["supported"] for k, e in row["products"].items()} == {
        "950": False,
        "A3": True,
        "910b": True,
        "310b": False,
        "310p": False,
        "910": False,
    }
    assert row["products"]["910b"]["dtypes"] == {"x": ["BFLOAT16", "FLOAT"], "out": ["BFLOAT16", "FLOAT"]}
    # no header declares it: the row says the doc's prototype stands in
    assert row["header"] is None and "函数原型 gives its prototype" in row["note"]
    with_header = tool.row("Rope", {"ops-math": _Docs(_TABLE_DOC)}, docs, {"Rope": "ops-math:m/rope/aclnn_rope.h"})
    assert "note" not in with_header
