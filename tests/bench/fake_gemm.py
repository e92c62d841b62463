#!/usr/bin/env python3
"""A stand-in for examples/gemm --search in the shared-tiling check's CPU test: the same arguments and
CSV columns, with chosen/best 5/6, tuned/best 1, default/best 2/3 and cuBLAS at 20 TFLOP/s on every
product."""
import sys

args = sys.argv[1:]
if "--search" not in args or "--csv" not in args:
    sys.exit("fake gemm: only --search with --csv")
shapes = [tuple(args[i + 1:i + 4]) for i, a in enumerate(args) if a == "--shape"]
with open(args[args.index("--csv") + 1], "w") as csv:
    csv.write("shape,m,n,k,kind,block_m,block_n,block_k,thread_m,thread_n,pad_a,threads,shared_bytes,registers,"
              "registers_estimated,carveout,resident_blocks,tflops,model_tflops,chosen,tuned,default_config,confirmed_tflops\n")
    for m, n, k in shapes:
        name = f"{m}x{n}x{k}"
        for bm, bn, bk, pad, carveout, rate, chosen, tuned, default in (
                (128, 128, 16, 4, 50, 10.0, 1, 0, 0), (128, 64, 8, 4, 50, 12.0, 0, 1, 0), (128, 128, 8, 0, -1, 8.0, 0, 0, 1)):
            csv.write(f"{name},{m},{n},{k},config,{bm},{bn},{bk},8,8,{pad},{bm * bn // 64},8320,120,120,{carveout},2,"
                      f"{rate},30,{chosen},{tuned},{default},{rate}\n")
        csv.write(f"{name},{m},{n},{k},cublas,,,,,,,,,,,,,19.5,,0,0,0,20.0\n")
        print(f"shape {name}")
