"""`report.md`: the comparison as a reader wants it, from `results.json`: the
marks at a glance, each task's floor (its non-neural baselines, the random
floor, the best system, its truncation and the smallest effect it can
detect), what this tier cannot show and why, whether every arm trained, the
setup, then each paper's figures beside ours with every ordering's test."""

import math

from comparisons.papers import COMPARISONS
from comparisons.verdict import ALPHA, HOLDS, REVERSED, UNDEFINED, WITHIN_NOISE
from demo.progress import format_seconds

NOT_TESTABLE, UNINFORMATIVE, GATED, NOT_RUN = "n/t", "u", "g", "—"
STATUS_MARK = {"not_testable": NOT_TESTABLE, "uninformative": UNINFORMATIVE, "gated": GATED, "not_run": NOT_RUN}


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _number(value, digits=1):
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _score(score, digits=1):
    if not score or not score.get("n"):
        return "—"
    if score["n"] == 1:
        return _number(score["mean"], digits)
    return f"{_number(score['mean'], digits)} ± {_number(score['sd'], digits)}"


def _mark(check):
    return check["mark"] if check["status"] == "tested" else STATUS_MARK[check["status"]]


def _task_title(results, task):
    return results["tasks"][task]["title"] if task in results["tasks"] else "held-out LM loss"


def _labels():
    return {arm: label for comparison in COMPARISONS for arm, label in comparison.arms}


def _ordering(check, labels):
    return (f"{labels.get(check['ahead'], check['ahead'])} {'>' if check['higher_is_better'] else '<'} "
            f"{labels.get(check['behind'], check['behind'])}")


def _counts(results):
    checks = [c for comparison in results["comparisons"] for c in comparison["checks"]]
    tested = [c["mark"] for c in checks if c["status"] == "tested"]
    other = {status: sum(c["status"] == status for c in checks) for status in STATUS_MARK}
    return (f"Orderings tested: {len(tested)} ({results['tests']} with a test statistic), Holm-adjusted at "
            f"α = {ALPHA} over all of them: **{tested.count(HOLDS)} {HOLDS}** (significant, the paper's sign), "
            f"**{tested.count(WITHIN_NOISE)} {WITHIN_NOISE}** (no significant difference), "
            f"**{tested.count(REVERSED)} {REVERSED}** (significant, against the paper), {tested.count(UNDEFINED)} "
            f"{UNDEFINED} (nothing to test: an undefined score or no spread). Not tested: "
            f"{other['not_testable']} {NOT_TESTABLE} (not expected at this tier's scale, declared beforehand), "
            f"{other['uninformative']} {UNINFORMATIVE} (on a task no pretrained system lifts above its "
            f"non-neural baselines), {other['gated']} {GATED} (an arm every run of which failed the "
            f"trainability gate), {other['not_run']} {NOT_RUN} (an arm not run at this tier).")


def _at_a_glance(results):
    labels = _labels()
    columns = [t for t, r in results["tasks"].items() if r.get("available")] + ["held_out_lm"]
    rows = []
    for comparison, judged in zip(COMPARISONS, results["comparisons"]):
        marks = {}
        for check in judged["checks"]:
            marks.setdefault(_ordering(check, labels), {})[check["task"]] = _mark(check)
        rows += [[comparison.name, ordering, *(by_task.get(t, "") for t in columns)]
                 for ordering, by_task in marks.items()]
    used = [i for i, _ in enumerate(columns) if any(row[2 + i] for row in rows)]
    return _table(["comparison", "ordering", *(_task_title(results, columns[i]) for i in used)],
                  [row[:2] + [row[2 + i] for i in used] for row in rows])


def _floors(results):
    """Each task: baselines, the random floor, the best pretrained system, truncation, MDE."""
    rows = []
    for name, task in results["tasks"].items():
        if not task.get("available"):
            continue
        baselines = ", ".join(f"{b['name']} {b['score']:.1f}" for b in task["baselines"]) or "none"
        random = results["scores"].get(f"random/{name}/final")
        finals = {k.split("/")[0]: s for k, s in results["scores"].items()
                  if k.split("/")[1:] == [name, "final"] and s.get("n")
                  and results["systems"][k.split("/")[0]]["weights_of"]}
        best = max(finals.items(), key=lambda item: item[1]["mean"], default=None)
        cut = ", ".join(f"{family} {100 * share:.0f}%" for family, share in task["truncation"].items()
                        if share is not None) or "—"
        effect = results["minimum_effects"].get(name, {})
        rows.append([task["title"], task["metric"], baselines, _score(random),
                     f"{results['systems'][best[0]]['title']} {_score(best[1])}" if best else "—", cut,
                     f"{_number(effect.get('mde'))} / {_number(effect.get('mde_strictest'))}",
                     "yes" if task["informative"] else "**no**"])
    return _table(["task", "metric", "non-neural baselines", "random init", "best pretrained", "dev cut at the "
                   "tier's length", "detectable gap (one test / strictest Holm step)", "informative"], rows)


