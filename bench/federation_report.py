#!/usr/bin/env python3
"""Writes the federation evaluation's report from the runs bench/federation_eval.sh left.

Usage: federation_report.py OUT_DIR [--limit S]
Reads OUT_DIR/runs/{summary,jobs,decisions,held}-FED-LLOAD-sSEED-POLICIES.csv (FED: dec32, dec64,
dec16, ww8; admissions-*.csv, the admission rows alone, where a decisions file was left out;
held-*.csv, each policy's placements with a plan and those held back, and the jobs behind them
where the evaluation counted them),
whatever parts ran. Every figure is over the run's measurement window (jobs submitted
past the first tenth of the trace up to the last submission). Every ratio carries a 95%
bootstrap interval: JCT ratios over the jobs both policies finished in the window (resampled
within each seed), throughput ratios over the seeds, decision-time ratios over the planner calls
(kind by kind: admission or placement, and the job's size).
A target counts as met only when the interval's conservative end meets it. Writes
OUT_DIR/README.md, OUT_DIR/figures.csv and OUT_DIR/*.svg (gnuplot); OUT_DIR/notes.md, written by
hand after reading a run, is included where it belongs. Standard library only.
"""
import csv
import glob
import os
import random
import re
import subprocess
import sys

OURS = "spinsearch"
PUBLISHED = ["genetic-dtfm", "ilp-oblivious", "greedy-atlas"]
SEARCHES = ["global-ilp", "genetic", "greedy", "first-fit"]
SLURM = ["slurm-alone", "slurm-federation"]
# Planner policies: their plans' predicted iteration times are our cost model's (the published
# baselines plan with their papers' models, then their plans are priced again with ours).
PLANNERS = [OURS, "oracle"] + SEARCHES + PUBLISHED
ORDER = SLURM + [OURS] + SEARCHES + PUBLISHED + ["oracle"]
TARGETS = {"jct": 1.3, "throughput": 1.25, "oracle": 1.02, "overhead": 20.0}
TARGET_LOADS = ("0.9", "1.2")
RESAMPLES = 2000
FED_NAMES = {"dec16": "decentralized, 16 sites", "dec32": "decentralized, 32 sites",
             "dec64": "decentralized, 64 sites", "ww8": "the 8-region example (worldwide-8)"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))]


def interval(stat, groups, rng):
    """95% percentile bootstrap of stat(groups'), each group resampled with replacement on its own."""
    draws = []
    for _ in range(RESAMPLES):
        draws.append(stat([[g[rng.randrange(len(g))] for _ in g] for g in groups]))
    return pct(draws, 0.025), pct(draws, 0.975)


def load_runs(out):
    """{(fed, load, seed): {policy: {"summary": row, "jobs": {id: row}, "decisions": [rows]}}}"""
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, "runs", "summary-*.csv"))):
        m = re.match(r"summary-(\w+)-L([\d.]+)-s(\d+)-(.+)\.csv$", os.path.basename(path))
        if not m:
            continue
        key, rest = (m.group(1), m.group(2), m.group(3)), m.group(4)
        base = os.path.join(out, "runs", "%s-" + f"{key[0]}-L{key[1]}-s{key[2]}-{rest}.csv")
        jobs = read(base % "jobs") if os.path.exists(base % "jobs") else []
        # A run's decisions, or its admissions alone where the full log was left out (the
        # repository keeps those of the large federations' runs only: megabytes each).
        decisions = next((read(base % k) for k in ("decisions", "admissions") if os.path.exists(base % k)), [])
        # The placements that found a plan and those held back, per policy: counted by the
        # evaluation beside the decisions file, which may be left out.
        held = {h["policy"]: h for h in read(base % "held")} if os.path.exists(base % "held") else {}
        for row in read(path):
            p = row["policy"]
            runs.setdefault(key, {})[p] = {
                "summary": row,
                "jobs": {j["id"]: j for j in jobs if j["policy"] == p},
                "decisions": [d for d in decisions if d["policy"] == p],
                "held": held.get(p)}
    return runs


