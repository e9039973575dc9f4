"""The fine-tuning tasks every system is scored on, each through its runner.

| name | runner | data | metric | level |
| --- | --- | --- | --- | --- |
| `pos` | run_ner.py | CoNLL-2003's part-of-speech column (`--conll_data_dir`) | token accuracy | token |
| `chunk` | run_ner.py | CoNLL-2003's chunk column | chunk F1 | token |
| `ner` | run_ner.py | CoNLL-2003's entity column | entity F1 | token |
| `sts_b` | run_classifier.py | GLUE STS-B (`--glue_data_dir`) | Pearson | sentence pair |
| `sst_2` | run_classifier.py | GLUE SST-2 | accuracy | sentence |
| `mrpc` | run_classifier.py | GLUE MRPC | accuracy | sentence pair |
| `word_order` | run_classifier.py | built: bigram shift of held-out sentences | accuracy | sentence |
| `next_sentence` | run_swag.py | built: held-out documents, same-document distractors | accuracy | sentence pair |
| `squad` | run_squad.py | a SQuAD v1.1 file split by article (`--squad_file`) | F1 | token |

A task whose data is not given is left out and the report says so; every
task's train and dev examples are a fixed subset (`comparisons.task_data`),
lower-cased (the comparison's one casing policy: GPT's original pipeline
lower-cases, so every family reads lower-cased text).
"""

import dataclasses
import os

from comparisons import corpus, probing_sets, task_data
from comparisons.task_files import CONLL, JSONL, SQUAD, TSV


@dataclasses.dataclass(frozen=True)
class Sources:
    """Where the labelled data and the corpus come from; None: not given."""

    glue_data_dir: str = None  # holds SST-2/, STS-B/, MRPC/ (GLUE's download layout)
    conll_data_dir: str = None  # train.txt and dev.txt of CoNLL-2003
    squad_file: str = None  # a SQuAD v1.1 file (split by article into train and dev)
    wikitext_files: tuple = ()  # WikiText files joining the built-in corpus
    corpus: str = None  # a user's corpus instead of the built-in one, WikiText and the tasks' text


@dataclasses.dataclass(frozen=True)
class Downstream:
    """One task: `prepare(sources, directory, num_train, num_dev, seed,
    held_out)` writes its fixed subset under `directory` and returns (runner
    flags for it, example counts), or None when `sources` lack its data;
    `files` is its layout (`comparisons.task_files`: how it is sliced,
    lower-cased and read by the baselines); `metric` is the key of the
    results file the runner writes, `scale` turns it into the papers' points;
    `extra_flags(seq_length)` are its runner's own settings, `eval_batch_flag`
    the flag of its evaluation batch."""

    name: str
    title: str
    runner: str
    kind: str  # the family task it is (`families.family.TASKS`): a family not supporting it skips it
    metric: str
    metric_title: str
    level: str
    prepare: object
    files: object
    results_file: str = "eval_results.txt"
    scale: float = 100.0
    extra_flags: object = lambda seq_length: []
    eval_batch_flag: str = "--eval_batch_size"


def _glue(task_name):
    def prepare(sources, directory, num_train, num_dev, seed, held_out):
        if not sources.glue_data_dir:
            return None
        counts = task_data.glue_subset(os.path.join(sources.glue_data_dir, task_name), directory,
                                       num_train, num_dev, seed)
        return [f"--task_name={task_name}", f"--data_dir={directory}"], counts
    return prepare


def _conll(tag_column, scheme):
    def prepare(sources, directory, num_train, num_dev, seed, held_out):
        if not sources.conll_data_dir:
            return None
        counts = task_data.conll_subset(sources.conll_data_dir, directory, num_train, num_dev, seed)
        return [f"--data_dir={directory}", f"--tag_column={tag_column}", f"--tag_scheme={scheme}"], counts
    return prepare


def _word_order(sources, directory, num_train, num_dev, seed, held_out):
    counts = probing_sets.write_word_order(directory, list(corpus.user_corpus(held_out)), num_train, num_dev, seed)
    return ["--task_name=custom", "--text_a_column=sentence", f"--data_dir={directory}"], counts


def _next_sentence(sources, directory, num_train, num_dev, seed, held_out):
    counts = corpus.write_next_sentence_choice(directory, list(corpus.user_corpus(held_out)), num_train, num_dev,
                                               seed)
    return [f"--data_dir={directory}"], counts


def _squad(sources, directory, num_train, num_dev, seed, held_out):
    if not sources.squad_file:
        return None
    counts = task_data.squad_split(sources.squad_file, directory, num_dev / (num_train + num_dev), seed)
    return [f"--train_file={directory}/train.json", f"--predict_file={directory}/dev.json"], counts


def _windows(seq_length):
    return [f"--doc_stride={seq_length // 2}"]


TASKS = (
    Downstream("pos", "CoNLL-2003 part of speech", "run_ner", "tagging", "eval_accuracy", "token accuracy", "token",
               _conll(1, "tags"), CONLL(1), extra_flags=_windows),
    Downstream("chunk", "CoNLL-2003 chunks", "run_ner", "tagging", "eval_f1", "chunk F1", "token",
               _conll(2, "chunks"), CONLL(2), extra_flags=_windows),
    Downstream("ner", "CoNLL-2003 NER", "run_ner", "tagging", "eval_f1", "entity F1", "token",
               _conll(3, "chunks"), CONLL(3), extra_flags=_windows),
    Downstream("sts_b", "STS-B", "run_classifier", "classification", "eval_pearson", "Pearson r", "sentence",
               _glue("STS-B"), TSV("similarity", text_columns=(7, 8), label_column=9, glue_task="sts-b")),
    Downstream("sst_2", "SST-2", "run_classifier", "classification", "eval_accuracy", "accuracy", "sentence",
               _glue("SST-2"), TSV("classification", text_columns=(0,), label_column=1)),
    Downstream("mrpc", "MRPC", "run_classifier", "classification", "eval_accuracy", "accuracy", "sentence",
               _glue("MRPC"), TSV("pair_classification", text_columns=(3, 4), label_column=0, glue_task="mrpc")),
    Downstream("word_order", "word order (bigram shift)", "run_classifier", "classification", "eval_accuracy",
               "accuracy", "sentence", _word_order,
               TSV("classification", text_columns=(0,), label_column=1, word_order=True)),
    Downstream("next_sentence", "next-sentence choice (same document)", "run_swag", "multiple_choice",
               "eval_accuracy", "accuracy", "sentence", _next_sentence, JSONL()),
    Downstream("squad", "SQuAD v1.1 (by article)", "run_squad", "question_answering", "f1", "F1", "token", _squad,
               SQUAD(), results_file="eval_results.json", scale=1.0, eval_batch_flag="--predict_batch_size",
               extra_flags=lambda seq_length: [f"--doc_stride={seq_length // 2}",
                                               f"--max_query_length={seq_length // 4}"]),
)
BY_NAME = {t.name: t for t in TASKS}
