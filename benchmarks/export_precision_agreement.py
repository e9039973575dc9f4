"""How far a bfloat16 export's predictions are from its float32 export's on real
fine-tuned weights: each GLUE task fine-tuned from one checkpoint on a slice of
its train split (`run_classifier.py`), then its task model built as
`export.export_model` builds it in either `--export_precision` from the same
weights, and both scored on the dev split.

    python benchmarks/export_precision_agreement.py --init_checkpoint=<MiniLM dir> \\
        --tasks=SST-2,MRPC,STS-B --train_examples=2000

Per task: the dev metric of each precision (accuracy; Pearson for STS-B), the
share of dev examples whose predicted label agrees, and the largest absolute
difference of a logit and of a probability. The models run in this process
(the SavedModel's signatures call the same Keras model under the same policy);
`tests/export/test_export_precision.py` checks the served exports agree alike.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
GLUE = os.path.join(os.path.dirname(ROOT), "shared", "data", "glue")


def train_slice(task_dir, examples, into):
    """A data dir holding the first `examples` rows of `task_dir`'s train.tsv and its dev.tsv."""
    os.makedirs(into, exist_ok=True)
    with open(os.path.join(task_dir, "train.tsv"), encoding="utf-8") as f:
        lines = [line for _, line in zip(range(examples + 1), f)]
    with open(os.path.join(into, "train.tsv"), "w", encoding="utf-8") as f:
        f.writelines(lines)
    dev = os.path.join(into, "dev.tsv")
    if not os.path.exists(dev):
        os.symlink(os.path.join(task_dir, "dev.tsv"), dev)
    return into


def fine_tune(args, task, data_dir, output_dir):
    if os.path.isfile(os.path.join(output_dir, "export_meta.json")):
        return output_dir  # fine-tuned by an earlier run of this script
    done = subprocess.run([
        sys.executable, os.path.join(ROOT, "run_classifier.py"), f"--task_name={task}", f"--data_dir={data_dir}",
        f"--init_checkpoint={args.init_checkpoint}", f"--output_dir={output_dir}", "--do_train",
        f"--max_seq_length={args.max_seq_length}", f"--train_batch_size={args.batch}",
        f"--learning_rate={args.learning_rate}", f"--num_train_epochs={args.epochs}", "--mixed_precision=none",
        f"--seed={args.seed}"], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"run_classifier.py on {task} failed:\n{done.stderr[-3000:]}")
    return output_dir


def logits(meta, run_dir, precision, ids, batch):
    """Float32 logits [examples, outputs] of the task model `export.export_model` builds in `precision`."""
    from checkpoints.loader import load_into
    from export.export_model import build_task_model
    model = build_task_model(meta, precision)
    load_into(model, run_dir, strict=True)
    rows = len(ids["input_mask"])
    return np.concatenate([np.asarray(model({k: v[i:i + batch] for k, v in ids.items()}, training=False)["logits"],
                                      np.float32) for i in range(0, rows, batch)])


def agreement(task, run_dir, data_dir, batch):
    from scipy.special import softmax
    from scipy.stats import pearsonr
    from export.export_meta import read_export_meta
    from tasks.classification.glue_readers import GlueReader
    meta = read_export_meta(run_dir)
    reader = GlueReader(task, data_dir)
    examples = reader.read("dev").examples
    texts_b = [e.text_b for e in examples] if reader.paired else None
    ids = meta.text_side().encode_texts([e.text_a for e in examples], texts_b, meta.max_seq_length)
    out = {p: logits(meta, run_dir, p, ids, batch) for p in ("float32", "bfloat16")}
    row = {"task": task, "dev_examples": len(examples),
           "max_abs_logit_difference": float(np.abs(out["bfloat16"] - out["float32"]).max())}
    if reader.is_regression:
        gold = np.array([float(e.label) for e in examples])
        for p, values in out.items():
            row[f"{p}_pearson"] = float(pearsonr(values[:, 0], gold)[0])
        return row
    gold = np.array([reader.label_list.index(e.label) for e in examples])
    labels = {p: values.argmax(-1) for p, values in out.items()}
    for p in out:
        row[f"{p}_accuracy"] = float((labels[p] == gold).mean())
    row["labels_agree"] = float((labels["float32"] == labels["bfloat16"]).mean())
    row["max_abs_probability_difference"] = float(np.abs(softmax(out["bfloat16"], -1)
                                                         - softmax(out["float32"], -1)).max())
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--init_checkpoint", required=True, help="the checkpoint every task fine-tunes from")
    parser.add_argument("--tasks", default="SST-2,MRPC,STS-B")
    parser.add_argument("--glue_dir", default=GLUE)
    parser.add_argument("--output_dir", default=os.path.join(ROOT, "runs", "export_precision_agreement"))
    parser.add_argument("--train_examples", type=int, default=2000)
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from benchmarks.common import host_description
    rows = []
    for task in args.tasks.split(","):
        work = os.path.join(args.output_dir, task)
        data_dir = train_slice(os.path.join(args.glue_dir, task), args.train_examples, os.path.join(work, "data"))
        run_dir = fine_tune(args, task, data_dir, os.path.join(work, "run"))
        rows.append(agreement(task, run_dir, data_dir, args.batch))
        print(json.dumps(rows[-1]), flush=True)
    print(host_description())
    print(f"{'task':<8} {'dev':>5} {'float32':>8} {'bfloat16':>8} {'labels agree':>12} {'max |dlogit|':>12} "
          f"{'max |dprob|':>11}")
    for row in rows:
        metric = "pearson" if "float32_pearson" in row else "accuracy"
        print(f"{row['task']:<8} {row['dev_examples']:>5} {row[f'float32_{metric}']:8.4f} "
              f"{row[f'bfloat16_{metric}']:8.4f} {row.get('labels_agree', float('nan')):12.4f} "
              f"{row['max_abs_logit_difference']:12.4f} {row.get('max_abs_probability_difference', float('nan')):11.4f}")
    with open(os.path.join(args.output_dir, "agreement.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
