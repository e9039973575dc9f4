"""The main job on built-in defaults: a whole pretraining pipeline, small, on the CPU.

    python main.py                  # what `bash scripts/main.sh` runs (about 5 minutes, 2 idle cores)
    python main.py --family=xlnet   # the same job for XLNet (--family=gpt: OpenAI GPT; elmo: ELMo)
    python main.py --quick          # a reduced run that checks the pipeline (CI)

1. a corpus of real English from the installed Python's standard-library
   docstrings (a fifth of the modules held out for the labelled set),
2. the family's vocabulary learned from it (BERT: WordPiece; XLNet:
   SentencePiece; GPT: BPE; ELMo: the words of its LM softmax), and pretraining TFRecords,
3. pretrain a 2-layer model (BERT: masked LM + next sentence; XLNet: the
   permutation LM; GPT: the left-to-right LM; ELMo: the biLM's forward and
   backward LMs) and score it on the held-out modules,
4. fine-tune the same sentence classifier twice with the same budget, from the
   pretrained weights and from random initialisation, on 160 labelled sentences
   from held-out modules ("a real sentence, or its words scrambled?"), each at
   the learning rate that did best on a slice of those sentences among the
   rates whose run trained (left the label prior and fit its training data:
   `demo.learning_rate_choice`), and
   score both on 1,000 dev sentences from other held-out modules (ELMo:
   feature-based, the biLM frozen under a task BiLSTM, as its paper),
5. export the classifier SavedModel (raw text in) and the TF Hub encoder pair
   (and the family's own TF Hub module where its record has one: ELMo's),
6. load the SavedModel in a fresh process that imports only TensorFlow and
   tensorflow_text and classify a few sentences,
then print a summary of what was built, where, the metrics and the timings.
Every stage is a process of its own, forked from one interpreter that imported
TensorFlow once (`utils.warm_start`), but the serving stage (a new interpreter).
Nothing is downloaded.
"""

import argparse
import importlib
import importlib.util
import json
import os
import shutil
import signal
import sys
import time

from contracts import registry
from demo.learning_rate_choice import (RATES, chosen_rate, majority_share, selection_rows, trained,
                                      write_selection_split)
from demo.pretrained import FamilyJob, read_key_values
from demo.progress import Stage, StageError, run_stage, run_stages
from demo.stdlib_corpus import write_corpus
from demo.threads import cores, shared_out
from utils.warm_start import WarmStart

ROOT = os.path.dirname(os.path.abspath(__file__))
LABELLED_DIR = os.path.join(ROOT, "assets", "demo_word_order")
# Each family's part of the job is `<its home>/main_job.py`, where it has one (found without
# importing the family's record, which would load TensorFlow into this process).
FAMILIES = tuple(name for name in registry.names()
                 if importlib.util.find_spec(f"{registry.home(name)}.main_job"))
FINE_TUNE_BATCH = 16
WORK_MARK = ".main_job"  # in a work_dir this job made: a rerun clears only such a folder
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


def fresh_work_dir(work):
    """An empty `work`: the runners resume from what they find, and a rerun should
    redo everything. Only a folder this job made (its `WORK_MARK` inside) is
    cleared; any other folder with something in it is refused, nothing deleted."""
    if os.path.exists(work) and not os.path.isdir(work):
        sys.exit(f"error: --work_dir={work} is a file, not a folder")
    if os.path.isdir(work) and os.listdir(work):
        if not os.path.exists(os.path.join(work, WORK_MARK)):
            held = ", ".join(sorted(os.listdir(work))[:5])
            sys.exit(f"error: --work_dir={work} holds files the main job did not write ({held}); "
                     "give a new or empty folder")
        shutil.rmtree(work)
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, WORK_MARK), "w", encoding="utf-8") as f:
        f.write("made by main.py: a rerun of the main job clears this folder\n")


