#!/usr/bin/env python3
"""Fits the GEMM shape model of common/cost/gemm_efficiency.cpp to bench/gemm_shapes output.

    fraction of peak = E / (1 + c_m/m + c_n/n + c_k/k)

is linear in its inverse (1/f = 1/E + (c_m/E)/m + (c_n/E)/n + (c_k/E)/k), so an ordinary least
squares fit of 1/f needs no solver beyond the normal equations. Prints the constants and the
residuals; the constants are copied by hand into gemm_efficiency.cpp.

Usage: bench/fit_gemm_shapes.py [bench/results/gemm_shapes_h200.csv]
"""
import csv
import statistics
import sys


def least_squares(rows, targets):
    n = len(rows[0])
    # Normal equations [A^T A | A^T b], solved by Gauss-Jordan with partial pivoting.
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * t for r, t in zip(rows, targets))]
         for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [a - f * b for a, b in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/gemm_shapes_h200.csv"
    data = [(int(r["m"]), int(r["n"]), int(r["k"]), float(r["fraction_of_peak"])) for r in csv.DictReader(open(path))]
    x = least_squares([[1.0, 1.0 / m, 1.0 / n, 1.0 / k] for m, n, k, _ in data], [1.0 / f for *_, f in data])
    e = 1.0 / x[0]
    cm, cn, ck = (v * e for v in x[1:])
    print(f"rows {len(data)}: E = {e:.4f}, c_m = {cm:.1f}, c_n = {cn:.1f}, c_k = {ck:.1f}")
    rel = [e / (1 + cm / m + cn / n + ck / k) / f - 1 for m, n, k, f in data]
    print(f"relative error: mean {statistics.mean(rel):+.3f}, sd {statistics.pstdev(rel):.3f}, "
          f"mean |err| {statistics.mean(abs(r) for r in rel):.3f}, range {min(rel):+.3f} .. {max(rel):+.3f}")


if __name__ == "__main__":
    main()
