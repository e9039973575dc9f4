"""`report.md`: the comparison as a reader wants it, from `results.json`: what
a small budget cannot show (first), the setup (corpus, sizes, FLOPs, steps,
seeds, host), then each paper's figures beside ours with the ✓/~/✗ of every
ordering, and the wall time."""

import math

from comparisons.arms import resolve
from comparisons.budget import Budget
from comparisons.papers import COMPARISONS
from comparisons.results import arm_values
from comparisons.verdict import HOLDS, REVERSED, UNDEFINED, WITHIN_NOISE, Summary
from demo.progress import format_seconds


def _flops(value):
    return "—" if value is None else f"{value:.3g}"


def _score(values, digits=1):
    if not values:
        return "—"
    s = Summary.of(values)
    return f"{s.mean:.{digits}f}" if s.n == 1 else f"{s.mean:.{digits}f} ± {s.sd:.{digits}f}"


def _size(size):
    return (f"{size['layers']} layers of {size['hidden']} ({size['heads']} heads, feed-forward "
            f"{size['intermediate']}, dropout {size['dropout']:g})")


def _check(check):
    if check["mark"] is None:
        return "—", "not run"
    noise = "no spread" if math.isnan(check["two_se"]) else f"2SE {check['two_se']:.2f}"
    return check["mark"], f"{check['gap']:+.2f} ({noise})"


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _setup(results, systems):
    t = results["settings"]
    corpus, budget = results["corpus"], results["budget"]
    scaled = "" if budget["scale"] == 1 else f", scaled by {budget['scale']:.3f} to fit the time allowance"
    vocab = ", ".join(f"{family} {v['tokens']} (asked {v['requested']})" for family, v in results["vocabulary"].items())
    lines = [
        "## Setup", "",
        f"- Corpus: {corpus['corpus']['documents']} documents, {corpus['corpus']['sentences']} sentences, "
        f"{corpus['corpus']['bytes'] / 1e6:.2f} MB ({results['sources']}); held out (scored, never pretrained "
        f"on; the next-sentence-choice set's source): {corpus['held_out']['documents']} documents, "
        f"{corpus['held_out']['bytes'] / 1e6:.2f} MB.",
        f"- Vocabulary tokens: {vocab}.",
        f"- Model: {_size(t['size'])}; smaller model (Table 6): {_size(t['small_size'])}; sequences of "
        f"{t['seq_length']} tokens, "
        f"{t['predictions']} predicted per sequence by the masked and permutation LMs (a left-to-right LM "
        f"predicts all {t['seq_length']}), batch {t['batch']}, peak learning rate {t['learning_rate']}, "
        "the runners' precision `auto` (bf16 where the CPU computes it natively, else float32).",
        f"- Budget: {_flops(budget['flops'])} training FLOPs per system (the reference's {t['reference_steps']} "
        f"steps{scaled}); "
        f"checkpoints every {budget['interval']} steps; the equal-steps view at step {budget['equal_steps']}.",
        f"- Fine-tuning: {t['seeds']} seeds per task (mean ± sample standard deviation; the seeds vary the "
        "fine-tuning, not the pretraining), batch "
        f"{t['fine_tuning_batch']}; feature-based rows: {', '.join(t['feature_layers']) or 'none'}.",
        f"- Host: {results['host']}.", "",
        _table(["system", "family", "steps", "FLOPs/step", "FLOPs", "pretraining wall",
                "held-out LM loss (perplexity)"],
               [[s["title"], s["family"], s["steps"] or "—", _flops(s["step_flops"]), _flops(s["flops"]),
                 format_seconds(s["pretraining_seconds"]) if s["pretraining_seconds"] else "—",
                 f"{s['held_out_lm_loss']:.3f} ({math.exp(s['held_out_lm_loss']):.1f})"
                 if s["held_out_lm_loss"] is not None else "—"]
                for s in (results["systems"][name] for name in systems)]), "",
        "Held-out LM losses compare within an objective only (a masked LM predicts 15% of tokens with both "
        "sides seen, a left-to-right LM every token from the left).", "",
        _table(["task", "metric", "train", "dev", "source"],
               [[t_["title"], t_["metric"], t_["counts"]["train"], t_["counts"]["dev"], "given"]
                if t_["available"] else [t_["title"], t_["metric"], "—", "—", "not given: left out"]
                for t_ in results["tasks"].values()]),
    ]
    return lines


def _ordering(comparison, check):
    labels = dict(comparison.arms)
    return f"{labels[check['ahead']]} {'>' if check['higher_is_better'] else '<'} {labels[check['behind']]}"