def planner_calls_by_kind(decisions):
    """{(kind, job GPUs): [wall ms of each decision that called the planner]}; a log written before
    the `planner_calls` column counts every decision as a call."""
    out = {}
    for d in decisions:
        if d.get("planner_calls", "1") == "0":
            continue
        out.setdefault((d["kind"], d["gpus_max"]), []).append(fnum(d["wall_ms"]))
    return out


def window_jobs(run):
    s = run["summary"]
    lo, hi = fnum(s["window_start_s"]), fnum(s["window_end_s"])
    return {i: j for i, j in run["jobs"].items() if lo <= fnum(j["submit_s"]) <= hi}


def paired_jct(runs, fed, load, a, b):
    """Per seed, [(jct of a, jct of b)] over the window's jobs both finished."""
    groups = []
    for (f, l, s), by in sorted(runs.items()):
        if f != fed or l != load or a not in by or b not in by:
            continue
        wa, wb = window_jobs(by[a]), window_jobs(by[b])
        pairs = [(fnum(wa[i]["jct_s"]), fnum(wb[i]["jct_s"])) for i in wa
                 if i in wb and fnum(wa[i]["finish_s"]) > 0 and fnum(wb[i]["finish_s"]) > 0]
        if pairs:
            groups.append(pairs)
    return groups


def jct_ratio(groups):
    """sum of the first's JCTs / sum of the second's: the ratio of their mean JCTs."""
    num = sum(x for g in groups for x, _ in g)
    den = sum(y for g in groups for _, y in g)
    return num / den if den else float("nan")


def seeds_of(runs, fed, load, policy):
    return {s: by[policy]["summary"] for (f, l, s), by in runs.items() if f == fed and l == load and policy in by}


def fmt_ci(v, ci, f=".2f"):
    return f"{v:{f}}x [{ci[0]:{f}}, {ci[1]:{f}}]"


def svg(out, name, settings, n_series, data, using):
    """OUT/NAME from gnuplot: one series per index of DATA (titled by its first line), then DATA removed."""
    subprocess.run(["gnuplot"], text=True, check=True, input=f"""set terminal svg size 720,420 font 'sans,12' background '#ffffff'
set output '{out}/{name}'
{settings}
plot {using}for [i=0:{n_series - 1}] '{data}' index i using 1:2 with {'steps' if 'logscale x' in settings else 'linespoints'} lw 2 title columnheader(1)
""")
    os.remove(data)


