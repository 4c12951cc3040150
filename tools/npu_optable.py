"""Extract the ACLNN operator facts mindtorch-npu relies on from CANN's operator documentation.

For every operator the backend binds (the names in `mindtorch_npu/acl/prototypes.py` OPS) this reads the
operator's `docs/aclnn*.md` in hicann/ops-nn, hicann/ops-math and (when given) hicann/ops-transformer and
writes one row to
`mindtorch-npu/src/mindtorch_npu/optable.json`:

- `header` / `doc`: the header declaring `aclnn<Op>GetWorkspaceSize` and the doc describing it ("repo:path");
- `products`: per product key of the docs' product list (`<!-- npu="910b" -->` markers: 950, A3, 910b, 310b,
  310p, 910) whether it is supported, the dtypes and formats of each parameter (the parameter table, narrowed
  by that product's notes such as "不支持BFLOAT16数据类型" or "gradOutput和self数据类型支持FLOAT") and the
  product's notes and constraints as text;
- `source`: the doc the facts come from, or null with a `note` saying why (no doc, no product list, ...).

Nothing is invented: a fact the docs do not state is absent from the row, and a row whose doc could not be
read fully carries a `note`. CI never runs this tool; it reads the committed JSON.

Regenerate (offline, from bare or working git checkouts of the repositories):

    python tools/npu_optable.py --ops-nn DIR --ops-math DIR [--ops-transformer DIR] [--out ...optable.json]

DIR is a git directory (a bare clone works: files are read with `git show HEAD:path`).
"""

import argparse
import html
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "mindtorch-npu" / "src" / "mindtorch_npu" / "optable.json"
REPOS = ("ops-nn", "ops-math", "ops-transformer")

# the product keys of the docs' `<!-- npu="..." -->` markers and the products they stand for
PRODUCTS = {
    "950": "Ascend 950PR/Ascend 950DT",
    "A3": "Atlas A3 训练系列产品/Atlas A3 推理系列产品",
    "910b": "Atlas A2 训练系列产品/Atlas A2 推理系列产品",
    "310b": "Atlas 200I/500 A2 推理产品",
    "310p": "Atlas 推理系列产品",
    "910": "Atlas 训练系列产品",
}
# the term each product is named by in a doc without markers (ops-transformer's docs name the A2 parts longer)
_TERMS = {v: k for k, v in PRODUCTS.items()} | {
    "Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件": "910b",
    # the attention docs give the A2 training parts a row of their own (the 910b key's training half; the
    # inference-only variants' rows are left out)
    "Atlas A2 训练系列产品": "910b",
}
DTYPES = (
    "FLOAT",
    "FLOAT16",
    "BFLOAT16",
    "DOUBLE",
    "INT8",
    "UINT8",
    "INT16",
    "UINT16",
    "INT32",
    "UINT32",
    "INT64",
    "UINT64",
    "BOOL",
    "COMPLEX32",
    "COMPLEX64",
    "COMPLEX128",
    "HIFLOAT8",
    "FLOAT8_E4M3FN",
    "FLOAT8_E5M2",
    "FLOAT4_E2M1",
    "FLOAT4_E1M2",
    "INT4",
)
FORMATS = ("ND", "NCHW", "NHWC", "NCL", "NCDHW", "NDHWC", "NC1HWC0", "FRACTAL_NZ", "FRACTAL_Z", "NC", "NCD", "HWCN")
_WORD = re.compile(r"[A-Z][A-Z0-9_]*")
_BLOCK = re.compile(r'<!--\s*npu="([^"]+)"\s*(id\d+)\s*-->(.*?)<!--\s*end\s+\2\s*-->', re.S)
_SECTION = re.compile(r"^## (.+)$", re.M)


