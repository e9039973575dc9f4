"""The shape of the paper's Table 7 on our data: dev F1 of CoNLL-2003 NER for
fine-tuning and for each feature-based layer combination (frozen encoder,
BiLSTM over the chosen layers).

    python benchmarks/feature_based_table.py --data_dir=../shared/data/conll2003 \\
        --init_checkpoint=<BERT dir> --output_dir=/tmp/table7 \\
        --num_train_epochs=1 --lstm_units=768

Each row is one `run_ner.py` process in `<output_dir>/<row>`; a row whose
`eval_results.txt` exists is read, not rerun, so an interrupted table resumes.
Writes `<output_dir>/table.md` (dev F1, per-type F1, wall time per row).
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from utils.files import atomic_write_text  # noqa: E402

# Rows in the paper's order with its BERT-Base dev F1 (Devlin et al., 2018, Table 7).
ROWS = (("fine_tuning", "Fine-tune all layers", 96.4),
        ("embeddings", "Embeddings", 91.0),
        ("second_to_last", "Second-to-last hidden", 95.6),
        ("last", "Last hidden", 94.9),
        ("sum_last_four", "Sum of last four hidden", 95.9),
        ("concat_last_four", "Concat last four hidden", 96.1),
        ("weighted_sum_all", "Weighted sum of all layers", 95.5))
TYPES = ("LOC", "MISC", "ORG", "PER")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--init_checkpoint", required=True)
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--rows", default=",".join(r[0] for r in ROWS),
                        help="Comma-separated subset of: " + ", ".join(r[0] for r in ROWS))
    parser.add_argument("--num_train_epochs", type=float, default=1.0,
                        help="Passes over train for every row (fractional: a random subset).")
    parser.add_argument("--fine_tuning_learning_rate", type=float, default=5e-5)
    parser.add_argument("--feature_learning_rate", type=float, default=1e-3)
    parser.add_argument("--lstm_units", type=int, default=768)
    parser.add_argument("--lstm_layers", type=int, default=2)
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--eval_batch_size", type=int, default=64)
    parser.add_argument("--extra", default="", help="More run_ner.py flags, space-separated.")
    return parser.parse_args(argv)


def row_command(args, row):
    fine_tuning = row == "fine_tuning"
    command = [sys.executable, os.path.join(ROOT, "run_ner.py"), "--do_train", "--do_eval",
               f"--data_dir={args.data_dir}", f"--init_checkpoint={args.init_checkpoint}",
               f"--output_dir={os.path.join(args.output_dir, row)}",
               f"--num_train_epochs={args.num_train_epochs}",
               f"--max_seq_length={args.max_seq_length}",
               f"--train_batch_size={args.train_batch_size}",
               f"--eval_batch_size={args.eval_batch_size}",
               "--learning_rate=%g" % (args.fine_tuning_learning_rate if fine_tuning
                                       else args.feature_learning_rate)]
    if not fine_tuning:
        command += ["--feature_based", f"--feature_layers={row}",
                    f"--lstm_units={args.lstm_units}", f"--lstm_layers={args.lstm_layers}"]
    return command + args.extra.split()


def read_results(path):
    with open(path, encoding="utf-8") as f:
        return {k.strip(): float(v) for k, v in (line.split("=", 1) for line in f if "=" in line)}


def run_row(args, row):
    """(results, wall seconds or None when read from an earlier run)."""
    results_file = os.path.join(args.output_dir, row, "eval_results.txt")
    if os.path.isfile(results_file):
        return read_results(results_file), None
    start = time.time()
    subprocess.run(row_command(args, row), check=True)
    return read_results(results_file), time.time() - start


def table(args, outcomes):
    names = {r[0]: (r[1], r[2]) for r in ROWS}
    lines = [f"Dev F1 on {args.data_dir} (entity level, conlleval), "
             f"{args.num_train_epochs:g} epoch(s); feature-based: {args.lstm_layers}-layer BiLSTM "
             f"of {args.lstm_units} per direction, lr {args.feature_learning_rate:g}; fine-tuning "
             f"lr {args.fine_tuning_learning_rate:g}; max_seq_length {args.max_seq_length}.", "",
             "| system | dev F1 | " + " | ".join(f"{t} F1" for t in TYPES)
             + " | wall s | paper (BERT-Base) |",
             "| --- | --- | " + " | ".join("---" for _ in TYPES) + " | --- | --- |"]
    for row, (results, wall) in outcomes.items():
        title, paper = names[row]
        per_type = " | ".join(f"{100 * results.get(f'eval_{t}_f1', 0.0):.1f}" for t in TYPES)
        wall_text = f"{wall:.0f}" if wall is not None else "(earlier run)"
        lines.append(f"| {title} | {100 * results['eval_f1']:.1f} | {per_type} | {wall_text} "
                     f"| {paper} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    known = [r[0] for r in ROWS]
    rows = [r for r in args.rows.split(",") if r]
    unknown = sorted(set(rows) - set(known))
    if unknown:
        raise SystemExit(f"unknown rows {unknown}; expected some of {known}")
    outcomes = {row: run_row(args, row) for row in known if row in rows}
    text = table(args, outcomes)
    atomic_write_text(os.path.join(args.output_dir, "table.md"), text)
    print(text)


if __name__ == "__main__":
    main()
