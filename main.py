"""The main job on built-in defaults: the whole BERT pipeline, small, on the CPU.

    python main.py                  # what `bash scripts/main.sh` runs (about 5 minutes, 2 idle cores)
    python main.py --quick          # a reduced run that checks the pipeline (CI)

1. a corpus of real English from the installed Python's standard-library
   docstrings (a fifth of the modules held out for the labelled set),
2. a WordPiece vocabulary learned from it, and pretraining TFRecords,
3. pretrain a 2-layer BERT (masked LM + next sentence),
4. fine-tune the same sentence-pair classifier twice with the same budget, from
   the pretrained weights and from random initialisation, on 160 labelled pairs
   from held-out modules ("does the second sentence continue the first?"), and
   score both on 1,000 dev pairs from other held-out modules,
5. export the classifier SavedModel (raw text in) and the TF Hub encoder pair,
6. load the SavedModel in a fresh process that imports only TensorFlow and
   tensorflow_text and classify a few pairs,
then print a summary of what was built, where, the metrics and the timings.
Nothing is downloaded.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from demo.progress import StageError, run_stage
from demo.stdlib_corpus import write_corpus
from utils.files import atomic_write_text

ROOT = os.path.dirname(os.path.abspath(__file__))
LABELLED_DIR = os.path.join(ROOT, "assets", "demo_continuation")
SEQ_LENGTH = 48
MAX_PREDICTIONS = 7
PRETRAIN_BATCH = 64
FINE_TUNE_BATCH = 16
MODEL = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
         "max_position_embeddings": SEQ_LENGTH}
PAIRS = [("Return the number of bytes written to the file.",
          "If the file is closed, a ValueError is raised."),
         ("Return the number of bytes written to the file.",
          "The event loop runs until the future is done."),
         ("Create a new thread that runs the given function.",
          "The thread starts when its start() method is called.")]

SERVE_IN_FRESH_PROCESS = """
import json, sys, tensorflow as tf, tensorflow_text  # noqa: F401  (registers the in-graph tokenizer ops)
model = tf.saved_model.load(sys.argv[1])
pairs = json.loads(sys.argv[2])
outputs = model.signatures["serving_default"](text_a=tf.constant([a for a, _ in pairs]),
                                              text_b=tf.constant([b for _, b in pairs]))
print("SERVED " + json.dumps([[label.decode(), float(p.max())] for label, p in
                              zip(outputs["label_names"].numpy(), outputs["probabilities"].numpy())]))
