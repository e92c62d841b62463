#!/usr/bin/env python3
"""The shared-tiling check's summary: the stencil chooser's launch (carveout and block) and the SGEMM
helper's configuration against the best of everything searched, with the tuned short list, the
default launch and cuBLAS beside; a Markdown table on stdout (or --out FILE) and, with --svg PREFIX,
a picture per card and kind (PREFIX-stencil-<card>.svg, PREFIX-gemm-<card>.svg).

    bench/shared_tiling_summary.py [--out FILE] [--svg PREFIX] CARD:FILE.csv...

Each FILE.csv is what `examples/stencil3d --search --csv` or `examples/gemm --search --csv` writes
(told apart by their columns); CARD names the card it ran on. Ratios are of confirmed rates (the
chosen, tuned and default launches and the fastest ones timed again in turn); the one-pass ratio of
the chosen one is beside it. A grid or product whose chosen, tuned or default launch has no confirmed
rate is reported as incomplete, not left out. No plotting library is needed (plain SVG).
"""
import csv
import sys
from collections import OrderedDict

STENCIL_PICK, GEMM_PICK, GEMM_TUNED = 0.95, 0.90, 0.97  # the bars


def number(text):
    return float(text) if text not in ("", None) else None


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return None, rows
    if "glups" in rows[0] and "carveout" in rows[0]:
        return "stencil", rows
    if "tflops" in rows[0] and "kind" in rows[0]:
        return "gemm", rows
    raise SystemExit(f"{path}: neither a stencil3d nor a gemm search (columns {', '.join(rows[0])})")


def stencil_searches(card, rows):
    """One record per grid of a stencil3d --search CSV."""
    grids = OrderedDict()
    for r in rows:
        grids.setdefault(r["grid"], []).append(r)
    out = []
    for grid, rs in grids.items():
        launch = lambda r: (f"({r['x']},{r['y']},{r['z']})" + (" fold 2y" if r["fold_y"] == "2" else "") +
                            (" fold 2z" if r["fold_z"] == "2" else "") +
                            (" @driver" if r["carveout"] == "-1" else f" @{r['carveout']}%") + f" {r['resident_blocks']}blk")
        pick = lambda column: next((r for r in rs if r[column] == "1"), None)
        confirmed = [r for r in rs if number(r["confirmed_glups"])]
        chosen, tuned, default = pick("chosen"), pick("tuned"), pick("default_launch")
        rec = dict(card=card, kind="stencil", where=f"S={int(rs[0]['shared_bytes']) // 1024}K T={rs[0]['threads']}",
                   name=grid, chosen=launch(chosen) if chosen else "?", disagree=sorted(
                       {r["carveout"] for r in rs if r["api_resident_blocks"] not in ("", r["resident_blocks"])}))
        best = max(confirmed, key=lambda r: number(r["confirmed_glups"]), default=None)
        one_pass_best = max(number(r["glups"]) for r in rs)
        rec["best"] = launch(best) if best else "?"
        rec["best_rate"] = number(best["confirmed_glups"]) if best else None
        rec["one_pass"] = number(chosen["glups"]) / one_pass_best if chosen else None
        for key, r in (("chosen", chosen), ("tuned", tuned), ("default", default)):
            rate = number(r["confirmed_glups"]) if r else None
            rec[key + "_ratio"] = rate / rec["best_rate"] if rate and rec["best_rate"] else None
            rec[key + "_rate"] = rate
        rec["vs_default"] = (rec["chosen_rate"] / rec["default_rate"]
                             if rec["chosen_rate"] and rec["default_rate"] else None)
        out.append(rec)
    return out


