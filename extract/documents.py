"""An API document (``docs/aclnn*.md``) read as data: the product blocks, the prototypes, and per API
its parameter table, the per-product dtype overrides in prose below it, and its error table."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from aclnn_conformance.extract.cpp import match_close, split_args

# the documents' npu="..." tags -> product ids of spec.products
NPU_TAGS = {"950": "ascend950", "A3": "atlas-a3", "910b": "atlas-a2", "310b": "atlas-200i-500-a2",
            "310p": "atlas-inference", "910": "atlas-training"}
# the documents' dtype words -> aclDataType names of spec.enums
DTYPE_WORDS = {"FLOAT": "FLOAT", "FLOAT32": "FLOAT", "FP32": "FLOAT", "FLOAT16": "FLOAT16", "FP16": "FLOAT16",
               "BFLOAT16": "BF16", "BF16": "BF16", "DOUBLE": "DOUBLE", "FLOAT64": "DOUBLE",
               "INT8": "INT8", "INT16": "INT16", "INT32": "INT32", "INT64": "INT64", "UINT8": "UINT8",
               "UINT16": "UINT16", "UINT32": "UINT32", "UINT64": "UINT64", "BOOL": "BOOL",
               "COMPLEX32": "COMPLEX32", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128",
               "HIFLOAT8": "HIFLOAT8", "FLOAT8_E4M3FN": "FLOAT8_E4M3FN", "FLOAT8_E5M2": "FLOAT8_E5M2",
               "FLOAT8_E8M0": "FLOAT8_E8M0", "INT4": "INT4", "STRING": "STRING"}
FORMAT_WORDS = ("ND", "NCHW", "NHWC", "HWCN", "NDHWC", "NCDHW", "NCL", "NC1HWC0", "FRACTAL_NZ",
                "FRACTAL_Z", "NDC1HWC0", "FRACTAL_Z_3D", "NC")
# prototype C types -> spec.params C kinds
C_TYPES = [(r"aclTensorList\s*\*", "tensor_list"), (r"aclTensor\s*\*", "tensor"),
           (r"aclScalarList\s*\*", "scalar_list"), (r"aclScalar\s*\*", "scalar"),
           (r"aclIntArray\s*\*", "int_array"), (r"aclBoolArray\s*\*", "bool_array"),
           (r"aclFloatArray\s*\*", "float_array"), (r"uint64_t\s*\*", "workspace_size"),
           (r"aclOpExecutor\s*\*\s*\*", "executor"), (r"\bdouble\b", "double"), (r"\bfloat\b", "float"),
           (r"\bint64_t\b", "int64"), (r"\bint32_t\b", "int64"), (r"\bbool\b", "bool"),
           # narrower integers are passed as int64 too (an integer argument is widened in its register on
           # the ABIs CANN runs on); the prototype's c_type stays in the record (matmul's int8_t cubeMathType)
           (r"\bint8_t\b", "int64"), (r"\bint16_t\b", "int64"), (r"\bint\b", "int64"),
           (r"\bchar\s*\*", "string"), (r"\baclDataType\b", "dtype")]


@dataclass(frozen=True)
class ProtoParam:
    name: str
    c_type: str
    c_kind: str            # "" when the type is none the suite knows


@dataclass(frozen=True)
class TableRow:
    name: str
    direction: str         # input | output | input/output
    usage: str
    dtypes: tuple[str, ...] | None     # None: the cell does not parse
    dtype_cell: str
    formats: tuple[str, ...] | None
    rank: tuple[int, int] | None       # (min, max); None: does not parse
    rank_cell: str
    noncontiguous: str     # yes | no | -
    line: int


@dataclass(frozen=True)
class ErrorRow:
    code: int
    text: str
    line: int


@dataclass
class ApiDoc:
    api: str
    path: str
    prototype: tuple[ProtoParam, ...] = ()
    prototype_line: int = 0
    rows: dict[str, TableRow] = field(default_factory=dict)
    overrides: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)  # product -> param|"*" -> dtypes
    override_lines: dict[str, int] = field(default_factory=dict)
    errors: list[ErrorRow] = field(default_factory=list)
    table_line: int = 0
    unparsed: list[str] = field(default_factory=list)


@dataclass
class Document:
    path: str
    apis: list[ApiDoc]
    supported: dict[str, bool]         # product -> the product block says supported
    products_line: int


_TAG = re.compile(r"<[^>]+>")


def _cell_text(cell: str) -> str:
    return html.unescape(_TAG.sub(" ", cell)).replace("\u3000", " ").strip()


def _rows(table: str, base_line: int, text: str, start: int) -> list[tuple[list[str], int]]:
    """Rows of an HTML table as cell texts (rowspans repeated down), with the line of each row."""
    out: list[tuple[list[str], int]] = []
    carry: dict[int, tuple[str, int]] = {}
    for m in re.finditer(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        cells_raw = re.findall(r"<t([dh])([^>]*)>(.*?)</t[dh]>", m.group(1), re.S)
        cells: list[str] = []
        col = 0
        queue = list(cells_raw)
        while queue or col in carry:
            if col in carry:
                value, left = carry[col]
                cells.append(value)
                carry[col] = (value, left - 1) if left > 1 else None
                if carry[col] is None:
                    del carry[col]
                col += 1
                continue
            if not queue:
                break
            _, attrs, content = queue.pop(0)
            value = _cell_text(content)
            span = re.search(r'rowspan="?(\d+)', attrs)
            if span and int(span.group(1)) > 1:
                carry[col] = (value, int(span.group(1)) - 1)
            cells.append(value)
            col += 1
        line = text.count("\n", 0, start + m.start()) + 1
        out.append((cells, line))
    return out


def parse_dtypes(cell: str) -> tuple[str, ...] | None:
    words = [w for w in re.split(r"[、,，/\s]+", cell.strip().rstrip("。")) if w]
    if not words or words == ["-"]:
        return None
    out = []
    for w in words:
        key = w.upper()
        if key not in DTYPE_WORDS:
            return None
        out.append(DTYPE_WORDS[key])
    return tuple(dict.fromkeys(out))


def parse_formats(cell: str) -> tuple[str, ...] | None:
    words = [w for w in re.split(r"[、,，/\s]+", cell.strip()) if w]
    if not words or any(w not in FORMAT_WORDS for w in words):
        return None
    return tuple(words)


def parse_rank(cell: str) -> tuple[int, int] | None:
    cell = cell.strip()
    m = re.fullmatch(r"(\d+)\s*[-~～]\s*(\d+)(?:维)?", cell)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.fullmatch(r"(?:不超过|不大于|小于等于|最大|最多)(\d+)维?", cell)
    if m:
        return 0, int(m.group(1))
    m = re.fullmatch(r"(\d+)(?:维)?", cell)
    if m:
        return int(m.group(1)), int(m.group(1))
    return None


def _direction(cell: str) -> str:
    return {"输入": "input", "输出": "output", "输入/输出": "input/output", "输入输出": "input/output",
            "输入|输出": "input/output"}.get(cell.replace(" ", ""), cell)


def parse_prototypes(text: str) -> dict[str, tuple[tuple[ProtoParam, ...], int]]:
    out = {}
    for m in re.finditer(r"aclnnStatus\s+(aclnn\w+)GetWorkspaceSize\s*\(", text):
        fence = text.find("```", m.end())   # the prototype's code block ends there: the rest is no C++
        prototype = text[m.start():fence if fence > 0 else len(text)]
        close = match_close(prototype, m.end() - 1 - m.start())
        params = []
        for raw in split_args(prototype[m.end() - m.start():close]) if close > 0 else ():
            raw = " ".join(raw.split())
            if not raw:
                continue
            pm = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$", raw)
            if not pm:
                continue
            ctype, name = pm.group(1).strip(), pm.group(2)
            kind = next((k for pat, k in C_TYPES if re.search(pat, ctype + " ")), "")
            params.append(ProtoParam(name, ctype, kind))
        out.setdefault(m.group(1), (tuple(params), text.count("\n", 0, m.start()) + 1))
    return out


def _products(text: str) -> tuple[dict[str, bool], int]:
    section = re.search(r"##\s*产品支持情况(.*?)(?=\n##\s)", text, re.S)
    out: dict[str, bool] = {}
    if not section:
        return out, 0
    body = section.group(1)
    for m in re.finditer(r'<!--\s*npu="([^"]+)"[^>]*-->(.*?)<!--\s*end', body, re.S):
        ok = "不支持" not in m.group(2) and "支持" in m.group(2) or "√" in m.group(2)
        for tag in m.group(1).split("|"):
            if tag.strip() in NPU_TAGS:
                out[NPU_TAGS[tag.strip()]] = ok
    return out, text.count("\n", 0, section.start()) + 1


def _overrides(section: str, base: int, text: str, names: list[str]) -> tuple[dict, dict]:
    """Per-product dtype lists in prose after the table: ``<!-- npu="..." -->`` blocks saying
    ``数据类型支持A、B`` (for every tensor) or ``x数据类型支持...`` (for one parameter)."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    lines: dict[str, int] = {}
    for m in re.finditer(r'<!--\s*npu="([^"]+)"[^>]*-->(.*?)<!--\s*end', section, re.S):
        block = _cell_text(m.group(2))
        for sm in re.finditer(r"(?:参数)?([A-Za-z]\w*)?[^。；\n]{0,12}?数据类型(?:仅)?支持([A-Z0-9_、,，\s]+)", block):
            dtypes = parse_dtypes(sm.group(2))
            if dtypes is None:
                continue
            who = sm.group(1) if sm.group(1) in names else "*"
            for tag in m.group(1).split(","):
                for t in tag.split("|"):
                    pid = NPU_TAGS.get(t.strip())
                    if pid:
                        out.setdefault(pid, {})[who] = dtypes
                        lines[pid] = text.count("\n", 0, base + m.start()) + 1
    return out, lines


