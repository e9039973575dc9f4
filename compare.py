"""The papers' comparisons in miniature: every system pretrained on the same
corpus with the same training FLOPs and several seeds, fine-tuned on the same
tasks at a learning rate chosen on held-out training data, and each ordering
the papers report tested: ✓ (significantly the paper's way), ✗ (significantly
against it), ~ (no significant difference), or not tested where published
small-budget work does not expect it at the tier's scale.

    python compare.py --budget=cpu      # within an hour on an idle 2-core machine
    python compare.py --budget=gpu      # the same protocol larger, with MRPC and SQuAD
    python compare.py --budget=tiny     # seconds of pretraining: checks the pipeline (CI)

Writes `results.json`, `report.md` and `plots/` (PNG and SVG) under
`--output_dir`; a rerun of the same command resumes where a killed one stopped,
redoing nothing finished. With `../shared/data` beside the checkout (or the
flags below) the corpus is WikiText and the tasks' own training text, and the
tasks are GLUE's, CoNLL-2003's and SQuAD's with two built from held-out text;
on built-in data alone (the standard library's docstrings) it reports what
that data can show. docs/comparisons.md says more.
"""

import argparse
import dataclasses
import datetime
import json
import os
import shlex
import signal
import sys
import time

ROOT = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")


def parse_args(argv=None):
    from comparisons.tiers import TIERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", choices=sorted(TIERS), default="cpu", help="the tier: tiny, cpu or gpu")
    parser.add_argument("--output_dir", help="default: runs/compare_<budget>")
    parser.add_argument("--shared_data_dir", default=SHARED if os.path.isdir(SHARED) else "",
                        help="a folder laid out as ../shared/data (glue/, conll2003/, squad/, corpus/) that "
                             "the flags below default to; empty: built-in data only")
    parser.add_argument("--glue_data_dir", help="GLUE tasks' folders (SST-2/, STS-B/, MRPC/)")
    parser.add_argument("--conll_data_dir", help="CoNLL-2003's train.txt and dev.txt")
    parser.add_argument("--squad_file", help="a SQuAD v1.1 file, split by article into train and dev (gpu tier)")
    parser.add_argument("--wikitext_files", help="WikiText files (comma-separated) joining the built-in corpus")
    parser.add_argument("--corpus", help="your own corpus instead (one sentence per line, a blank line "
                                         "between documents)")
    parser.add_argument("--systems", help="comma-separated systems of those declared, or 'all' (default: the "
                                          "tier's)")
    parser.add_argument("--seeds", type=int, help="fine-tuning seeds per pretraining seed (default: the tier's)")
    parser.add_argument("--pretraining_seeds", type=int, help="pretraining runs per system (default: the tier's)")
    parser.add_argument("--seed", type=int, default=12345, help="seed of data, initialisation and order")
    parser.add_argument("--pretraining_seconds", type=float,
                        help="time the pretraining of all systems may take (default: the tier's share of its "
                             "time); where the calibrated steps predict more, the FLOP budget shrinks to fit")
    return parser.parse_args(argv)


def sources_from(args):
    from comparisons.downstream import Sources
    shared = args.shared_data_dir

    def default(given, *parts):
        if given is not None:
            return given or None
        path = os.path.join(shared, *parts) if shared else None
        return path if path and os.path.exists(path) else None

    wikitext = default(args.wikitext_files, "corpus")
    if wikitext and os.path.isdir(wikitext):
        wikitext = ",".join(os.path.join(wikitext, f"wikitext2_{split}.txt") for split in ("valid", "test"))
    return Sources(glue_data_dir=default(args.glue_data_dir, "glue"),
                   conll_data_dir=default(args.conll_data_dir, "conll2003"),
                   squad_file=default(args.squad_file, "squad", "dev-v1.1-part1.json"),
                   wikitext_files=tuple(wikitext.split(",")) if wikitext and not args.corpus else (),
                   corpus=args.corpus)


def describe_sources(sources):
    """The data given, paths relative to the checkout (`../shared/data/...`)."""
    def relative(value):
        if isinstance(value, (tuple, list)):
            return ",".join(relative(v) for v in value)
        return os.path.relpath(value, ROOT)
    given = [f"{k}={relative(v)}" for k, v in dataclasses.asdict(sources).items() if v]
    return ", ".join(given) or "built-in only"


def tier_definition(tier):
    """Every field of the tier as this version defines it (sizes, epochs, learning
    rates, systems, ...): a folder begun by a version that defined it otherwise
    holds units run to other terms. (Its seeds are settings of their own; its time
    allowance may change on a resume, the budget being recorded once.)"""
    return {k: v for k, v in dataclasses.asdict(tier).items()
            if k not in ("seeds", "pretraining_seeds", "pretraining_seconds")}