def fit_summary(chosen, results, chance):
    """Whether an arm fit its training data, in the summary's words (`chance`: the majority's accuracy, points)."""
    rate, any_trained = chosen
    fit = (f"training loss {results['train_loss']:.3f} against the label prior's {results['prior_loss']:.3f}, "
           f"train accuracy {results['train_split_accuracy']:.3f} against the majority's {chance / 100:.3f}")
    if not any_trained:
        return f"(lr {rate:g}; no rate trained on the slice; {fit})"
    verdict = "fit its training data" if trained(results, chance) else "did NOT fit its training data"
    return f"(lr {rate:g}; {fit}: {verdict})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), default="bert", help="the model family")
    parser.add_argument("--work_dir", default=None, help="default: runs/main (BERT), runs/main_<family>")
    parser.add_argument("--quick", action="store_true", help="few steps: checks the pipeline only")
    parser.add_argument("--seed", type=int, default=12345, help="seed of data, initialisation and order")
    args = parser.parse_args()
    family = importlib.import_module(f"{registry.home(args.family)}.main_job")
    work = os.path.abspath(args.work_dir or os.path.join(
        ROOT, "runs", "main" if args.family == "bert" else f"main_{args.family}"))
    fresh_work_dir(work)
    paths = {name: os.path.join(work, name) for name in (
        "corpus.txt", "held_out.txt", "classifier", "scratch", "serving", "hub", "logs", "selection_data",
        "selection_classifier", "selection_scratch")}
    # TF_CPP_MIN_LOG_LEVEL=3: no C++ start-up lines (e.g. cuInit's "no CUDA device") on a CPU machine.
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ROOT}
    os.makedirs(paths["logs"])
    # The stages fork from one interpreter that imported TensorFlow while the corpus is written.
    with open(os.path.join(paths["logs"], "warm_start.log"), "w", encoding="utf-8") as server_log, \
            WarmStart(env, stderr=server_log) as warm:
        run_job(args, family, work, paths, env, warm)