class Repo:
    """A git directory read at HEAD."""

    def __init__(self, name, gitdir):
        self.name, self.gitdir = name, str(gitdir)
        self.commit = self._git("rev-parse", "HEAD").strip()
        self.files = self._git("ls-tree", "-r", "--name-only", "HEAD").splitlines()

    def _git(self, *args):
        return subprocess.run(
            ["git", "--git-dir", self.gitdir, *args], capture_output=True, text=True, check=True
        ).stdout

    def show(self, path):
        return self._git("show", f"HEAD:{path}")

    def declarations(self):
        """op name -> header paths declaring aclnn<op>GetWorkspaceSize."""
        out = subprocess.run(
            [
                "git",
                "--git-dir",
                self.gitdir,
                "grep",
                "-o",
                "-E",
                r"aclnn[A-Za-z0-9]+GetWorkspaceSize\(",
                "HEAD",
                "--",
                "*.h",
            ],
            capture_output=True,
            text=True,
        ).stdout
        found = {}
        for line in out.splitlines():
            _, path, decl = line.split(":", 2)
            found.setdefault(decl[len("aclnn") : -len("GetWorkspaceSize(")], []).append(path)
        return found


def _prefer(paths):
    """The main tree's file over an `experimental/` copy; the shortest path among equals."""
    return sorted(paths, key=lambda p: (p.startswith("experimental/"), len(p), p))


def _text(cell):
    """A table cell as plain text: list items on their own lines, tags dropped, entities decoded."""
    cell = re.sub(r"<br\s*/?>|</li>|</p>", "\n", cell)
    return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()


def dtypes_in(text):
    """The dtype names in `text`, in order; FLOAT32 (the spelling of some ops-nn docs) is FLOAT."""
    found = []
    for w in _WORD.findall(text):
        w = "FLOAT" if w == "FLOAT32" else w
        if w in DTYPES and w not in found:
            found.append(w)
    return found