def _not_testable(results):
    found = {}
    labels = _labels()
    for judged in results["comparisons"]:
        for c in judged["checks"]:
            if c["status"] == "not_testable":
                found.setdefault(c["why"], []).append(f"{_ordering(c, labels)} ({_task_title(results, c['task'])})")
    return [f"- {', '.join(dict.fromkeys(orderings))}: {why}." for why, orderings in found.items()]


def _training(results):
    """Did every arm train: pretraining losses per seed; fine-tuning runs failed by the gate, retried."""
    runs = [(s["title"], s, s) for s in results["systems"].values() if s["steps"]]
    runs += [(f"{s['title']}, equal-steps run", s["equal_steps_run"], s) for s in results["systems"].values()
             if s.get("equal_steps_run")]
    rows = [[title, run["steps"] or "—",
             ", ".join(_number(v, 3) for v in run["final_lm_loss"] if v is not None) or "—",
             ", ".join(_number(v, 3) for v in run["held_out_lm_loss"]) or "—",
             _number(system.get("unigram_prior"), 3)]
            for title, run, system in runs]
    failed = {k: s for k, s in results["scores"].items() if s["failed_runs"] or s["retried_runs"]}
    lines = [_table(["system", "steps", "last logged training LM loss, per seed", "held-out LM loss, per seed",
                     "unigram prior"], rows), "",
             "The unigram prior is the held-out loss of an LM that knows word frequencies only (nats per "
             "predicted token, the family's own tokens): a system not well below it has not yet learnt to use "
             "context. (A masked LM's loss counts its masked tokens, without BERT's next-sentence loss; ELMo's is the "
             "mean of its two directions.)", ""]
    if failed:
        lines += ["Fine-tuning runs the trainability gate failed (training loss not below 0.9 of the label "
                  "prior's, or a score on its own training data short of half the way from the constant "
                  "prediction's to a perfect fit) and retried with the next learning rate that trained on the "
                  "selection slice, or failed at every rate tried:", "",
                  _table(["arm / task", "retried", "failed at every rate tried",
                          "failed runs' dev / train score at the last rate tried (not scored)", "learning rates tried"],
                         [[k, s["retried_runs"], s["failed_runs"],
                           ", ".join(f"{_number(dev, 1)} / {_number(train, 1)}" for dev, train in s["failed_scores"]),
                           _rates(s["learning_rates"])]
                          for k, s in sorted(failed.items())])]
    else:
        lines.append("Every fine-tuning run passed the trainability gate at its arm's chosen learning rate.")
    return lines


def _rates(rates):
    return ", ".join(f"{lr:g}" for lr in rates)


def _setup(results):
    t = results["settings"]
    corpus, budget = results["corpus"], results["budget"]
    scaled = "" if budget["scale"] == 1 else f", scaled by {budget['scale']:.3f} to fit the time allowance"
    vocab = ", ".join(f"{family} {v['tokens']} (asked {v['requested']})" for family, v in results["vocabulary"].items())
    size = t["size"]
    task_sizes = {name: task_size for name, task_size in t["tasks"].items()
                  if results["tasks"].get(name, {}).get("available")}
    own_rates = "".join(f" ({_task_title(results, name)}: {_rates(task_size['learning_rates'])})"
                        for name, task_size in task_sizes.items() if task_size.get("learning_rates"))
    epochs = ", ".join(f"{_task_title(results, name)} {task_size['epochs']:g} epochs"
                       for name, task_size in task_sizes.items())
    equal = (f"the equal-steps runs {budget['equal_steps']} steps ({', '.join(budget['equal_runs']) or 'none'} "
             "pretrained again for them)" if budget["equal_steps"] else "no equal-steps view at this tier")
    return [
        "## Setup", "",
        f"- Corpus (lower-cased): {corpus['corpus']['documents']} documents, {corpus['corpus']['sentences']} "
        f"sentences, {corpus['corpus']['bytes'] / 1e6:.2f} MB ({results['sources']}); held out (scored, never "
        f"pretrained on; the built tasks' source): {corpus['held_out']['documents']} documents, "
        f"{corpus['held_out']['bytes'] / 1e6:.2f} MB.",
        f"- Vocabulary tokens: {vocab}.",
        f"- Model: {size['layers']} layers of {size['hidden']} ({size['heads']} heads, feed-forward "
        f"{size['intermediate']}); smaller model (Table 6): {t['small_size']['layers']} layer(s); sequences of "
        f"{t['seq_length']} tokens, {t['predictions']} predicted per sequence by the masked and permutation LMs, "
        f"batch {t['batch']}, peak learning rate {t['learning_rate']}, {t['pretraining_seeds']} pretraining "
        "seeds a system, each family with its original's optimizer.",
        f"- Budget: {budget['flops']:.3g} training FLOPs per system (the reference's {t['reference_steps']} "
        f"steps{scaled}); {equal}.",
        f"- Fine-tuning: learning rate chosen per arm and task from {_rates(t['learning_rates'])}{own_rates} "
        f"on a {t['selection_fraction']:.0%} slice of the task's train subset (never its dev set); then "
        f"{t['seeds']} fine-tuning seeds per pretraining seed on the whole train subset ({epochs}), batch "
        f"{t['fine_tuning_batch']}; feature-based BiLSTMs (BERT's rows, ELMo's every task) of {t['lstm_units']} "
        f"units a direction; feature-based rows: {', '.join(t['feature_layers']) or 'none'}.",
        f"- Host: {results['host']}.",
    ]