def run_job(args, family, work, paths, env, warm):
    """The job's stages, each a process of its own forked from `warm` (a `WarmStart`)."""
    timings, together, start = {}, set(), time.time()

    def log(name):
        return os.path.join(paths["logs"], name.replace(" ", "_") + ".log")

    def stage(name, args, batch_size=None, threads=None):
        """One stage; `threads`: environment variables sizing its TensorFlow thread pools."""
        timings[name] = run_stage(name, args, log(name), ROOT, {**env, **(threads or {})}, batch_size, warm)

    def side_by_side(*stages):
        """`Stage`s one per core at a time (at least two), the cores shared out: each spends
        much of its time on one thread (start-up, tracing, small ops), so side by side they
        take less wall time than one after the other."""
        slots = min(len(stages), max(cores(), 2))
        for stage in stages:
            stage.log_path, stage.env = log(stage.name), {**env, **shared_out(slots)}
        together.update(stage.name for stage in stages)
        timings.update(run_stages(stages, ROOT, slots, warm))

    print("=== corpus", flush=True)
    max_modules = 40 if args.quick else None
    modules, documents, size = write_corpus(paths["corpus.txt"], max_modules)
    held_modules, _, held_size = write_corpus(paths["held_out.txt"], max_modules, held=True)
    timings["corpus"] = time.time() - start
    print(f"  {documents} docstrings of {modules} modules, {size / 1e6:.1f} MB of standard-library "
          f"docstrings; {held_modules} held-out modules ({held_size / 1e6:.2f} MB) to score pretraining on",
          flush=True)
    pretrained = family.pretrain(FamilyJob(stage), work, paths["corpus.txt"], paths["held_out.txt"], args.seed,
                                 args.quick)
    def fine_tuning(data_dir, *learning_rate):
        return ["run_classifier.py", "--task_name=custom", "--text_a_column=sentence", f"--data_dir={data_dir}",
                *pretrained.runner_flags, "--do_train", "--do_eval", f"--max_seq_length={pretrained.seq_length}",
                f"--train_batch_size={FINE_TUNE_BATCH}", "--eval_batch_size=100", *learning_rate,
                f"--num_train_epochs={1.0 if args.quick else 10.0}", "--log_steps=10", f"--seed={args.seed}",
                "--eval_train"]

    arms = {"classifier": [f"--init_checkpoint={pretrained.checkpoint}"], "scratch": []}
    titles = {"classifier": "from pretrained", "scratch": "from scratch"}
    write_selection_split(LABELLED_DIR, paths["selection_data"], args.seed)
    # The quick job checks the pipeline: one rate (the family's) is selected from.
    rates = (pretrained.learning_rate,) if args.quick else RATES
    side_by_side(*(Stage(f"learning rate {titles[arm]}", [
        *fine_tuning(paths["selection_data"], f"--learning_rates={','.join(f'{r:g}' for r in rates)}"),
        *flags, f"--output_dir={paths['selection_' + arm]}"], FINE_TUNE_BATCH) for arm, flags in arms.items()))
    chance = {data: majority_share(data) for data in (paths["selection_data"], LABELLED_DIR)}
    chosen = {arm: chosen_rate(selection_rows(paths[f"selection_{arm}"], rates), chance[paths["selection_data"]])
              for arm in arms}
    side_by_side(
        Stage("fine-tuning from pretrained", [
            *fine_tuning(LABELLED_DIR, f"--learning_rate={chosen['classifier'][0]:g}"), *arms["classifier"],
            f"--output_dir={paths['classifier']}", f"--export_dir={paths['serving']}"], FINE_TUNE_BATCH),
        Stage("fine-tuning from scratch", [*fine_tuning(LABELLED_DIR, f"--learning_rate={chosen['scratch'][0]:g}"),
                                           f"--output_dir={paths['scratch']}"], FINE_TUNE_BATCH),
        Stage("serving in a fresh process", ["-c", SERVE_IN_FRESH_PROCESS, paths["serving"], json.dumps(SENTENCES)],
              after=("fine-tuning from pretrained",), cold=True),
        Stage("TF Hub export", [
            "-m", "export.export_hub", f"--init_checkpoint={pretrained.checkpoint}", *pretrained.runner_flags,
            f"--seq_length={pretrained.seq_length}", f"--export_dir={paths['hub']}"]))
    with open(log("serving in a fresh process"), encoding="utf-8") as f:
        predictions = json.loads(f.read().split("SERVED ", 1)[1].splitlines()[0])

    results = {arm: read_key_values(os.path.join(paths[arm], "eval_results.txt")) for arm in arms}
    print("\n=== summary")
    print(f"  built in {work}:")
    for name, what in [*pretrained.built, ("classifier", "classifier fine-tuned from it"),
                       ("serving", "its TF Serving SavedModel (raw text in)"),
                       ("hub", "TF Hub preprocessor + encoder of the pretrained model")]:
        print(f"    {name + '/' if '.' not in name else name:<12} {what}")
    for line in pretrained.summary:
        print("  " + line)
    with open(os.path.join(LABELLED_DIR, "dev.tsv"), encoding="utf-8") as f:
        dev_sentences = sum(1 for _ in f) - 1
    print(f"  fine-tuning, same budget, dev accuracy on {dev_sentences} sentences (learning rate chosen on a "
          f"slice of the train split from {', '.join(f'{r:g}' for r in rates)}):")
    for arm, title in titles.items():
        print(f"    {title:<16} {results[arm]['eval_accuracy']:.3f}  "
              f"{fit_summary(chosen[arm], results[arm], chance[LABELLED_DIR])}")
    print("  served predictions:")
    for sentence, (label, probability) in zip(SENTENCES, predictions):
        print(f"    {label:>9} ({probability:.2f})  {sentence}")
    for name, seconds in timings.items():
        print(f"  {name:<28} {seconds:6.1f} s" + ("  (side by side)" if name in together else ""))
    print(f"  {'total':<28} {time.time() - start:6.1f} s")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so a stopped job stops its running stage too
    try:
        main()
    except StageError as error:
        sys.exit(f"\nmain job: {error}")