def gemm_products(card, rows):
    """One record per product of a gemm --search CSV."""
    shapes = OrderedDict()
    for r in rows:
        shapes.setdefault(r["shape"], []).append(r)
    out = []
    for shape, rs in shapes.items():
        configs = [r for r in rs if r["kind"] == "config"]
        cublas = next((r for r in rs if r["kind"] == "cublas"), None)
        describe = lambda r: (f"{r['block_m']}x{r['block_n']}x{r['block_k']} {r['thread_m']}x{r['thread_n']} pad {r['pad_a']}"
                              + (" @driver" if r["carveout"] == "-1" else f" @{r['carveout']}%"))
        pick = lambda column: next((r for r in configs if r[column] == "1"), None)
        confirmed = [r for r in configs if number(r["confirmed_tflops"])]
        best = max(confirmed, key=lambda r: number(r["confirmed_tflops"]), default=None)
        chosen, tuned, default = pick("chosen"), pick("tuned"), pick("default_config")
        rec = dict(card=card, kind="gemm", where="SGEMM", name=shape, chosen=describe(chosen) if chosen else "?",
                   best=describe(best) if best else "?", best_rate=number(best["confirmed_tflops"]) if best else None)
        one_pass_best = max((number(r["tflops"]) for r in configs), default=None)
        rec["one_pass"] = number(chosen["tflops"]) / one_pass_best if chosen and one_pass_best else None
        for key, r in (("chosen", chosen), ("tuned", tuned), ("default", default)):
            rate = number(r["confirmed_tflops"]) if r else None
            rec[key + "_ratio"] = rate / rec["best_rate"] if rate and rec["best_rate"] else None
            rec[key + "_rate"] = rate
        rec["cublas"] = number(cublas["confirmed_tflops"]) or number(cublas["tflops"]) if cublas else None
        rec["vs_default"] = rec["chosen_rate"] / rec["default_rate"] if rec["chosen_rate"] and rec["default_rate"] else None
        out.append(rec)
    return out


def fmt(v, digits=3):
    return "missing" if v is None else f"{v:.{digits}f}"


def worst(records, key):
    values = [r[key] for r in records if r[key] is not None]
    return min(values) if values else None


def verdicts(records):
    """Per card and kind, what the issue asks, in a few lines."""
    lines = []
    for card in OrderedDict.fromkeys(r["card"] for r in records):
        stencil = [r for r in records if r["card"] == card and r["kind"] == "stencil"]
        gemm = [r for r in records if r["card"] == card and r["kind"] == "gemm"]
        if stencil:
            incomplete = sum(r["chosen_ratio"] is None or r["tuned_ratio"] is None or r["vs_default"] is None for r in stencil)
            at_bar = sum((r["chosen_ratio"] or 0) >= STENCIL_PICK for r in stencil)
            below_default = sum(r["vs_default"] is not None and r["vs_default"] < 1 for r in stencil)
            lines.append(f"- {card} stencil: {len(stencil)} searches ({incomplete} incomplete); the chooser's launch at "
                         f"{STENCIL_PICK} of the best (carveout x shape) or better on {at_bar}, worst "
                         f"{fmt(worst(stencil, 'chosen_ratio'))}; the tuned list worst {fmt(worst(stencil, 'tuned_ratio'))}; "
                         f"chosen / default launch worst {fmt(worst(stencil, 'vs_default'))} ({below_default} below 1)")
            for where in OrderedDict.fromkeys(r["where"] for r in stencil):
                group = [r for r in stencil if r["where"] == where]
                lines.append(f"  - {where}: {len(group)} grids, chosen worst {fmt(worst(group, 'chosen_ratio'))}, "
                             f"tuned worst {fmt(worst(group, 'tuned_ratio'))}, default worst {fmt(worst(group, 'default_ratio'))}, "
                             f"chosen/default worst {fmt(worst(group, 'vs_default'))}")
            disagree = sorted({(r["where"], c) for r in stencil for c in r["disagree"]})
            if disagree:
                lines.append("  - the occupancy API disagreed with the header's resident blocks at: " +
                             ", ".join(f"{w} carveout {c}" for w, c in disagree))
        if gemm:
            incomplete = sum(r["chosen_ratio"] is None or r["tuned_ratio"] is None for r in gemm)
            pick = sum((r["chosen_ratio"] or 0) >= GEMM_PICK for r in gemm)
            tuned = sum((r["tuned_ratio"] or 0) >= GEMM_TUNED for r in gemm)
            roof = [r["chosen_rate"] / r["cublas"] for r in gemm if r["cublas"] and r["chosen_rate"]]
            lines.append(f"- {card} SGEMM: {len(gemm)} products ({incomplete} incomplete); the helper's pick at {GEMM_PICK} of the "
                         f"best or better on {pick}, worst {fmt(worst(gemm, 'chosen_ratio'))}; the tuned list at {GEMM_TUNED} "
                         f"or better on {tuned}, worst {fmt(worst(gemm, 'tuned_ratio'))}; " +
                         (f"chosen / cuBLAS {min(roof):.2f} to {max(roof):.2f}" if roof else "no cuBLAS rate"))
    return lines