"""


def read_key_values(path):
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                key, value = line.split("=", 1)
                values[key.strip()] = float(value)
    return values


def budgets(quick):
    """Corpus modules, pretraining steps and fine-tuning epochs: `--quick` only checks that every stage runs."""
    return (40, 20, 1.0) if quick else (None, 600, 5.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work_dir", default=os.path.join(ROOT, "runs", "main"))
    parser.add_argument("--quick", action="store_true", help="few steps: checks the pipeline only")
    parser.add_argument("--seed", type=int, default=12345, help="seed of data, initialisation and order")
    args = parser.parse_args()
    work = os.path.abspath(args.work_dir)
    # A fresh start: the runners resume from what they find, and a rerun should redo everything.
    shutil.rmtree(work, ignore_errors=True)
    max_documents, pretrain_steps, epochs = budgets(args.quick)
    paths = {name: os.path.join(work, name) for name in (
        "corpus.txt", "vocab.txt", "bert_config.json", "pretraining.tfrecord", "pretrain",
        "classifier", "scratch", "serving", "hub", "logs")}
    # TF_CPP_MIN_LOG_LEVEL=3: no C++ start-up lines (e.g. cuInit's "no CUDA device") on a CPU machine.
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ROOT}
    timings, start = {}, time.time()

    def stage(name, args, batch_size=None):
        log = os.path.join(paths["logs"], name.replace(" ", "_") + ".log")
        timings[name] = run_stage(name, args, log, ROOT, env, batch_size)

    print("=== corpus", flush=True)
    documents, size = write_corpus(paths["corpus.txt"], max_documents)
    timings["corpus"] = time.time() - start
    print(f"  {documents} modules, {size / 1e6:.1f} MB of standard-library docstrings", flush=True)
    stage("vocabulary", [
        "build_vocab.py", f"--input_file={paths['corpus.txt']}", f"--output_file={paths['vocab.txt']}",
        "--vocab_size=3000", "--num_unused=0", "--lower_thresh=5"])
    with open(paths["vocab.txt"], encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)
    atomic_write_text(paths["bert_config.json"], json.dumps({**MODEL, "vocab_size": vocab_size}, indent=2))
    stage("pretraining data", [
        "create_pretraining_data.py", f"--input_file={paths['corpus.txt']}",
        f"--output_file={paths['pretraining.tfrecord']}", f"--vocab_file={paths['vocab.txt']}",
        "--do_lower_case", f"--max_seq_length={SEQ_LENGTH}", f"--max_predictions_per_seq={MAX_PREDICTIONS}",
        "--dupe_factor=5", "--num_workers=2", f"--random_seed={args.seed}"])
    stage("pretraining", [
        "run_pretraining.py", f"--input_file={paths['pretraining.tfrecord']}",
        f"--output_dir={paths['pretrain']}", f"--bert_config_file={paths['bert_config.json']}",
        "--do_train", "--do_eval", f"--max_seq_length={SEQ_LENGTH}",
        f"--max_predictions_per_seq={MAX_PREDICTIONS}", f"--train_batch_size={PRETRAIN_BATCH}",
        f"--num_train_steps={pretrain_steps}", f"--num_warmup_steps={pretrain_steps // 10}",
        "--learning_rate=1e-3", f"--save_checkpoints_steps={pretrain_steps}", "--eval_batch_size=64",
        "--max_eval_steps=20", f"--log_steps={max(pretrain_steps // 20, 1)}", f"--seed={args.seed}"],
        PRETRAIN_BATCH)
    fine_tuning = [
        "run_classifier.py", "--task_name=custom", "--text_a_column=sentence_a",
        "--text_b_column=sentence_b", f"--data_dir={LABELLED_DIR}", f"--vocab_file={paths['vocab.txt']}",
        f"--bert_config_file={paths['bert_config.json']}", "--do_train", "--do_eval",
        f"--max_seq_length={SEQ_LENGTH}", f"--train_batch_size={FINE_TUNE_BATCH}", "--eval_batch_size=100",
        "--learning_rate=1e-4", f"--num_train_epochs={epochs}", "--log_steps=5", f"--seed={args.seed}"]
    stage("fine-tuning from pretrained", [
        *fine_tuning, f"--init_checkpoint={paths['pretrain']}", f"--output_dir={paths['classifier']}",
        f"--export_dir={paths['serving']}"], FINE_TUNE_BATCH)
    stage("fine-tuning from scratch", [*fine_tuning, f"--output_dir={paths['scratch']}"], FINE_TUNE_BATCH)
    stage("TF Hub export", [
        "-m", "export.export_hub", f"--init_checkpoint={paths['pretrain']}",
        f"--vocab_file={paths['vocab.txt']}", f"--seq_length={SEQ_LENGTH}",
        f"--export_dir={paths['hub']}"])
    served_start = time.time()
    print("\n=== serving in a fresh process", flush=True)
    served = subprocess.run([sys.executable, "-c", SERVE_IN_FRESH_PROCESS, paths["serving"], json.dumps(PAIRS)],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    if served.returncode != 0:
        raise StageError("serving failed:\n" + served.stderr[-3000:])
    predictions = json.loads(served.stdout.split("SERVED ", 1)[1])
    timings["serving"] = time.time() - served_start

    pretraining = read_key_values(os.path.join(paths["pretrain"], "eval_results.txt"))
    pretrained = read_key_values(os.path.join(paths["classifier"], "eval_results.txt"))
    scratch = read_key_values(os.path.join(paths["scratch"], "eval_results.txt"))
    print("\n=== summary")
    print(f"  built in {work}:")
    for name, what in (("vocab.txt", f"WordPiece vocabulary, {vocab_size} tokens"),
                       ("pretrain", "pretrained 2-layer BERT (H=128), checkpoint + bert_config.json"),
                       ("classifier", "classifier fine-tuned from it"),
                       ("serving", "its TF Serving SavedModel (raw text in)"),
                       ("hub", "TF Hub preprocessor + encoder of the pretrained model")):
        print(f"    {name + '/' if '.' not in name else name:<12} {what}")
    print(f"  pretraining ({pretrain_steps} steps of {PRETRAIN_BATCH}): masked-LM accuracy "
          f"{pretraining['masked_lm_accuracy']:.3f}, next-sentence accuracy "
          f"{pretraining['next_sentence_accuracy']:.3f} (chance 0.5)")
    with open(os.path.join(LABELLED_DIR, "dev.tsv"), encoding="utf-8") as f:
        dev_pairs = sum(1 for _ in f) - 1
    print(f"  fine-tuning, same budget, dev accuracy on {dev_pairs} pairs:"
          f"  from pretrained {pretrained['eval_accuracy']:.3f}   from scratch {scratch['eval_accuracy']:.3f}")
    print("  served predictions:")
    for (a, b), (label, probability) in zip(PAIRS, predictions):
        print(f"    {label:>9} ({probability:.2f})  {a} | {b}")
    for name, seconds in timings.items():
        print(f"  {name:<28} {seconds:6.1f} s")
    print(f"  {'total':<28} {time.time() - start:6.1f} s")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so a stopped job stops its running stage too
    try:
        main()
    except StageError as error:
        sys.exit(f"\nmain job: {error}")