def _param_name(cell):
    """The parameter of a name cell such as "self（aclTensor*）" or "inputRef(aclTensor*)"."""
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", re.split(r"[（(]", _text(cell))[0])
    return m.group(1) if m else ""


def _rows(table):
    heads = [_text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S) for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
    return heads, [r for r in rows if r]


def _md_rows(section):
    lines = [ln.strip() for ln in section.splitlines() if ln.strip().startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines if not set(ln) <= set("|-: ")]
    return (cells[0], cells[1:]) if cells else ([], [])


def _column(heads, *words):
    for i, h in enumerate(heads):
        if any(w in h for w in words):
            return i
    return None


def params(section):
    """parameter -> {"dtypes": cell dtypes, "formats": cell formats, "per_product": {key: dtypes}} from the
    section's parameter table (HTML or markdown); cells naming products (`<term>...</term>：...`) per product."""
    m = re.search(r"<table.*?</table>", section, re.S)
    heads, rows = _rows(m.group(0)) if m else _md_rows(section)
    name, dt, fmt = _column(heads, "参数名"), _column(heads, "数据类型"), _column(heads, "数据格式")
    desc = _column(heads, "描述")
    if name is None or (dt is None and desc is None):
        return _list_params(section)
    found = {}
    for row in rows:
        if len(row) <= max(name, dt if dt is not None else desc):
            continue
        pname = _param_name(row[name])
        if not pname or pname in ("workspaceSize", "executor"):
            continue
        found[pname] = _cell_entry(row, dt, fmt, desc)
    return found


def _cell_entry(row, dt, fmt, desc):
    """One parameter's dtypes and formats: from their own columns, or else from its description's
    "数据类型支持X、Y" and "数据格式支持ND"."""
    if dt is None:
        text = re.sub(r"\[|\]\([^)]*\)", "", _text(row[desc]))
        said = re.search(r"数据类型(?:仅)?支持([A-Z0-9_、，,\s和]+)", text)
        fmts = re.search(r"数据格式\S*?支持([A-Z0-9_、，,\s和]+)", text)
        entry = {"dtypes": dtypes_in(said.group(1)) if said else []}
        if fmts:
            entry["formats"] = [w for w in _WORD.findall(fmts.group(1)) if w in FORMATS]
        return entry
    entry = {"dtypes": dtypes_in(_text(row[dt]))}
    per = _per_product(row[dt])
    if per:
        entry["per_product"] = per
    if fmt is not None and len(row) > fmt:
        entry["formats"] = [w for w in _WORD.findall(_text(row[fmt])) if w in FORMATS]
    return entry


_ITEM = re.compile(r"^  - ([A-Za-z][A-Za-z0-9_]*)\s*[（(]", re.M)


def _list_params(section):
    """The parameters of a doc that lists them as `- name（type，role）：text` items, each maybe followed by
    `<!-- npu=... -->` blocks with that product's dtypes."""
    items = list(_ITEM.finditer(section))
    found = {}
    for i, m in enumerate(items):
        chunk = section[m.end() : items[i + 1].start() if i + 1 < len(items) else len(section)]
        pname = m.group(1)
        if pname in ("workspaceSize", "executor"):
            continue
        common = _BLOCK.sub("", chunk)
        said = re.search(r"数据类型(?:仅)?支持([A-Z0-9_、，,\s和]+)", common)
        entry = {"dtypes": dtypes_in(said.group(1)) if said else []}
        fmts = re.search(r"数据格式\S*?支持([A-Z0-9_、，,\s和]+)", re.sub(r"\[|\]\([^)]*\)", "", common))
        if fmts:
            entry["formats"] = [w for w in _WORD.findall(fmts.group(1)) if w in FORMATS]
        per = {}
        for keys, _, body in _BLOCK.findall(chunk):
            # "互推导后的数据类型为X": the dtype self and other promote to must be one of X
            listed = re.search(r"(?:数据类型(?:仅)?支持|互推导后的数据类型为)([A-Z0-9_、，,\s和]+)", body)
            for k in keys.split(","):
                if listed:
                    per[k.strip()] = dtypes_in(listed.group(1))
        if per:
            entry["per_product"] = per
        found[pname] = entry
    return found or None


def _per_product(cell):
    """{product key: dtypes} for a cell that lists dtypes per product (`<term>A</term>、<term>B</term>：X、Y`)."""
    per = {}
    for line in _text_keep_terms(cell).split("\n"):
        terms = re.findall(r"<term>(.*?)</term>", line)
        if not terms:
            continue
        rest = re.split(r"</term>[：:]", line)[-1]
        for t in terms:
            if t in _TERMS:
                per[_TERMS[t]] = dtypes_in(rest)
    return per


def _text_keep_terms(cell):
    cell = re.sub(r"<br\s*/?>|</li>|</p>", "\n", cell)
    return html.unescape(re.sub(r"<(?!/?term>)[^>]+>", "", cell))


def sections(text):
    """heading -> body for each `## ` section."""
    marks = list(_SECTION.finditer(text))
    return {
        m.group(1).strip(): text[m.end() : (marks[i + 1].start() if i + 1 < len(marks) else len(text))]
        for i, m in enumerate(marks)
    }


def support(section):
    """product key -> True/False from the doc's product list."""
    found = {}
    for keys, _, body in _BLOCK.findall(section):
        verdict = re.search(r"[：:]\s*(不支持|支持)", body)
        if verdict:
            for k in keys.split(","):
                found[k.strip()] = verdict.group(1) == "支持"
    if not found:  # a list without markers: `- <term>name</term>：支持`
        for term, verdict in re.findall(r"<term>(.*?)</term>[：:]\s*(不支持|支持)", section):
            if term in _TERMS:
                found[_TERMS[term]] = verdict == "支持"
    if not found:
        found = _support_table(section)
    return found


def _support_table(section):
    """A product table (`| <term>name</term> | √ |`, ops-transformer's docs): a product it does not list is
    unsupported, since the table enumerates the products the operator runs on."""
    listed = {}
    for term, mark in re.findall(r"\|\s*<term>(.*?)</term>\s*\|\s*([√×✓xX])\s*\|", section):
        if term in _TERMS:
            listed[_TERMS[term]] = mark in "√✓"
    return {k: listed.get(k, False) for k in PRODUCTS} if listed else {}


def notes(section):
    """product key -> the note lines of the section's `<!-- npu=... -->` blocks; "*" -> lines outside them."""
    found = {}
    for keys, _, body in _BLOCK.findall(section):
        lines = [_clean(ln) for ln in body.splitlines()]
        for k in keys.split(","):
            found.setdefault(k.strip(), []).extend(ln for ln in lines if ln)
    rest = _BLOCK.sub("", section)
    rest = re.sub(r"<table.*?</table>", "", rest, flags=re.S)
    rest = re.sub(r"```.*?```", "", rest, flags=re.S)
    found["*"] = [ln for ln in (_clean(x) for x in rest.splitlines()) if ln and not ln.startswith(("**", "$$"))]
    return found


def _clean(line):
    line = html.unescape(re.sub(r"<[^>]+>", "", line)).strip()
    line = re.sub(r"^[-*]\s*", "", line).strip()
    return "" if line in ("", "-", "**参数说明：**", "参数说明：") else line


_ONLY = re.compile(
    r"^(?:.*?[，,：:]\s*)?([A-Za-z][A-Za-z0-9_]*(?:\s*(?:和|、|与|,|，)\s*[A-Za-z][A-Za-z0-9_]*)*)\s*的?数据类型(?:仅)?支持([A-Z0-9_、，,\s和]+)"
)
_NOT = re.compile(r"不支持([A-Z0-9_、，,\s和]+)数据类型|数据类型不支持([A-Z0-9_、，,\s和]+)")
_NOT_NAMED = re.compile(
    r"([A-Za-z][A-Za-z0-9_]*(?:\s*(?:和|、|与)\s*[A-Za-z][A-Za-z0-9_]*)*)\s*不支持[A-Z0-9_、，,\s和]+数据类型"
)
# a product's note naming no parameter ("<term>Ascend 950PR/Ascend 950DT</term>：数据类型支持FLOAT、INT32。")
_UNNAMED = re.compile(r"^(?:[^，,：:]*[：:]\s*)?数据类型(?:仅)?支持([A-Z0-9_、，,\s和]+)")


def _data_params(table):
    """The parameters carrying the operator's data: the largest group sharing one dtype list in the table
    (the earliest among equals). None where the product notes are per parameter (a doc listing its
    parameters with `<!-- npu=... -->` blocks under each: those are `per_product`)."""
    if any("per_product" in e for e in table.values()):
        return []
    groups = {}
    for p, e in table.items():
        if e.get("dtypes"):
            groups.setdefault(tuple(e["dtypes"]), []).append(p)
    return max(groups.values(), key=len, default=[])


def narrow(table, lines):
    """The parameter dtypes of one product: the table, with the dtypes that product's note lines state for a
    parameter in place of the table's (a note naming no parameter speaks of the operator's data, _data_params),
    less the dtypes a note says it lacks."""
    got = {p: list(e.get("dtypes", [])) for p, e in table.items()}
    data = _data_params(table)
    for line in lines:
        for clause in re.split(r"[；;。]", line):
            only = _ONLY.search(clause)
            if only:
                names = _names(only.group(1))
                listed = dtypes_in(only.group(2))
                if listed and names and all(n in got for n in names):
                    for n in names:
                        got[n] = _restated(got[n], listed)
                continue
            unnamed = _UNNAMED.search(clause)
            if unnamed and dtypes_in(unnamed.group(1)):
                for n in data:
                    got[n] = _restated(got[n], dtypes_in(unnamed.group(1)))
                continue
            gone = _NOT.search(clause)
            if gone:
                drop = set(dtypes_in(gone.group(1) or gone.group(2)))
                named = _NOT_NAMED.search(clause)
                names = _names(named.group(1)) if named else []
                which = names if names and all(n in got for n in names) else list(got)  # "out不支持INT32数据类型"
                got = {p: [d for d in ds if p not in which or d not in drop] for p, ds in got.items()}
    return got


def _names(text):
    return [n for n in re.split(r"\s*(?:和|、|与|,|，)\s*", text) if n]


def _restated(table, listed):
    """A product's own list for a parameter: it replaces the table's, except that a list sharing no dtype with
    the table's adds to it ("selfRef数据类型支持BFLOAT16" under a FLOAT/FLOAT16/DOUBLE table)."""
    return listed if not table or set(listed) & set(table) else table + listed


def op_section(secs, op):
    for title, body in secs.items():
        if re.fullmatch(rf"aclnn{op}GetWorkspaceSize(\s*.*)?", title.split("(")[0].strip()):
            return body
    return None


def _problems(op, hdr, secs, sup, body, table):
    """What keeps the row from being complete, each as a phrase of its note."""
    problems = []
    if not sup:
        problems.append("the doc has no product list")
    if body is None:
        problems.append(f"the doc has no aclnn{op}GetWorkspaceSize section")
    elif not table:
        problems.append("the doc's parameter table could not be read")
    if hdr is None and re.search(rf"aclnn{op}GetWorkspaceSize\(", secs.get("函数原型", "")):
        problems.append(f"no header declares aclnn{op}; the doc's 函数原型 gives its prototype")
    return problems


def row(op, repos, docs, headers):
    out = {"header": None, "doc": None, "source": None}
    hdr = headers.get(op)
    if hdr:
        out["header"] = hdr
    found = docs.get("aclnn" + op)
    if not found:
        out["note"] = f"no docs/aclnn*.md names aclnn{op}"
        return out
    # the doc beside the header (ops-nn keeps aclnnEmbeddingDenseBackward.md in two operator folders)
    beside = [(r, p) for r, p in found if hdr and _beside(hdr, r, p)]
    repo, path = (beside or found)[0]
    out["doc"] = f"{repo}:{path}"
    secs = sections(repos[repo].show(path))
    sup = support(secs.get("产品支持情况", ""))
    body = op_section(secs, op)
    source = out["doc"]
    readme = None if sup else _folder_readme(repos[repo], path)
    if readme:  # a stub doc: the operator folder's README states the facts (its 参数说明 is the parameter table)
        secs = sections(repos[repo].show(readme))
        sup = support(secs.get("产品支持情况", ""))
        body, source = secs.get("参数说明"), f"{repo}:{readme}"
    table = params(body) if body is not None else None
    problems = _problems(op, hdr, secs, sup, body, table)
    if problems:
        out["note"] = "; ".join(problems)
    if not sup:
        return out
    out["source"] = source
    if table:
        out["params"] = list(table)  # the doc's parameter order (the first is the operator's `self`)
    lines = notes(body or "")
    constraint = notes(secs.get("约束说明", ""))
    products = {}
    for key in PRODUCTS:
        if key not in sup:
            continue
        entry = {"supported": sup[key]}
        if sup[key] and table:
            narrowed = narrow(table, lines.get(key, []))
            for p, e in table.items():
                if key in e.get("per_product", {}):
                    narrowed[p] = e["per_product"][key]
            # a parameter whose dtypes this product's text does not state is left out, not guessed
            entry["dtypes"] = {p: d for p, d in narrowed.items() if d}
            entry["formats"] = {p: e["formats"] for p, e in table.items() if e.get("formats")}
            entry["constraints"] = lines.get(key, []) + constraint.get(key, []) + constraint["*"]
        products[key] = entry
    out["products"] = products
    first = out.get("params", [None])[0]
    silent = sorted(k for k, e in products.items() if e["supported"] and first not in e.get("dtypes", {first: 0}))
    if silent:  # the doc names no dtypes for the operator's first parameter there: say so, guess nothing
        gap = f"the doc states no dtypes of {first} for {', '.join(silent)}"
        out["note"] = f"{out['note']}; {gap}" if "note" in out else gap
    return out


def _folder_readme(repo, doc):
    """The README.md of a doc's operator folder when it has a product list (ops-transformer's docs of some
    operators, aclnnGroupedMatmulV4.md among them, are stubs pointing at the online manual; the folder's README
    carries the product list, the parameter table and the constraints)."""
    readme = doc.split("/docs/")[0] + "/README.md"
    if readme not in repo.files or not support(sections(repo.show(readme)).get("产品支持情况", "")):
        return None
    return readme


def _beside(header, repo, doc):
    """Whether `header` ("repo:path") lies in the operator folder of `doc` in `repo`."""
    return header.startswith(f"{repo}:{doc.split('/docs/')[0]}/")


def doc_index(repos):
    """`aclnnName` -> [(repo, doc path)], main tree first."""
    found = {}
    for repo in repos.values():
        for p in repo.files:
            if "/docs/aclnn" in "/" + p and p.endswith(".md"):
                for n in re.split(r"[&、]", p.rsplit("/", 1)[1][: -len(".md")]):
                    found.setdefault(n.strip(), []).append((repo.name, p))
    return {
        n: sorted(v, key=lambda rp: (rp[1].startswith("experimental/"), len(rp[1]), rp[1])) for n, v in found.items()
    }


def _header_index(repos, docs):
    """op -> the header declaring it: the one beside a doc of the operator (ops-transformer declares
    aclnnRotaryPositionEmbedding in two operator folders), else the main tree's shortest path."""
    found = {}
    for repo in repos.values():
        for op, paths in repo.declarations().items():
            found.setdefault(op, []).extend(f"{repo.name}:{p}" for p in _prefer(paths))
    best = {}
    for op, v in found.items():
        v = sorted(v, key=lambda s: ("experimental/" in s, len(s)))
        beside = [h for h in v if any(_beside(h, r, p) for r, p in docs.get("aclnn" + op, []))]
        best[op] = (beside or v)[0]
    return best


def build(repos, ops):
    docs = doc_index(repos)
    headers = _header_index(repos, docs)
    rows = {op: row(op, repos, docs, headers) for op in ops}
    return {
        "generated_by": "tools/npu_optable.py",
        "sources": {r.name: r.commit for r in repos.values()},
        "products": PRODUCTS,
        "ops": rows,
    }


def bound_ops():
    sys.path.insert(0, str(ROOT / "mindtorch-npu" / "src"))
    from mindtorch_npu.acl.prototypes import OPS

    return list(OPS)


def dump(table):
    """The table as JSON with one line per operator, so a regenerated file diffs by operator."""
    ops = table["ops"]
    head = {k: v for k, v in table.items() if k != "ops"}
    lines = [json.dumps(head, ensure_ascii=False, sort_keys=True)[:-1] + ', "ops": {']
    body = [f"{json.dumps(op)}: {json.dumps(ops[op], ensure_ascii=False, sort_keys=True)}" for op in sorted(ops)]
    return "\n".join(lines + [",\n".join(body), "}}"]) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops-nn", required=True, help="git directory of hicann/ops-nn")
    ap.add_argument("--ops-math", required=True, help="git directory of hicann/ops-math")
    ap.add_argument("--ops-transformer", help="git directory of hicann/ops-transformer (rotary embedding, ...)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    repos = {"ops-nn": Repo("ops-nn", args.ops_nn), "ops-math": Repo("ops-math", args.ops_math)}
    if args.ops_transformer:
        repos["ops-transformer"] = Repo("ops-transformer", args.ops_transformer)
    table = build(repos, bound_ops())
    Path(args.out).write_text(dump(table), encoding="utf-8")
    incomplete = [op for op, r in table["ops"].items() if "note" in r]
    print(f"{len(table['ops'])} operators, {len(incomplete)} with a note: {', '.join(incomplete)}")


if __name__ == "__main__":
    main()