def _at_a_glance(results, tasks):
    """One row per ordering, one column per task: its mark."""
    columns = [*[name for name in tasks if results["tasks"][name]["available"]], "held_out_lm"]
    rows = []
    for comparison, judged in zip(COMPARISONS, results["comparisons"]):
        marks = {}
        for check in judged["checks"]:
            marks.setdefault(_ordering(comparison, check), {})[check["task"]] = check["mark"] or "—"
        rows += [[comparison.name, ordering, *(by_task.get(t, "") for t in columns)]
                 for ordering, by_task in marks.items()]
    columns = [c for c in columns if any(row[2 + columns.index(c)] for row in rows)]
    titles = [tasks[t].title if t in tasks else "held-out LM loss" for t in columns]
    full = [*[name for name in tasks if results["tasks"][name]["available"]], "held_out_lm"]
    return _table(["comparison", "ordering", *titles],
                  [row[:2] + [row[2 + full.index(c)] for c in columns] for row in rows])


def _comparison(comparison, judged, results, scores, entries, budget, tasks):
    run_tasks = {n: t for n, t in tasks.items() if results["tasks"][n]["available"]}
    if comparison.tasks == "steps_task":
        shown = [results["settings"]["steps_task"]] if results["settings"]["steps_task"] in run_tasks else []
    elif comparison.tasks == "all":
        shown = list(run_tasks)
    else:
        shown = [comparison.tasks] if comparison.tasks in run_tasks else []
    if any(o.tasks == "held_out_lm" for o in comparison.orderings):
        shown.append("held_out_lm")
    lines = [f"## {comparison.title}", "", "The paper:", "", comparison.paper, ""]
    if comparison.small_budget:
        lines += [f"At this budget: {comparison.small_budget}", ""]
    rows = []
    for arm, label in comparison.arms:
        system = resolve(arm, budget)[0]
        if system not in results["systems"]:
            rows.append([label] + ["not declared (no system)"] + [""] * (len(shown) - 1))
            continue
        rows.append([label] + [_score(arm_values(arm, task, budget, scores, entries), 3 if task == "held_out_lm" else 1)
                               for task in shown])
    titles = [tasks[t].title if t in tasks else "held-out LM loss" for t in shown]
    lines += ["Here:", "", _table(["", *titles], rows) if shown else "No task of this comparison was run.", ""]
    checks = judged["checks"]
    if checks:
        lines += [_table(["ordering", "task", "mark", "gap (noise)"],
                         [[_ordering(comparison, c), tasks[c["task"]].title if c["task"] in tasks
                           else "held-out LM loss", *_check(c)] for c in checks]), ""]
    return lines


def write_report(results, entries, scores, systems, tasks):
    """The Markdown text of `report.md`."""
    budget = Budget.from_json(results["budget"])
    judged = {c["key"]: c for c in results["comparisons"]}
    marks = [c["mark"] for comparison in results["comparisons"] for c in comparison["checks"] if c["mark"]]
    lines = [
        "# The papers' comparisons in miniature", "",
        f"{results['date']}, tier `{results['tier']}`: `{results['command']}`. "
        f"Wall time {format_seconds(results['total_seconds'])} (this run's share: "
        f"{format_seconds(results['this_run_seconds'])}; the runs' own times add up to "
        f"{format_seconds(results['unit_seconds'])}, fine-tuning runs going "
        f"{results['settings']['concurrent_runs']} at a time).", "",
        f"Orderings: {marks.count(HOLDS)} {HOLDS} (holds, gap above two standard errors), "
        f"{marks.count(WITHIN_NOISE)} {WITHIN_NOISE} (same sign, within noise), {marks.count(REVERSED)} "
        f"{REVERSED} (reversed), {marks.count(UNDEFINED)} {UNDEFINED} (a score undefined, e.g. the Pearson "
        f"correlation of constant predictions), of {len(marks)} checked (— : an arm not run).", "",
        _at_a_glance(results, tasks), "",
        "## What a small budget cannot show", "",
        "A null here is a finding, not a failure: these effects need more model, data or steps than this tier has.", "",
    ]
    lines += [f"- {c.name}: {c.small_budget}" for c in COMPARISONS if c.small_budget]
    lines += ["- Every effect: one pretraining run per system, so the spread shown is fine-tuning's alone; "
              "small models on small subsets sit close to their tasks' floors.", ""]
    lines += _setup(results, systems)
    lines.append("")
    for comparison in COMPARISONS:
        lines += _comparison(comparison, judged[comparison.key], results, scores, entries, budget, tasks)
    lines += ["## Plots", "", "![scores](plots/scores.png) ![steps](plots/steps.png) ![budget](plots/budget.png)", ""]
    return "\n".join(lines)

