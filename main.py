"""The main job on built-in defaults: the whole BERT pipeline, small, on the CPU.

    python main.py                  # what `bash scripts/main.sh` runs (about 5 minutes, 2 idle cores)
    python main.py --quick          # a reduced run that checks the pipeline (CI)

1. a corpus of real English from the installed Python's standard-library
   docstrings (a fifth of the modules held out for the labelled set),
2. a WordPiece vocabulary learned from it, and pretraining TFRecords,
3. pretrain a 2-layer BERT (masked LM + next sentence) and score it on the
   held-out modules,
4. fine-tune the same sentence classifier twice with the same budget, from the
   pretrained weights and from random initialisation, on 160 labelled sentences
   from held-out modules ("a real sentence, or its words scrambled?"), and score
   both on 1,000 dev sentences from other held-out modules,
5. export the classifier SavedModel (raw text in) and the TF Hub encoder pair,
6. load the SavedModel in a fresh process that imports only TensorFlow and
   tensorflow_text and classify a few sentences,
then print a summary of what was built, where, the metrics and the timings.
Nothing is downloaded.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from demo.progress import StageError, last_logged_values, run_stage
from demo.stdlib_corpus import write_corpus
from utils.files import atomic_write_text

ROOT = os.path.dirname(os.path.abspath(__file__))
LABELLED_DIR = os.path.join(ROOT, "assets", "demo_word_order")
SEQ_LENGTH = 48
MAX_PREDICTIONS = 7
VOCAB_SIZE = 1500
PRETRAIN_BATCH = 128
FINE_TUNE_BATCH = 16
# H=64 trains about 4x more examples per second than H=128 on two cores; without
# dropout the short pretraining leaves the unigram plateau sooner (same config for both fine-tunings).
MODEL = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 256,
         "max_position_embeddings": SEQ_LENGTH, "hidden_dropout_prob": 0.0,
         "attention_probs_dropout_prob": 0.0}
SENTENCES = ["Return the number of bytes written to the file.",
             "the file. bytes Return of to written number the",
             "The thread starts when its start() method is called."]

SERVE_IN_FRESH_PROCESS = """
import json, sys, tensorflow as tf, tensorflow_text  # noqa: F401  (registers the in-graph tokenizer ops)
model = tf.saved_model.load(sys.argv[1])
sentences = json.loads(sys.argv[2])
outputs = model.signatures["serving_default"](text_a=tf.constant(sentences))
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


def majority_share(records_log):
    """Share of the commoner next-sentence label in a record file, from its writer's log:
    random next sentences are more than half (a document's last chunk has no next one)."""
    with open(records_log, encoding="utf-8") as f:
        share = float(re.search(r"next sentence random ([0-9.]+)%", f.read()).group(1)) / 100
    return max(share, 1 - share)