def table(records):
    lines = ["| card | kernel | grid / product | chosen | chosen/best | one pass | tuned/best | default/best | "
             "chosen/default | best | best rate | cuBLAS TFLOP/s |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in records:
        unit = "GLup/s" if r["kind"] == "stencil" else "TFLOP/s"
        lines.append(f"| {r['card']} | {r['where']} | {r['name']} | {r['chosen']} | {fmt(r['chosen_ratio'])} | "
                     f"{fmt(r['one_pass'])} | {fmt(r['tuned_ratio'])} | {fmt(r['default_ratio'])} | {fmt(r['vs_default'])} | "
                     f"{r['best']} | {fmt(r['best_rate'], 1)} {unit} | {fmt(r.get('cublas'), 2) if r['kind'] == 'gemm' else ''} |")
    return lines


def svg(records, path, title):
    width, height, left, top, bottom = max(480, 26 * len(records) + 120), 380, 60, 40, 150
    lo = 0.5
    y = lambda v: top + (1.0 - (max(min(v, 1.0), lo) - lo) / (1.0 - lo)) * (height - top - bottom)
    x = lambda i: left + (i + 0.5) * (width - left - 20) / max(1, len(records))
    marks = (("chosen_ratio", "#d62728", "chosen"), ("tuned_ratio", "#1f77b4", "tuned list"),
             ("default_ratio", "#7f7f7f", "default"))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="20" font-size="13">{title}</text>']
    for v in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0):
        dash = ' stroke-dasharray="4 3"' if v in (0.9, 0.95) else ""
        out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ccc"{dash}/>')
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
    for i, r in enumerate(records):
        label = f"{r['where']} {r['name']}" if r["kind"] == "stencil" else r["name"]
        out.append(f'<text transform="translate({x(i):.1f},{height - bottom + 12}) rotate(60)">{label}</text>')
        for j, (key, colour, _) in enumerate(marks):
            if r[key] is not None:
                out.append(f'<circle cx="{x(i) + (j - 1) * 5:.1f}" cy="{y(r[key]):.1f}" r="3.5" fill="{colour}"/>')
    for j, (_, colour, name) in enumerate(marks):
        out.append(f'<circle cx="{width - 250 + j * 80}" cy="16" r="4" fill="{colour}"/>'
                   f'<text x="{width - 242 + j * 80}" y="20">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    out_path, svg_prefix, inputs = None, None, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--out", "--svg") and i + 1 < len(argv):
            if argv[i] == "--out":
                out_path = argv[i + 1]
            else:
                svg_prefix = argv[i + 1]
            i += 2
        elif ":" in argv[i] and not argv[i].startswith("-"):
            card, path = argv[i].split(":", 1)
            inputs.append((card, path))
            i += 1
        else:
            raise SystemExit(f"{argv[i]!r}: expected CARD:FILE.csv, --out FILE or --svg PREFIX\n\n{__doc__}")
    if not inputs:
        raise SystemExit(__doc__)
    records = []
    for card, path in inputs:
        kind, rows = read(path)
        if kind == "stencil":
            records += stencil_searches(card, rows)
        elif kind == "gemm":
            records += gemm_products(card, rows)
        else:
            print(f"{path}: no rows (the search wrote nothing)", file=sys.stderr)
    lines = ["# Shared-tiling check", "", "Ratios of confirmed rates to the best confirmed one of all searched; "
             "chosen/default is the chosen launch's rate over the default launch's ((32, T/32, 1) left to the driver "
             "for the stencil, 128x128x8 8x8 unpadded for the SGEMM).", ""]
    lines += verdicts(records) + [""] + table(records)
    text = "\n".join(lines) + "\n"
    if out_path:
        with open(out_path, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    if svg_prefix:
        for card in OrderedDict.fromkeys(r["card"] for r in records):
            for kind in ("stencil", "gemm"):
                chosen = [r for r in records if r["card"] == card and r["kind"] == kind]
                if chosen:
                    svg(chosen, f"{svg_prefix}-{kind}-{card}.svg", f"{card}: {kind}, chosen / tuned / default over the best")


if __name__ == "__main__":
    main(sys.argv[1:])
