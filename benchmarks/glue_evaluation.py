"""A GLUE dev set's evaluation pass with its real sentence lengths: ours (Keras 3
on TensorFlow, through `training.trainer.Trainer.evaluate`) vs Hugging Face
transformers (torch).

    python benchmarks/glue_evaluation.py --task=MRPC --repeats=3
    python benchmarks/glue_evaluation.py --task=SST-2 --preset=bert_uncased_L-4_H-256_A-4

`ours` is what `run_classifier.py --do_eval` runs: batches of neighbouring
lengths, each cut to its longest example. `ours_full_length` keeps every batch
at `--seq` (the original BERT's fixed-length records, and ours on TPUs or with
XLA). `hf_torch` pads each batch to its longest example in file order, as a
`DataCollatorWithPadding` under `Trainer.evaluate` does. Same config (random
weights: only speed is measured), vocabulary, examples and batch size; the
`_bf16` contenders (our `mixed_bfloat16`, torch bf16 autocast) run by default
only where the CPU computes bf16 natively. Each contender runs in its own
process, repeats interleaved; a process times `--steps` whole passes after one
untimed pass (tracing) and reports its median. The table shows examples/s, the
tokens each pass computed (batch rows x batch width, summed), the ratio to
`hf_torch_fp32` and peak RSS.
"""

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.common import (add_cpu_isa_flag, contender_parser, median, peak_rss_mb,  # noqa: E402
                               print_table, run_contenders, spread, start_cpu_run)

CONTENDERS = ("ours_fp32", "ours_fp32_full_length", "hf_torch_fp32", "ours_bf16", "hf_torch_bf16")
BASELINE = "hf_torch_fp32"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GLUE = os.path.join(os.path.dirname(ROOT), "shared", "data", "glue")
VOCAB = os.path.join(os.path.dirname(ROOT), "shared", "data", "vocab", "bert_uncased_vocab.txt")


def _ours(args, config, reader, split, cache_dir):
    """(one evaluation pass over `split`, tokens it computes)."""
    from tasks.classification.task import ClassificationConfig, ClassificationTask
    from training.run_options import RunOptions
    from training.trainer import Trainer
    task = ClassificationTask(ClassificationConfig(
        reader=reader, vocab_file=args.vocab_file, encoder_config=config, cache_dir=cache_dir,
        max_seq_length=args.seq, trim_padding=not args.worker.endswith("full_length")))
    trainer = Trainer(task, RunOptions(output_dir=os.path.join(cache_dir, "run"),
                                       mixed_precision="bf16" if "bf16" in args.worker else "none"))
    tokens = sum(int(features["input_mask"].shape[0] * features["input_mask"].shape[1])
                 for features, _ in task.build_dataset(split, args.batch, training=False))
    return lambda: trainer.evaluate(args.batch, split), tokens


def _hf(args, config, reader, examples):
    import torch
    import transformers
    torch.set_grad_enabled(False)
    tokenizer = transformers.BertTokenizerFast(args.vocab_file, do_lower_case=True)
    model = transformers.BertForSequenceClassification(transformers.BertConfig(
        **config.to_dict(), num_labels=len(reader.label_list))).eval()
    batches = []
    for start in range(0, len(examples), args.batch):
        chunk = examples[start:start + args.batch]
        texts_b = [e.text_b for e in chunk] if chunk[0].text_b is not None else None
        batches.append(tokenizer([e.text_a for e in chunk], texts_b, truncation=True,
                                 max_length=args.seq, padding="longest", return_tensors="pt"))
    bf16 = args.worker.endswith("bf16")

    def run():
        for batch in batches:
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                model(**batch).logits.float().numpy()
    return run, sum(int(b["input_ids"].numel()) for b in batches)


def worker(args):
    from tasks.classification.glue_readers import GlueReader
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    reader = GlueReader(args.task, args.data_dir)
    split = reader.eval_splits[0]
    examples = reader.read(split).examples
    with tempfile.TemporaryDirectory() as cache_dir:
        if args.worker.startswith("hf_torch"):
            run, tokens = _hf(args, config, reader, examples)
        else:
            run, tokens = _ours(args, config, reader, split, cache_dir)
        run()  # tracing, caches
        times = []
        for _ in range(args.steps):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
    print(json.dumps({"examples_per_s": len(examples) / median(times), "tokens": tokens,
                      "examples": len(examples), "peak_rss_mb": peak_rss_mb()}))


def main():
    parser = contender_parser(__doc__, (), batch=32, steps=2, repeats=3)
    add_cpu_isa_flag(parser)
    parser.add_argument("--task", default="MRPC", help="A GLUE task name.")
    parser.add_argument("--data_dir", help=f"The task's files (default: {GLUE}/TASK).")
    parser.add_argument("--vocab_file", default=VOCAB)
    args = parser.parse_args()
    args.data_dir = args.data_dir or os.path.join(GLUE, args.task)
    if args.worker:
        return worker(args)
    contenders = start_cpu_run(parser, args, CONTENDERS, CONTENDERS)
    passthrough = [f"--{k}={getattr(args, k)}" for k in
                   ("preset", "batch", "seq", "steps", "task", "data_dir", "vocab_file")]
    results = run_contenders(__file__, contenders, args.repeats, passthrough)
    runs = {name: [r["examples_per_s"] for r in rs] for name, rs in results.items()}
    speed = {name: median(values) for name, values in runs.items()}
    rows = [{"contender": name, "examples/s": f"{speed[name]:.1f}", "min-max": spread(runs[name]),
             "tokens": results[name][0]["tokens"],
             f"vs {BASELINE}": f"{speed[name] / speed[BASELINE]:.2f}x" if BASELINE in speed else "",
             "peak RSS MB": f"{max(r['peak_rss_mb'] for r in results[name]):.0f}"}
            for name in speed]
    examples = next(iter(results.values()))[0]["examples"]
    print(f"{args.task} {args.data_dir} ({examples} examples), {args.preset}, batch {args.batch}, max length "
          f"{args.seq}, median of {args.repeats} processes x median of {args.steps} passes")
    print_table(rows, ["contender", "examples/s", "min-max", "tokens", f"vs {BASELINE}",
                       "peak RSS MB"])


if __name__ == "__main__":
    main()