def check_settings(path, settings):
    """Records this run's settings, or refuses ones that differ from those of the
    run that began `output_dir` (its units would not fit them)."""
    from utils.files import atomic_write_text
    settings = json.loads(json.dumps(settings))  # as read back: tuples are lists
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            recorded = json.load(f)
        changed = sorted(k for k in set(recorded) | set(settings) if recorded.get(k) != settings.get(k))
        unrecorded = ", ".join(k for k in changed if k not in recorded)
        why = f"; begun by a version that did not record {unrecorded}" if unrecorded else ""
        if changed:
            sys.exit(f"compare: {os.path.dirname(path)} holds a comparison begun with other settings "
                     f"({', '.join(changed)}{why}); rerun it as it began, or give another --output_dir")
    else:
        atomic_write_text(path, json.dumps(settings, indent=2, sort_keys=True) + "\n")


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    from comparisons.tiers import TIERS
    from utils.output_dir_lock import OutputDirError, lock_output_dir
    tier = TIERS[args.budget]
    if args.seeds:
        tier = dataclasses.replace(tier, seeds=args.seeds)
    if args.pretraining_seeds:
        tier = dataclasses.replace(tier, pretraining_seeds=args.pretraining_seeds)
    if args.pretraining_seconds:
        tier = dataclasses.replace(tier, pretraining_seconds=args.pretraining_seconds)
    output_dir = os.path.abspath(args.output_dir or os.path.join(ROOT, "runs", f"compare_{args.budget}"))
    sources = sources_from(args)
    try:
        lock_output_dir(output_dir)  # one comparison per output_dir at a time
    except OutputDirError as e:
        sys.exit(f"compare: {e}")
    check_settings(os.path.join(output_dir, "settings.json"), {
        "tier": tier.name, "seeds": tier.seeds, "pretraining_seeds": tier.pretraining_seeds, "seed": args.seed,
        "systems": args.systems, "tier_definition": tier_definition(tier),
        "sources": dataclasses.asdict(sources)})

    from comparisons import downstream, host
    from comparisons.ledger import wall_seconds
    from comparisons.plots import write_plots
    from comparisons.progress import Progress
    from comparisons.protocol import Protocol
    from comparisons.report import write_report
    from comparisons.results import collect
    from comparisons.systems import all_systems, select
    from comparisons.workers import Workers
    from demo.progress import StageError, format_seconds
    from utils.files import atomic_write_text

    names = tier.systems if args.systems is None else None if args.systems == "all" else args.systems.split(",")
    systems = select(all_systems(), names and [*names, tier.reference])
    tasks = [downstream.BY_NAME[name] for name in tier.tasks]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ROOT}
    print(f"comparison, tier {tier.name}: {len(systems)} systems ({', '.join(s.name for s in systems)}), "
          f"{tier.seeds} seeds, in {output_dir}", flush=True)
    with Workers(ROOT, env, eager=tier.eager, slots=tier.concurrent_runs) as workers:
        protocol = Protocol(tier, sources, output_dir, systems, tasks, workers, ROOT, env,
                            Progress(at_once=tier.concurrent_runs), args.seed)
        try:
            entries = protocol.run()
        except StageError as error:
            sys.exit(f"\ncompare: {error}\nRerun the same command to resume.")
    by_name = {s.name: s for s in systems}
    task_map = {t.name: t for t in tasks}
    setup = {
        "date": datetime.date.today().isoformat(),
        "command": "python compare.py " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)),
        "host": host.summary(host.describe()), "host_details": host.describe(),
        "sources": describe_sources(sources),
        "settings": dataclasses.asdict(tier),
        "total_seconds": wall_seconds(entries), "unit_seconds": sum(e["seconds"] for e in entries.values()),
        "this_run_seconds": time.time() - start}
    results = collect(entries, by_name, task_map, tier, setup)
    atomic_write_text(os.path.join(output_dir, "results.json"), json.dumps(results, indent=1, default=str) + "\n")
    write_plots(os.path.join(output_dir, "plots"), results)
    atomic_write_text(os.path.join(output_dir, "report.md"), write_report(results))
    print(f"\ncomparison done in {format_seconds(time.time() - start)} (all its runs, wall time: "
          f"{format_seconds(results['total_seconds'])}): {output_dir}/report.md, results.json, plots/")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped comparison stops its workers too
    main()
