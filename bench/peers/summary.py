"""Summarises a run.sh log: per configuration, the 10th percentile and the
median of the wall time per iteration and the median CPU time per
iteration (µs), then the ratios of each peer to the best Go configuration
(peer wall p10 over Go wall p10; CPU medians in brackets)."""
import re
import statistics
import sys
from collections import defaultdict


def p10(v):
    v = sorted(v)
    return v[max(0, int(0.1 * (len(v) - 1)))]


def main():
    wall, cpu = defaultdict(list), defaultdict(list)
    loads = []
    for line in open(sys.argv[1]):
        if line.startswith("# round"):
            loads.append(float(line.split()[-1]))
            continue
        f = line.split()
        if f[0] == "go":
            name = re.sub(r"-\d+$", "", f[2])
            key = ("go " + f[1], name)
            ns = float(f[f.index("ns/op") - 1])
            c = float(f[f.index("cpu-ns/op") - 1])
            wall[key].append(ns / 1e3)
            cpu[key].append(c / 1e3)
        elif f[0] in ("torch", "torch2", "numpy"):
            key = (f[0], f[1])
            wall[key].append(float(f[2].split("=")[1]))
            cpu[key].append(float(f[3].split("=")[1]))
    print(f"rounds {len(loads)}, load {min(loads):.2f}–{max(loads):.2f}")
    print(f"{'configuration':60s} {'n':>3s} {'wall p10':>9s} {'wall med':>9s} {'cpu med':>9s}")
    for k in sorted(wall):
        print(f"{' '.join(k):60s} {len(wall[k]):3d} {p10(wall[k]):9.1f} {statistics.median(wall[k]):9.1f} {statistics.median(cpu[k]):9.1f}")
    for model, bench in (("logistic", "BenchmarkIteration/"), ("network", "BenchmarkIterationBNN/")):
        gos = {k: v for k, v in wall.items() if k[0].startswith("go") and k[1].startswith(bench)}
        for label in sorted({k[0] for k in gos}):
            mine = {k: v for k, v in gos.items() if k[0] == label}
            best = min(mine, key=lambda k: p10(mine[k]))
            onecpu = min(statistics.median(cpu[k]) for k in mine)
            for peer in ("torch", "torch2", "numpy"):
                pk = (peer, model)
                if pk not in wall:
                    continue
                print(f"{model}: {peer} / {label} ({best[1]}): wall p10 {p10(wall[pk]) / p10(mine[best]):.2f}× "
                      f"(cpu median {statistics.median(cpu[pk]) / onecpu:.2f}×)")


if __name__ == "__main__":
    main()
