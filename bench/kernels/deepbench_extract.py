#!/usr/bin/env python3
# Copies DeepBench's measured training convolutions and GEMMs out of its result workbooks into
# bench/kernels/published/deepbench_conv.csv and deepbench_gemm.csv (sources: SOURCES.md there), which
# bench/kernels/conv_fit.py reads. Run once by hand on a checkout of baidu-research/DeepBench:
#   bench/kernels/deepbench_extract.py PATH_TO_DEEPBENCH
# An .xlsx is a zip of XML sheets; Python's standard library reads it. Values are copied as the sheets hold them
# (milliseconds); rows a pass has no time for ("N/A*": a first layer's data gradient) keep an empty cell.
import os
import re
import sys
import xml.etree.ElementTree as ET
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_csv  # noqa: E402

OUT = os.path.join(here, "published")
NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
# Workbook (results/train/DeepBench_NV_<name>.xlsx) -> the GPU it ran on, as its Specs sheet names it.
WORKBOOKS = ["V100", "P100", "T4", "1080Ti", "TitanXp"]


def sheets(path):
    """Each sheet of the workbook as a list of rows, each a dict from column letters to cell text."""
    z = zipfile.ZipFile(path)
    shared = []
    if "xl/sharedStrings.xml" in z.namelist():
        for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", NS):
            shared.append("".join(t.text or "" for t in si.iter("{%s}t" % NS["m"])))
    book = ET.fromstring(z.read("xl/workbook.xml"))
    targets = {r.get("Id"): r.get("Target") for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))}
    out = {}
    for sheet in book.find("m:sheets", NS):
        target = targets[sheet.get(REL)].lstrip("/").replace("xl/", "")
        rows = []
        for row in ET.fromstring(z.read("xl/" + target)).iter("{%s}row" % NS["m"]):
            cells = {}
            for c in row.findall("m:c", NS):
                col = re.match(r"[A-Z]+", c.get("r")).group()
                v = c.find("m:v", NS)
                if v is None:
                    inline = c.find("m:is", NS)
                    text = "".join(t.text or "" for t in inline.iter("{%s}t" % NS["m"])) if inline is not None else ""
                else:
                    text = shared[int(v.text)] if c.get("t") == "s" else v.text
                cells[col] = text
            rows.append(cells)
        out[sheet.get("name")] = rows
    return out


def number(text):
    try:
        return repr(float(text))
    except (TypeError, ValueError):
        return ""


def section(rows, title):
    """The data rows under the sheet's section `title` (column A), up to the next section."""
    inside = False
    for r in rows:
        if r.get("A", "").startswith(title):
            inside = True
            continue
        if inside and r.get("A"):
            return
        if inside:
            yield r


def precision(sheet):
    return "fp32" if "FP32" in sheet else "fp16"


def main(root):
    conv_rows, gemm_rows = [], []
    for name in WORKBOOKS:
        book = sheets(os.path.join(root, "results", "train", f"DeepBench_NV_{name}.xlsx"))
        specs = {r.get("A"): r.get("B") for r in book.get("Specs", [])}
        gpu, cudnn, cuda = specs.get("GPU Model", name), specs.get("Cudnn Version", ""), specs.get("CUDA Version", "")
        for sheet, rows in book.items():
            if sheet == "Specs":
                continue
            for r in section(rows, "Convolution"):
                if not number(r.get("C")) or not number(r.get("N")):
                    continue
                conv_rows.append([gpu, sheet, precision(sheet), r.get("B", "")] +
                                 [int(float(r[c])) for c in "CDEFGHIJKLMRS"] +
                                 [number(r.get(c)) for c in "NOP"] + [r.get("X", ""), cuda, cudnn])
            for r in section(rows, "Dense Matrix"):
                if not number(r.get("C")) or not number(r.get("I")):
                    continue
                gemm_rows.append([gpu, sheet, precision(sheet), r.get("B", "")] +
                                 [int(float(r[c])) for c in "CDE"] + [r.get("F", ""), r.get("G", ""),
                                                                      number(r.get("I")), cuda])
    write_csv(os.path.join(OUT, "deepbench_conv.csv"),
              ["gpu", "sheet", "precision", "app", "W", "H", "C", "N", "K", "S", "R", "pad_w", "pad_h", "stride_w",
               "stride_h", "P", "Q", "fwd_ms", "dgrad_ms", "wgrad_ms", "fwd_algorithm", "cuda", "cudnn"], conv_rows)
    write_csv(os.path.join(OUT, "deepbench_gemm.csv"),
              ["gpu", "sheet", "precision", "app", "M", "N", "K", "a_transpose", "b_transpose", "ms", "cuda"], gemm_rows)
    print(f"deepbench_extract.py: {len(conv_rows)} convolutions, {len(gemm_rows)} GEMMs")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bench/kernels/deepbench_extract.py PATH_TO_DEEPBENCH_CHECKOUT")
    sys.exit(main(sys.argv[1]))