def main():
    out = sys.argv[1]
    limit = sys.argv[sys.argv.index("--limit") + 1] if "--limit" in sys.argv else "0.3"
    rng = random.Random(1)   # the same runs give the same report
    runs = load_runs(out)
    if not runs:
        sys.exit(f"federation_report: no runs in {out}/runs (bench/federation_eval.sh makes them)")
    figures = []   # (federation, load, seed or "all", policy, metric, value, lo, hi)
    lines = []
    w = lines.append
    notes = {}
    notes_path = os.path.join(out, "notes.md")
    if os.path.exists(notes_path):
        # Hand-written sections, "## Title" each, placed by title below.
        text = open(notes_path).read()
        for block in re.split(r"^## ", text, flags=re.M)[1:]:
            title, _, body = block.partition("\n")
            notes[title.strip()] = body.strip()

    feds = sorted({k[0] for k in runs}, key=lambda f: ["dec32", "dec64", "ww8", "dec16"].index(f) if f in FED_NAMES else 9)
    w("# Federation evaluation\n")
    w("Regenerate with `bench/federation_eval.sh --part PART BUILD_DIR` (parts: main, searches, oracle, "
      "overhead, worldwide; each adds its runs to `runs/` and rewrites this report from all of them). "
      "Each run replays a Helios-shaped trace (`spiderflow simulate gen-trace`) under one policy: FIFO "
      "with EASY backfill, the WAN shared as the `fair` coflow scheduler says, each planner call "
      f"limited to {limit} s, each decision's wall time charged to the scheduler's clock "
      "(doc/simulate.md). **Offered load** is what the trace asks inside the measurement window "
      "(GPU-seconds from each job's submission at its run time alone, per GPU-second of the "
      "federation); **achieved** is the GPU utilisation the policy reached there. Figures are over the "
      "jobs submitted inside the window (past the first tenth of the trace, up to the last "
      "submission; they run to the end). Intervals are 95% bootstrap intervals; a target is met only "
      "when the interval's conservative end meets it.\n")
    if "Where the federations come from" in notes:
        w("## Where the federations come from\n")
        w(notes["Where the federations come from"] + "\n")

    # --- per federation and load: what each policy achieved -----------------------------------
    w("## Results\n")
    for fed in feds:
        loads = sorted({k[1] for k in runs if k[0] == fed}, key=float)
        for load in loads:
            keys = sorted(k for k in runs if k[0] == fed and k[1] == load)
            seeds = sorted({k[2] for k in keys}, key=int)
            pols = [p for p in ORDER if any(p in runs[k] for k in keys)]
            w(f"### {FED_NAMES.get(fed, fed)}, offered load {load}\n")
            w(f"Seeds {', '.join(seeds)}; means over the seeds that ran the policy, lowest and highest "
              "seed in brackets.\n")
            w("| policy | seeds | achieved GPU util. | jobs in window finished | avg JCT (h) | tokens/s (M) "
              "| cross-site | ms/decision | plans held back (jobs) |")
            w("|---|---|---|---|---|---|---|---|---|")
            for p in pols:
                ss = [runs[k][p]["summary"] for k in keys if p in runs[k]]

                def col(field, scale=1.0, f=".1f"):
                    v = [fnum(s[field]) * scale for s in ss]
                    m = sum(v) / len(v)
                    return f"{m:{f}}" + (f" ({min(v):{f}}-{max(v):{f}})" if len(v) > 1 else ""), m
                util, util_m = col("window_utilisation", 100, ".0f")
                jct, jct_m = col("window_avg_jct_s", 1 / 3600)
                thr, thr_m = col("window_tokens_per_s", 1e-6, ".2f")
                fin = sum(int(fnum(s["window_finished"])) for s in ss) / len(ss)
                inw = sum(int(fnum(s["window_jobs"])) for s in ss) / len(ss)
                cross = sum(fnum(s["cross_site"]) for s in ss) / len(ss)
                ms = sum(fnum(s["decision_ms_mean"]) for s in ss) / len(ss)
                # Placements that found a plan the scheduler did not take (waiting for a better
                # one): from decision logs that say so (`held`), where the run kept them.
                counts = [runs[k][p]["held"] for k in keys if p in runs[k] and runs[k][p]["held"]]
                planned = sum(int(h["placements_planned"]) for h in counts)
                held = f"{100 * sum(int(h['held']) for h in counts) / planned:.0f}%" if planned else "-"
                # The jobs behind those plans: a waiting job is planned again at every pass, so
                # the plans' share overstates how many jobs waited.
                with_jobs = [h for h in counts if h.get("jobs_planned") not in (None, "")]
                if with_jobs and len(with_jobs) == len(counts):
                    jobs = sum(int(h["jobs_planned"]) for h in with_jobs)
                    held += f" ({100 * sum(int(h['jobs_held']) for h in with_jobs) / jobs:.0f}% of jobs)" if jobs else ""
                w(f"| {p} | {len(ss)} | {util}% | {fin:.0f} of {inw:.0f} | {jct} | {thr} | {cross:.0f} | {ms:.2f} | {held} |")
                for metric, v in (("achieved_utilisation", util_m / 100), ("window_avg_jct_s", jct_m * 3600),
                                  ("window_tokens_per_s", thr_m * 1e6), ("decision_ms_mean", ms)):
                    figures.append((fed, load, "all", p, metric, v, "", ""))
            w("")

    # --- targets ------------------------------------------------------------------------------
    w("## Targets\n")
    w("| target | federation, load | ours | against | factor [95% interval] | target | met |")
    w("|---|---|---|---|---|---|---|")
    for fed in feds:
        if not fed.startswith("dec"):
            continue
        for load in TARGET_LOADS:
            keys = [k for k in runs if k[0] == fed and k[1] == load]
            if not keys or not any(OURS in runs[k] for k in keys):
                continue
            present = [p for p in PUBLISHED if any(p in runs[k] for k in keys)]
            if not present:
                continue
            # The best published baseline by its point estimate, then our ratio against it.
            by_jct = {p: jct_ratio(paired_jct(runs, fed, load, p, OURS)) for p in present}
            best = min(present, key=lambda p: by_jct[p])   # the lowest JCT against ours
            g = paired_jct(runs, fed, load, best, OURS)
            r, ci = jct_ratio(g), interval(jct_ratio, g, rng)
            met = ci[0] >= TARGETS["jct"]
            w(f"| avg JCT at least {TARGETS['jct']}x lower | {fed}, {load} | {OURS} | {best} (best published) | "
              f"{fmt_ci(r, ci)} lower | {TARGETS['jct']}x | {'yes' if met else 'no'} |")
            figures.append((fed, load, "all", OURS, f"jct_factor_vs_{best}", r, ci[0], ci[1]))
            # Throughput: over the seeds both ran, resampled as pairs.
            thr = {}
            for p in present:
                a, b = seeds_of(runs, fed, load, OURS), seeds_of(runs, fed, load, p)
                pairs = [(fnum(a[s]["window_tokens_per_s"]), fnum(b[s]["window_tokens_per_s"])) for s in a if s in b]
                thr[p] = pairs
            tbest = max(present, key=lambda p: sum(y for _, y in thr[p]) / max(1, len(thr[p])))
            pairs = thr[tbest]
            r = jct_ratio([pairs])
            ci = interval(jct_ratio, [pairs], rng) if len(pairs) > 1 else (r, r)
            met = ci[0] >= TARGETS["throughput"]
            w(f"| throughput at least {TARGETS['throughput']}x higher | {fed}, {load} | {OURS} | {tbest} (best published) | "
              f"{fmt_ci(r, ci)} higher | {TARGETS['throughput']}x | {'yes' if met else 'no'} |")
            figures.append((fed, load, "all", OURS, f"throughput_factor_vs_{tbest}", r, ci[0], ci[1]))
        for load in sorted({k[1] for k in runs if k[0] == fed}, key=float):
            g = paired_jct(runs, fed, load, OURS, "oracle")
            if not g:
                continue
            r, ci = jct_ratio(g), interval(jct_ratio, g, rng)
            met = ci[1] <= TARGETS["oracle"]
            w(f"| avg JCT within 2% of the oracle | {fed}, {load} | {OURS} | oracle | {fmt_ci(r, ci, '.3f')} the oracle's | "
              f"<= {TARGETS['oracle']}x | {'yes' if met else 'no'} |")
            figures.append((fed, load, "all", OURS, "jct_vs_oracle", r, ci[0], ci[1]))
    plain_means = []
    for (fed, load, seed), by in sorted(runs.items()):
        if fed != "dec64" or OURS not in by:
            continue
        ours_calls = planner_calls_by_kind(by[OURS]["decisions"])
        for ref in ("global-ilp", "genetic"):
            if ref not in by or not ours_calls:
                continue
            ref_calls = planner_calls_by_kind(by[ref]["decisions"])
            # Each policy's run asks its own questions (its queue evolves its own way), so the
            # factor compares planner calls kind by kind (admission or placement, job size) and
            # weighs both policies' means by the kinds' calls in the two runs together.
            kinds = sorted(set(ours_calls) & set(ref_calls))
            weight = [len(ours_calls[k]) + len(ref_calls[k]) for k in kinds]
            groups = [g for k in kinds for g in (ref_calls[k], ours_calls[k])]

            def mixed_mean(groups, side):   # side 0: ref's, 1: ours
                return sum(wk * sum(groups[2 * i + side]) / len(groups[2 * i + side])
                           for i, wk in enumerate(weight)) / sum(weight)

            def ratio(groups):
                return mixed_mean(groups, 0) / max(1e-9, mixed_mean(groups, 1))
            ref_mean, ours_mean = mixed_mean(groups, 0), mixed_mean(groups, 1)
            r, ci = ref_mean / max(1e-9, ours_mean), interval(ratio, groups, rng)
            met = ci[0] >= TARGETS["overhead"]
            w(f"| mean planner call at least {TARGETS['overhead']:.0f}x faster | {fed}, {load} (seed {seed}) | "
              f"{OURS} {ours_mean:.1f} ms | {ref} {ref_mean:.1f} ms | {fmt_ci(r, ci, '.1f')} lower | "
              f"{TARGETS['overhead']:.0f}x (aim 100x) | {'yes' if met else 'no'} |")
            figures.append((fed, load, seed, OURS, f"overhead_factor_vs_{ref}", r, ci[0], ci[1]))
            own = [fnum(d["wall_ms"]) for d in by[OURS]["decisions"]]
            their = [fnum(d["wall_ms"]) for d in by[ref]["decisions"]]
            plain_means.append(f"{OURS} {sum(own) / len(own):.1f} ms against {ref} {sum(their) / len(their):.1f} ms "
                               f"({sum(their) / len(their) / max(1e-9, sum(own) / len(own)):.1f}x)")
    w("")
    if plain_means:
        w("Decision time is each planner call's wall time, kind by kind (admission or placement, "
          "and the job's GPUs), both policies' means weighed by the calls of that kind in the two runs; "
          "answers from a policy's cache (the same question on the same free GPUs) are left out "
          "(the decisions CSV's `planner_calls` is 0). Over every decision of each run as it came, "
          "lookups included, the means read " + "; ".join(plain_means) + ": each run asks other "
          "questions, so those do not compare.\n")
    if "Targets" in notes:
        w(notes["Targets"] + "\n")

    # --- against what sites run today ------------------------------------------------------------
    w("## Against what sites run today\n")
    w("Average JCT over the window's jobs both finished, Slurm's / ours (above 1: ours is lower).\n")
    w("| federation, load | against slurm-alone | against slurm-federation |")
    w("|---|---|---|")
    for fed in feds:
        for load in sorted({k[1] for k in runs if k[0] == fed}, key=float):
            cells = []
            for p in SLURM:
                g = paired_jct(runs, fed, load, p, OURS)
                if g:
                    r, ci = jct_ratio(g), interval(jct_ratio, g, rng)
                    cells.append(fmt_ci(r, ci))
                    figures.append((fed, load, "all", OURS, f"jct_factor_vs_{p}", r, ci[0], ci[1]))
                else:
                    cells.append("not run")
            if any(c != "not run" for c in cells):
                w(f"| {fed}, {load} | {cells[0]} | {cells[1]} |")
    w("")

    # --- decisions where the planners differ most ------------------------------------------------
    # Admissions: each job planned on the empty federation when it arrives, the same question to
    # every policy in every run of a trace; the predicted iteration times of the policies that
    # price with our cost model compare directly.
    spread = []
    for (fed, load, seed), by in runs.items():
        adm = {}
        for p in PLANNERS:
            if p in by:
                for d in by[p]["decisions"]:
                    if d["kind"] == "admission" and d["plan"] and fnum(d["predicted_iteration_s"]) > 0:
                        adm.setdefault(d["job"], {})[p] = d
        for job, per in adm.items():
            if len(per) >= 2:
                t = {p: fnum(d["predicted_iteration_s"]) for p, d in per.items()}
                spread.append((max(t.values()) / min(t.values()), fed, load, seed, job, per))
    spread.sort(key=lambda x: -x[0])
    w("## Where the planners differ most\n")
    if not spread:
        w("No run with two policies of our cost model: nothing to compare.\n")
    else:
        seen = set()
        top = []
        for item in spread:
            # One per federation and job size: the same request on another trace is the same decision.
            shape = (item[1], item[5][next(iter(item[5]))]["gpus_max"])
            if shape in seen:
                continue
            seen.add(shape)
            top.append(item)
            if len(top) == 3:
                break
        w("The three admissions (a job planned on the empty federation as it arrives: the same "
          "question to every policy) whose iteration times under our cost model differ most between "
          f"the planner policies, one per federation and job size, out of {len(spread)} compared.\n")
        for k, (ratio, fed, load, seed, job, per) in enumerate(top, 1):
            d0 = next(iter(per.values()))
            w(f"{k}. **{fed}, load {load}, seed {seed}, job {job}** ({d0['gpus_max']} GPUs): slowest / fastest "
              f"{ratio:.2f}x")
            for p, d in sorted(per.items(), key=lambda x: fnum(x[1]["predicted_iteration_s"])):
                by = f", found by {d['found_by']}" if d.get("found_by") else ""
                w(f"    - {p}: {fnum(d['predicted_iteration_s']):.3f} s/iteration, `{d['plan']}` "
                  f"({fnum(d['wall_ms']):.1f} ms{', cut short' if d['capped'] == 'yes' else ''}{by})")
        w("")
    if "Where the planners differ most" in notes:
        w(notes["Where the planners differ most"] + "\n")

    # --- plots ---------------------------------------------------------------------------------
    plots = []
    for fed in feds:
        for load in sorted({k[1] for k in runs if k[0] == fed}, key=float):
            keys = sorted((k for k in runs if k[0] == fed and k[1] == load), key=lambda k: int(k[2]))
            first = keys[0]
            pols = [p for p in ORDER if p in runs[first]]
            if len(pols) < 2:
                continue
            data = os.path.join(out, f"jct-cdf-{fed}-L{load}.dat")
            with open(data, "w") as f:
                for p in pols:
                    v = sorted(fnum(j["jct_s"]) / 3600 for j in window_jobs(runs[first][p]).values() if fnum(j["finish_s"]) > 0)
                    f.write(f'"{p}"\n')
                    for i, x in enumerate(v):
                        f.write(f"{max(x, 1e-3):.4f} {(i + 1) / len(v):.4f}\n")
                    f.write("\n\n")
            name = f"jct-cdf-{fed}-L{load}.svg"
            svg(out, name, f"""set title 'JCT of the window jobs, {FED_NAMES.get(fed, fed)}, offered load {load} (seed {first[2]})'
set xlabel 'job completion time (h, log scale)'; set ylabel 'fraction of finished jobs'
set logscale x; set key right bottom; set grid""", len(pols), data, "")
            plots.append((f"JCT CDF, {fed}, load {load}", name))
    # Offered against achieved load, one point per policy and load (mean over seeds).
    for fed in feds:
        loads = sorted({k[1] for k in runs if k[0] == fed}, key=float)
        if len(loads) < 2:
            continue
        data = os.path.join(out, f"load-{fed}.dat")
        pols = [p for p in ORDER if any(p in runs[k] for k in runs if k[0] == fed)]
        with open(data, "w") as f:
            for p in pols:
                f.write(f'"{p}"\n')
                for load in loads:
                    u = [fnum(by[p]["summary"]["window_utilisation"]) for (fd, l, _), by in runs.items() if fd == fed and l == load and p in by]
                    if u:
                        f.write(f"{load} {sum(u) / len(u):.4f}\n")
                f.write("\n\n")
        name = f"achieved-load-{fed}.svg"
        svg(out, name, f"""set title 'Offered load and the GPU utilisation each policy achieved, {FED_NAMES.get(fed, fed)}'
set xlabel 'offered load in the window'; set ylabel 'achieved GPU utilisation in the window'
set xrange [0.5:1.3]; set yrange [0:1.3]; set key outside right top; set grid""", len(pols), data,
            "x title 'offered' dt 2 lc rgb '#888888', ")
        plots.append((f"offered and achieved load, {fed}", name))
    if plots:
        w("## Plots\n")
        for title, name in plots:
            w(f"![{title}]({name})\n")
    if "What a site should expect" in notes:
        w("## What a site should expect\n")
        w(notes["What a site should expect"] + "\n")

    with open(os.path.join(out, "figures.csv"), "w", newline="") as f:
        cw = csv.writer(f, lineterminator="\n")
        cw.writerow(["federation", "offered_load", "seed", "policy", "metric", "value", "ci_low", "ci_high"])
        for row in figures:
            cw.writerow([row[0], row[1], row[2], row[3], row[4], f"{row[5]:.6g}",
                         f"{row[6]:.6g}" if row[6] != "" else "", f"{row[7]:.6g}" if row[7] != "" else ""])
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
