"""The main job on built-in defaults: the whole BERT pipeline, small, on the CPU.

    python main.py                  # what `bash scripts/main.sh` runs (~5-10 minutes, 2 cores)
    python main.py --quick          # a reduced run (the CI test)

1. a corpus of real English from the installed Python's standard-library
   docstrings -> pretraining TFRecords (bundled uncased vocab),
2. pretrain a small BERT (MLM + NSP accuracy printed as it rises),
3. fine-tune a sentiment classifier from it on the set in assets/demo_sentiment,
4. export the classifier SavedModel (raw text in) and the TF Hub encoder pair,
5. load the SavedModel in a fresh process that imports only TensorFlow and
   tensorflow_text and classify a few sentences,
then print a summary of paths, metrics and timings. Nothing is downloaded.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.abspath(__file__))
VOCAB_FILE = os.path.join(ROOT, "assets", "bert_uncased_vocab.txt")
SENTIMENT_DIR = os.path.join(ROOT, "assets", "demo_sentiment")
PRESET = "bert_uncased_L-2_H-128_A-2"
SENTENCES = ["The soundtrack was truly wonderful!", "The plot is not clever, but the cast was superb.",
             "This documentary felt rather tedious."]

SERVE_IN_FRESH_PROCESS = """
import sys, tensorflow as tf, tensorflow_text  # noqa: F401  (registers the in-graph tokenizer ops)
model = tf.saved_model.load(sys.argv[1])
outputs = model.signatures["serving_default"](text_a=tf.constant(sys.argv[2:]))
for text, label, probs in zip(sys.argv[2:], outputs["label_names"].numpy(), outputs["probabilities"].numpy()):
    print(f"  {label.decode():>8} ({probs.max():.2f})  {text}")
"""


def run(step, args, log):
    """Runs one project command as its own process, streaming its output."""
    print(f"\n=== {step}: {' '.join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in args)}",
          flush=True)
    start = time.time()
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": ROOT}
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True)
    log.append((step, time.time() - start))


def read_key_values(path):
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                key, value = line.split("=", 1)
                values[key.strip()] = value.strip()
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work_dir", default=os.path.join(ROOT, "runs", "main"))
    parser.add_argument("--quick", action="store_true", help="few steps: checks the pipeline only")
    args = parser.parse_args()
    work = os.path.abspath(args.work_dir)
    # A fresh start: the runners resume from what they find, and a rerun should redo everything.
    shutil.rmtree(work, ignore_errors=True)
    pretrain_steps, corpus_bytes, epochs = (40, 300_000, 1) if args.quick else (600, 2_000_000, 10)
    paths = {name: os.path.join(work, name) for name in (
        "corpus.txt", "pretraining.tfrecord", "pretrain", "classifier", "serving", "hub")}
    timings, start = [], time.time()

    from demo.stdlib_corpus import write_corpus
    documents, size = write_corpus(paths["corpus.txt"], corpus_bytes)
    print(f"corpus: {documents} documents, {size / 1e6:.1f} MB of standard-library docstrings")
    run("pretraining data", [
        "data/create_pretraining_data.py", f"--input_file={paths['corpus.txt']}",
        f"--output_file={paths['pretraining.tfrecord']}", f"--vocab_file={VOCAB_FILE}",
        "--do_lower_case", "--max_seq_length=64", "--max_predictions_per_seq=10", "--dupe_factor=2",
        "--num_workers=2"], timings)
    run("pretraining", [
        "run_pretraining.py", f"--input_file={paths['pretraining.tfrecord']}",
        f"--output_dir={paths['pretrain']}", f"--preset={PRESET}", "--do_train", "--do_eval",
        "--max_seq_length=64", "--max_predictions_per_seq=10", "--train_batch_size=32",
        f"--num_train_steps={pretrain_steps}", f"--num_warmup_steps={pretrain_steps // 10}",
        "--learning_rate=3e-4", f"--save_checkpoints_steps={pretrain_steps}", "--max_eval_steps=20",
        f"--log_steps={max(pretrain_steps // 10, 1)}"], timings)
    run("fine-tuning", [
        "run_classifier.py", "--task_name=custom", "--text_a_column=sentence", f"--data_dir={SENTIMENT_DIR}",
        f"--vocab_file={VOCAB_FILE}", f"--init_checkpoint={paths['pretrain']}", "--do_train",
        "--do_eval", "--max_seq_length=32", "--train_batch_size=32", "--learning_rate=3e-4",
        f"--num_train_epochs={epochs}", f"--output_dir={paths['classifier']}",
        f"--export_dir={paths['serving']}", "--log_steps=10"], timings)
    run("TF Hub export", [
        "-m", "export.export_hub", f"--init_checkpoint={paths['pretrain']}",
        f"--vocab_file={VOCAB_FILE}", f"--export_dir={paths['hub']}"], timings)
    run("serving in a fresh process", ["-c", SERVE_IN_FRESH_PROCESS, paths["serving"], *SENTENCES],
        timings)

    pretraining = read_key_values(os.path.join(paths["pretrain"], "eval_results.txt"))
    classifier = read_key_values(os.path.join(paths["classifier"], "eval_results.txt"))
    print("\n=== summary")
    for name in ("pretrain", "classifier", "serving", "hub"):
        print(f"  {name:<11} {paths[name]}")
    print(f"  pretraining: " + json.dumps(pretraining))
    print(f"  fine-tuning: " + json.dumps(classifier))
    for step, seconds in timings:
        print(f"  {step:<28} {seconds:6.1f} s")
    print(f"  {'total':<28} {time.time() - start:6.1f} s")


if __name__ == "__main__":
    main()
