#!/usr/bin/env python3
"""A stand-in for examples/stencil3d --search in the shared-tiling check's CPU test: it takes the same
arguments and writes a CSV of the same columns with rates chosen so that every grid has chosen/best
0.9, tuned/best 1, default/best 0.8 (chosen/default 1.125). FAKE_FAIL=S:T makes the search of S shared
bytes and T threads fail after its first grid (exit 3)."""
import os
import sys

args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
if "--search" not in args or "--csv" not in args:
    sys.exit("fake stencil3d: only --search with --csv")
grids = [f"{args[i + 1]}x{args[i + 2]}x{args[i + 3]}" for i, a in enumerate(args) if a == "--grid"]
shared, threads = int(value("--shared-bytes")), int(value("--threads"))
columns = ("grid,shared_bytes,threads,carveout,resident_blocks,api_resident_blocks,l1_bytes,option_measured,front,"
           "x,y,z,fold_y,fold_z,glups,model_glups,model_l2_bytes,model_dram_bytes,layer_y,layer_z,fits_l1,"
           "l1_reuse_lost,chosen,tuned,default_launch,confirmed_glups")
with open(value("--csv"), "w") as csv:
    csv.write(columns + "\n")
    for n, grid in enumerate(grids):
        rows = [  # carveout, blocks, x, y, z, fold_z, one pass, chosen, tuned, default, confirmed
            (-1, 8, 32, threads // 64, 2, 2, 91.0, 1, 0, 0, 90.0),
            (25, 7, 64, threads // 128, 2, 2, 101.0, 0, 1, 0, 100.0),
            (-1, 8, 32, threads // 32, 1, 1, 79.0, 0, 0, 1, 80.0),
            (0, 1, 16, threads // 16, 1, 1, 20.0, 0, 0, 0, ""),
        ]
        for c, b, x, y, z, fz, rate, chosen, tuned, default, confirmed in rows:
            csv.write(f"{grid},{shared},{threads},{c},{b},{b},122880,1,1,{x},{y},{z},1,{fz},{rate},95,40,17,1,1,1,0,"
                      f"{chosen},{tuned},{default},{confirmed}\n")
        csv.flush()
        print(f"grid {grid} ({shared} B shared, {threads} threads)")
        print("  confirmed (5 launches, 7 rounds): chosen 90.0, best 100.0   confirmed chosen/best = 0.900")
        if os.environ.get("FAKE_FAIL") == f"{shared}:{threads}" and n == 0:
            sys.exit(3)