def budgets(quick):
    """Corpus modules, pretraining steps and fine-tuning epochs: `--quick` only checks that every stage runs."""
    return (40, 20, 1.0) if quick else (None, 4000, 10.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work_dir", default=os.path.join(ROOT, "runs", "main"))
    parser.add_argument("--quick", action="store_true", help="few steps: checks the pipeline only")
    parser.add_argument("--seed", type=int, default=12345, help="seed of data, initialisation and order")
    args = parser.parse_args()
    work = os.path.abspath(args.work_dir)
    # A fresh start: the runners resume from what they find, and a rerun should redo everything.
    shutil.rmtree(work, ignore_errors=True)
    max_modules, pretrain_steps, epochs = budgets(args.quick)
    paths = {name: os.path.join(work, name) for name in (
        "corpus.txt", "held_out.txt", "vocab.txt", "bert_config.json", "pretraining.tfrecord",
        "held_out.tfrecord", "pretrain", "pretrain_eval", "classifier", "scratch", "serving", "hub", "logs")}
    # TF_CPP_MIN_LOG_LEVEL=3: no C++ start-up lines (e.g. cuInit's "no CUDA device") on a CPU machine.
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ROOT}
    timings, start = {}, time.time()

    def stage(name, args, batch_size=None):
        log = os.path.join(paths["logs"], name.replace(" ", "_") + ".log")
        timings[name] = run_stage(name, args, log, ROOT, env, batch_size)

    print("=== corpus", flush=True)
    modules, documents, size = write_corpus(paths["corpus.txt"], max_modules)
    held_modules, _, held_size = write_corpus(paths["held_out.txt"], max_modules, held=True)
    timings["corpus"] = time.time() - start
    print(f"  {documents} docstrings of {modules} modules, {size / 1e6:.1f} MB of standard-library "
          f"docstrings; {held_modules} held-out modules ({held_size / 1e6:.2f} MB) to score pretraining on",
          flush=True)
    stage("vocabulary", [
        "build_vocab.py", f"--input_file={paths['corpus.txt']}", f"--output_file={paths['vocab.txt']}",
        f"--vocab_size={VOCAB_SIZE}", "--num_unused=0", "--lower_thresh=5"])
    with open(paths["vocab.txt"], encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)
    atomic_write_text(paths["bert_config.json"], json.dumps({**MODEL, "vocab_size": vocab_size}, indent=2))
    records = [f"--vocab_file={paths['vocab.txt']}", "--do_lower_case", f"--max_seq_length={SEQ_LENGTH}",
               f"--max_predictions_per_seq={MAX_PREDICTIONS}", f"--random_seed={args.seed}"]
    stage("pretraining data", [
        "create_pretraining_data.py", f"--input_file={paths['corpus.txt']}",
        f"--output_file={paths['pretraining.tfrecord']}", *records, "--dupe_factor=10", "--num_workers=2"])
    stage("held-out pretraining data", [
        "create_pretraining_data.py", f"--input_file={paths['held_out.txt']}",
        f"--output_file={paths['held_out.tfrecord']}", *records, "--dupe_factor=1"])
    pretraining = [f"--bert_config_file={paths['bert_config.json']}", f"--max_seq_length={SEQ_LENGTH}",
                   f"--max_predictions_per_seq={MAX_PREDICTIONS}", f"--seed={args.seed}"]
    stage("pretraining", [
        "run_pretraining.py", *pretraining, f"--input_file={paths['pretraining.tfrecord']}",
        f"--output_dir={paths['pretrain']}", "--do_train", f"--train_batch_size={PRETRAIN_BATCH}",
        f"--num_train_steps={pretrain_steps}", f"--num_warmup_steps={pretrain_steps // 10}",
        "--learning_rate=2e-3", f"--save_checkpoints_steps={pretrain_steps}",
        f"--log_steps={max(pretrain_steps // 20, 1)}"], PRETRAIN_BATCH)
    # Scored on modules pretraining never saw: the training batches' own accuracy
    # also counts pairs the model has memorised.
    stage("held-out scoring", [
        "run_pretraining.py", *pretraining, f"--input_file={paths['held_out.tfrecord']}",
        f"--init_checkpoint={paths['pretrain']}", f"--output_dir={paths['pretrain_eval']}", "--do_eval",
        "--eval_batch_size=100", "--max_eval_steps=1000"])
    fine_tuning = [
        "run_classifier.py", "--task_name=custom", "--text_a_column=sentence", f"--data_dir={LABELLED_DIR}", f"--vocab_file={paths['vocab.txt']}",
        f"--bert_config_file={paths['bert_config.json']}", "--do_train", "--do_eval",
        f"--max_seq_length={SEQ_LENGTH}", f"--train_batch_size={FINE_TUNE_BATCH}", "--eval_batch_size=100",
        "--learning_rate=1e-4", f"--num_train_epochs={epochs}", "--log_steps=10", f"--seed={args.seed}"]
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
    served = subprocess.run([sys.executable, "-c", SERVE_IN_FRESH_PROCESS, paths["serving"], json.dumps(SENTENCES)],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    if served.returncode != 0:
        raise StageError("serving failed:\n" + served.stderr[-3000:])
    predictions = json.loads(served.stdout.split("SERVED ", 1)[1])
    timings["serving"] = time.time() - served_start

    pretraining = read_key_values(os.path.join(paths["pretrain_eval"], "eval_results.txt"))
    pretrained = read_key_values(os.path.join(paths["classifier"], "eval_results.txt"))
    scratch = read_key_values(os.path.join(paths["scratch"], "eval_results.txt"))
    print("\n=== summary")
    print(f"  built in {work}:")
    for name, what in (("vocab.txt", f"WordPiece vocabulary, {vocab_size} tokens"),
                       ("pretrain", f"pretrained 2-layer BERT (H={MODEL['hidden_size']}), checkpoint + bert_config.json"),
                       ("classifier", "classifier fine-tuned from it"),
                       ("serving", "its TF Serving SavedModel (raw text in)"),
                       ("hub", "TF Hub preprocessor + encoder of the pretrained model")):
        print(f"    {name + '/' if '.' not in name else name:<12} {what}")
    trained = last_logged_values(os.path.join(paths["logs"], "pretraining.log"))
    print(f"  pretraining ({pretrain_steps} steps of {PRETRAIN_BATCH}): last training batches masked-LM accuracy "
          f"{trained['masked_lm_accuracy']:.3f}, next-sentence accuracy {trained['next_sentence_accuracy']:.3f} "
          f"(majority label {majority_share(os.path.join(paths['logs'], 'pretraining_data.log')):.3f});")
    print(f"    scored on held-out modules: masked-LM accuracy {pretraining['masked_lm_accuracy']:.3f}, "
          f"next-sentence accuracy {pretraining['next_sentence_accuracy']:.3f} (majority label "
          f"{majority_share(os.path.join(paths['logs'], 'held-out_pretraining_data.log')):.3f})")
    with open(os.path.join(LABELLED_DIR, "dev.tsv"), encoding="utf-8") as f:
        dev_sentences = sum(1 for _ in f) - 1
    print(f"  fine-tuning, same budget, dev accuracy on {dev_sentences} sentences:"
          f"  from pretrained {pretrained['eval_accuracy']:.3f}   from scratch {scratch['eval_accuracy']:.3f}")
    print("  served predictions:")
    for sentence, (label, probability) in zip(SENTENCES, predictions):
        print(f"    {label:>9} ({probability:.2f})  {sentence}")
    for name, seconds in timings.items():
        print(f"  {name:<28} {seconds:6.1f} s")
    print(f"  {'total':<28} {time.time() - start:6.1f} s")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so a stopped job stops its running stage too
    try:
        main()
    except StageError as error:
        sys.exit(f"\nmain job: {error}")