def parse_document(path: str, text: str) -> Document:
    supported, products_line = _products(text)
    protos = parse_prototypes(text)
    heads = [(m.start(), m.group(1)) for m in re.finditer(r"(?m)^##\s*(aclnn\w+?)GetWorkspaceSize\s*$", text)]
    apis = []
    for i, (start, api) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        nxt = re.search(r"(?m)^##\s*aclnn\w+\s*$", text[start + 5:end])
        section_end = start + 5 + nxt.start() if nxt else end
        section = text[start:section_end]
        doc = ApiDoc(api, path)
        if api in protos:
            doc.prototype, doc.prototype_line = protos[api]
        tables = list(re.finditer(r"<table.*?</table>", section, re.S))
        names = [p.name for p in doc.prototype]
        for t in tables:
            rows = _rows(t.group(0), 0, text, start + t.start())
            if not rows:
                continue
            header = [c.replace(" ", "") for c in rows[0][0]]
            if header and header[0] == "参数名" and len(header) >= 8 and not doc.rows:
                doc.table_line = rows[0][1]
                for cells, line in rows[1:]:
                    if len(cells) < 8:
                        continue
                    name = re.sub(r"[（(].*$", "", cells[0]).strip()
                    dtypes = parse_dtypes(cells[4])
                    rank = parse_rank(cells[6])
                    doc.rows[name] = TableRow(
                        name, _direction(cells[1]), cells[3], dtypes, cells[4], parse_formats(cells[5]),
                        rank, cells[6], "yes" if "√" in cells[7] else "no" if "×" in cells[7] else "-", line)
                after = section[t.end():]
                stop = re.search(r"返回值", after)
                ov, ov_lines = _overrides(after[:stop.start()] if stop else after, start + t.end(), text, names)
                doc.overrides, doc.override_lines = ov, ov_lines
            elif header and header[0] in ("返回码", "返回值") and len(header) >= 3 and not doc.errors:
                for cells, line in rows[1:]:
                    if len(cells) >= 3 and re.fullmatch(r"\d{6}", cells[1].strip()):
                        doc.errors.append(ErrorRow(int(cells[1]), cells[2], line))
        if not doc.rows:
            doc.unparsed.append("parameter table")
        apis.append(doc)
    return Document(path, apis, supported, products_line)


def api_names_of(filename: str) -> list[str]:
    """``aclnnCelu&aclnnInplaceCelu.md`` -> [aclnnCelu, aclnnInplaceCelu]."""
    stem = filename[:-3] if filename.endswith(".md") else filename
    return [s for s in stem.split("&") if s.startswith("aclnn")]