def _comparison(comparison, judged, results):
    labels = dict(comparison.arms)
    shown = list(dict.fromkeys(c["task"] for c in judged["checks"]))
    lines = [f"## {comparison.title}", "", "The paper:", "", comparison.paper, ""]
    rows = []
    for arm, label in comparison.arms:
        cells = []
        for task in shown:
            if task == "held_out_lm":
                losses = results["systems"].get(arm, {}).get("held_out_lm_loss", [])
                cells.append(", ".join(_number(v, 3) for v in losses) or "—")
            else:
                cells.append(_arm_score(results, arm, task))
        rows.append([label, *cells])
    titles = [_task_title(results, t) for t in shown]
    lines += ["Here (mean ± sd over pretraining seeds, each the mean of its fine-tuning seeds):", "",
              _table(["", *titles], rows) if shown else "No task of this comparison was run.", ""]
    if judged["checks"]:
        lines += [_table(["ordering", "task", "mark", "gap", "p (Holm)"],
                         [[_ordering(c, labels), _task_title(results, c["task"]), _mark(c),
                           f"{c['gap']:+.2f} ± {_number(c['se'], 2)}" if "gap" in c else "",
                           f"{_number(c.get('p'), 3)} ({_number(c.get('p_holm'), 3)})" if "p" in c else ""]
                          for c in judged["checks"]]), ""]
    return lines


def _arm_score(results, arm, task):
    if "+" in arm:
        system, layers = arm.split("+", 1)
        key = f"{system}/{task}/features_{layers}"
    elif "@" in arm:
        system, point = arm.split("@", 1)
        key = f"{system}/{task}/{point}"
        if key not in results["scores"] and point == "equal":
            key = f"{system}/{task}/final"
    else:
        key = f"{arm}/{task}/final"
    return _score(results["scores"].get(key))


def write_report(results):
    """The Markdown text of `report.md`."""
    judged = {c["key"]: c for c in results["comparisons"]}
    lines = [
        "# The papers' comparisons in miniature", "",
        f"{results['date']}, tier `{results['tier']}`: `{results['command']}`. "
        f"Wall time {format_seconds(results['total_seconds'])} (this run's share: "
        f"{format_seconds(results['this_run_seconds'])}; the runs' own times add up to "
        f"{format_seconds(results['unit_seconds'])}, {results['settings']['concurrent_runs']} at a time).", "",
        _counts(results), "", _at_a_glance(results), "",
        "## The tasks' floors", "",
        "A task is informative when some pretrained system's mean is above its best non-neural baseline "
        "(scikit-learn, on the same subsets); on an uninformative task no ordering is tested. The detectable "
        "gap is the difference a test finds with 80% power, from the pooled spread of the pretrained arms "
        "over pretraining seeds.", "",
        _floors(results), "",
        "## What this tier cannot show", "",
        "Declared before running (`comparisons/papers.py`): published small-budget work does not expect these "
        "orderings at this scale, so they are shown but neither tested nor counted.", "",
        *_not_testable(results), "",
        "## Did every arm train", "", *_training(results), "",
        *_setup(results), "",
    ]
    for comparison in COMPARISONS:
        lines += _comparison(comparison, judged[comparison.key], results)
    lines += ["## Plots", "", "![scores](plots/scores.png) ![budget](plots/budget.png)", ""]
    return "\n".join(lines)
