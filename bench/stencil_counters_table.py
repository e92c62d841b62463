#!/usr/bin/env python3
"""One row per grid and block shape from what bench/stencil_counters.sh recorded: Nsight Compute's raw
CSV of every star25 launch of `examples/stencil3d --search`, the last launch of each shape kept (the
search launches a shape several times; the last one runs on a warm cache, as the timed ones do).

    bench/stencil_counters_table.py counters.csv NX NY NZ [NX NY NZ]... > table.csv

A launch is matched to its grid by its grid dimensions (the tiles that cover it), to its shape by its
block dimensions and the kernel's folding (star25<1, 0>: none; <2, 0>: 2 along y; <2, 1>: 2 along z).
Per update means per grid point: counters over NX*NY*NZ.
"""
import csv
import sys


def tiles(n, tile):
    return (n + tile - 1) // tile


def number(text):
    return float(text.replace(",", ""))


# The units the arithmetic below assumes: Nsight Compute's base units, which bench/stencil_counters.sh
# asks for (--print-units base); by default ncu scales each value to fit (usecond, Kbyte, Msector).
BASE_UNITS = {
    "gpu__time_duration.sum": "ns",
    "lts__t_sectors_srcunit_tex_op_read.sum": "sector",
    "lts__t_sectors_srcunit_tex_op_write.sum": "sector",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum": "sector",
    "dram__bytes_read.sum": "byte",
    "dram__bytes_write.sum": "byte",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "sector",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum": "sector",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "%",
    "l1tex__throughput.avg.pct_of_peak_sustained_active": "%",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "%",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "%",
}


def launches(path):
    lines = open(path).read().split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.DictReader(lines[start:]))
    # The first row under the header gives the units (no ID); a metric the CSV lacks fails where it is read.
    if not rows or rows[0]["ID"]:
        sys.exit(f"{path}: no units row under the header")
    for metric, unit in BASE_UNITS.items():
        if metric in rows[0] and rows[0][metric] != unit:
            sys.exit(f"{path}: {metric} is in {rows[0][metric]!r}, expected {unit!r} (ncu --print-units base)")
    return rows[1:]


def folding(kernel_name):
    fold, along_z = kernel_name.split("star25<", 1)[1].split(">", 1)[0].replace(" ", "").split(",")
    if int(fold) == 1:
        return 1, 1
    return (1, int(fold)) if along_z in ("1", "true") else (int(fold), 1)


def main(argv):
    if len(argv) < 4 or (len(argv) - 1) % 3:
        sys.exit(__doc__)
    grids = [tuple(int(v) for v in argv[i:i + 3]) for i in range(1, len(argv), 3)]
    last = {}
    for launch in launches(argv[0]):
        if "star25<" not in launch["Kernel Name"]:
            continue
        fy, fz = folding(launch["Kernel Name"])
        bx, by, bz = (int(number(launch[f"launch__block_dim_{a}"])) for a in "xyz")
        dims = tuple(int(number(launch[f"launch__grid_dim_{a}"])) for a in "xyz")
        for g in grids:
            if (tiles(g[0], bx), tiles(g[1], by * fy), tiles(g[2], bz * fz)) == dims:
                last[(g, (bx, by, bz, fy, fz))] = launch
    out = csv.writer(sys.stdout)
    out.writerow(["grid", "shape", "glups_ncu", "l2_read_bytes_per_update", "l2_write_bytes_per_update",
                  "l2_read_hit_rate", "dram_bytes_per_update", "l1_sectors_per_update", "l1_hit_rate",
                  "warps_active_pct", "l1_throughput_pct", "l2_throughput_pct", "dram_throughput_pct"])
    for (g, (bx, by, bz, fy, fz)), c in sorted(last.items()):
        points = g[0] * g[1] * g[2]
        value = lambda metric: number(c[metric])
        l2_read = value("lts__t_sectors_srcunit_tex_op_read.sum")
        l1_sectors = value("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        out.writerow([
            "x".join(map(str, g)), f"{bx}x{by}x{bz} fy{fy} fz{fz}",
            round(points / value("gpu__time_duration.sum"), 1),  # points per ns = GLup/s
            round(l2_read * 32 / points, 2),
            round(value("lts__t_sectors_srcunit_tex_op_write.sum") * 32 / points, 2),
            round(value("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum") / l2_read, 3),
            round((value("dram__bytes_read.sum") + value("dram__bytes_write.sum")) / points, 2),
            round(l1_sectors / points, 2),
            round(value("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum") / l1_sectors, 3),
            c["sm__warps_active.avg.pct_of_peak_sustained_active"],
            c["l1tex__throughput.avg.pct_of_peak_sustained_active"],
            c["lts__throughput.avg.pct_of_peak_sustained_elapsed"],
            c["dram__throughput.avg.pct_of_peak_sustained_elapsed"]])


if __name__ == "__main__":
    main(sys.argv[1:])
