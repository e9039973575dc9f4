"""How far a bfloat16 export's predictions are from its float32 export's on real
fine-tuned weights: each GLUE task fine-tuned from one checkpoint on a slice of
its train split (`run_classifier.py`), then its task model built as
`export.export_model` builds it in either `--export_precision` from the same
weights, and both scored on the dev split. `NER` (CoNLL-2003) is fine-tuned
by `run_ner.py` on the first `--train_examples` sentences, exported in both
precisions as `export.export_model` writes them, and both SavedModels served on every dev
sentence (its words joined by spaces) through `serving_default`. `SQuAD` (v1.1)
is fine-tuned by `run_squad.py` on the first articles of `--squad_file`, and its
two exports served every question of the articles after them.

    python benchmarks/export_precision_agreement.py --init_checkpoint=<MiniLM dir> \\
        --tasks=SST-2,MRPC,STS-B,NER,SQuAD --train_examples=2000

Per task: the metric of each precision (accuracy; Pearson for STS-B;
conlleval's entity F1 for NER, the served entities read back as word tags;
the official v1.1 exact match and F1 for SQuAD), the share of examples (NER:
words; SQuAD: answers, as text) whose prediction agrees, and the largest
absolute difference of a logit and of a probability (GLUE) or of an answer's
score (SQuAD). The GLUE models run in this process
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
CONLL = os.path.join(os.path.dirname(ROOT), "shared", "data", "conll2003")
SQUAD = os.path.join(os.path.dirname(ROOT), "shared", "data", "squad", "dev-v1.1-part1.json")
PRECISIONS = ("float32", "bfloat16")


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


def conll_slice(conll_dir, sentences, into):
    """A data dir holding the first `sentences` sentences of `conll_dir`'s train.txt
    (its -DOCSTART- lines kept) and its dev.txt."""
    os.makedirs(into, exist_ok=True)
    with open(os.path.join(conll_dir, "train.txt"), encoding="utf-8") as f:
        blocks = f.read().split("\n\n")
    kept, count = [], 0
    for block in blocks:
        if count == sentences:
            break
        kept.append(block)
        count += bool(block.strip()) and not block.startswith("-DOCSTART-")
    with open(os.path.join(into, "train.txt"), "w", encoding="utf-8") as f:
        f.write("\n\n".join(kept) + "\n")
    dev = os.path.join(into, "dev.txt")
    if not os.path.exists(dev):
        os.symlink(os.path.join(conll_dir, "dev.txt"), dev)
    return into


def squad_split(squad_file, questions, into):
    """train.json: the first articles of `squad_file` that hold at least
    `questions` questions; predict.json: the articles after them."""
    with open(squad_file, encoding="utf-8") as f:
        squad = json.load(f)
    count, cut = 0, 0
    while count < questions and cut < len(squad["data"]):
        count += sum(len(p["qas"]) for p in squad["data"][cut]["paragraphs"])
        cut += 1
    if cut == len(squad["data"]):
        raise ValueError(f"{squad_file}: no article left to predict after {count} training questions")
    os.makedirs(into, exist_ok=True)
    for name, articles in (("train.json", squad["data"][:cut]), ("predict.json", squad["data"][cut:])):
        with open(os.path.join(into, name), "w", encoding="utf-8") as f:
            json.dump({**squad, "data": articles}, f)
    return into


def fine_tune(args, runner, task_flags, output_dir):
    """`runner` (run_classifier.py, run_ner.py, run_squad.py) trained from `--init_checkpoint` into `output_dir`."""
    if os.path.isfile(os.path.join(output_dir, "export_meta.json")):
        return output_dir  # fine-tuned by an earlier run of this script
    done = subprocess.run([
        sys.executable, os.path.join(ROOT, runner), *task_flags,
        f"--init_checkpoint={args.init_checkpoint}", f"--output_dir={output_dir}", "--do_train",
        f"--max_seq_length={args.max_seq_length}", f"--train_batch_size={args.batch}",
        f"--learning_rate={args.learning_rate}", f"--num_train_epochs={args.epochs}", "--mixed_precision=none",
        f"--seed={args.seed}"], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{runner} {' '.join(task_flags)} failed:\n{done.stderr[-3000:]}")
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
    out = {p: logits(meta, run_dir, p, ids, batch) for p in PRECISIONS}
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


def export(run_dir, precision, export_dir):
    """`run_dir`'s SavedModel in `precision`, written as `export.export_model` writes it (reused when there)."""
    from export.export_meta import read_export_meta
    from export.export_model import export_model
    if os.path.isfile(os.path.join(export_dir, "saved_model.pb")):
        return export_dir
    return export_model(read_export_meta(run_dir), export_dir, run_dir, precision)


def served_entities(export_dir, texts, batch):
    """[(type, start, end), ...] per text, from the NER SavedModel's `serving_default`."""
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (the in-graph tokenizer's ops)
    serve = tf.saved_model.load(export_dir).signatures["serving_default"]
    entities = []
    for i in range(0, len(texts), batch):
        out = {k: v.numpy() for k, v in serve(text=tf.constant(texts[i:i + batch])).items()}
        for row, count in enumerate(out["num_entities"]):
            entities.append([(out["entity_types"][row, k].decode(), int(out["entity_starts"][row, k]),
                              int(out["entity_ends"][row, k])) for k in range(count)])
    return entities


def word_tags(words, entities):
    """IOB2 tags of `words` (joined by spaces) from served character spans: an
    entity tags every word its span overlaps."""
    spans, start = [], 0
    for word in words:
        spans.append((start, start + len(word)))
        start += len(word) + 1
    tags = ["O"] * len(words)
    for entity_type, begin, end in entities:
        covered = [i for i, (s, e) in enumerate(spans) if s < end and e > begin]
        for n, i in enumerate(covered):
            tags[i] = ("B-" if n == 0 else "I-") + entity_type
    return tags


def ner_agreement(run_dir, work, dev_file, batch):
    from tasks.tagging.conll_reader import read_tagged_file
    from tasks.tagging.metrics import entity_scores
    sentences = read_tagged_file(dev_file)
    texts = [" ".join(s.words) for s in sentences]
    gold = [list(s.tags) for s in sentences]
    tags = {p: [word_tags(s.words, e) for s, e in zip(
        sentences, served_entities(export(run_dir, p, os.path.join(work, f"export_{p}")), texts, batch))]
        for p in PRECISIONS}
    row = {"task": "NER", "dev_examples": len(sentences)}
    for p in PRECISIONS:
        row[f"{p}_f1"] = entity_scores(gold, tags[p]).f1
    between = entity_scores(tags["float32"], tags["bfloat16"])
    row["labels_agree"] = between.accuracy
    row["entities_agree_f1"] = between.f1
    return row


def served_answers(export_dir, questions, contexts, batch):
    """(answer_text, score) per question, from the SQuAD SavedModel's `serving_default`."""
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (the in-graph tokenizer's ops)
    serve = tf.saved_model.load(export_dir).signatures["serving_default"]
    texts, scores = [], []
    for i in range(0, len(questions), batch):
        out = serve(question=tf.constant(questions[i:i + batch]), context=tf.constant(contexts[i:i + batch]))
        texts += [t.decode() for t in out["answer_text"].numpy()]
        scores += out["score"].numpy().tolist()
    return texts, np.array(scores)


def squad_agreement(run_dir, work, predict_file, batch):
    from tasks.question_answering.metrics import squad_v1_scores
    with open(predict_file, encoding="utf-8") as f:
        articles = json.load(f)["data"]
    qas = [(qa["id"], qa["question"], p["context"]) for a in articles for p in a["paragraphs"] for qa in p["qas"]]
    ids, questions, contexts = zip(*qas)
    served = {p: served_answers(export(run_dir, p, os.path.join(work, f"export_{p}")), list(questions),
                                list(contexts), batch) for p in PRECISIONS}
    row = {"task": "SQuAD", "dev_examples": len(ids)}
    for p, (texts, _) in served.items():
        scores = squad_v1_scores(articles, dict(zip(ids, texts)))
        row[f"{p}_exact_match"], row[f"{p}_f1"] = scores["exact_match"] / 100, scores["f1"] / 100
    (texts32, scores32), (texts16, scores16) = served["float32"], served["bfloat16"]
    row["labels_agree"] = float(np.mean([a == b for a, b in zip(texts32, texts16)]))
    row["max_abs_score_difference"] = float(np.abs(scores16 - scores32).max())
    return row


def task_row(args, task):
    work = os.path.join(args.output_dir, task)
    if task == "NER":
        data_dir = conll_slice(args.conll_dir, args.train_examples, os.path.join(work, "data"))
        run_dir = fine_tune(args, "run_ner.py", [f"--data_dir={data_dir}"], os.path.join(work, "run"))
        return ner_agreement(run_dir, work, os.path.join(data_dir, "dev.txt"), args.batch)
    if task == "SQuAD":
        data_dir = squad_split(args.squad_file, args.train_examples, os.path.join(work, "data"))
        run_dir = fine_tune(args, "run_squad.py", [f"--train_file={os.path.join(data_dir, 'train.json')}",
                                                   f"--max_query_length={args.max_seq_length // 4}",
                                                   f"--doc_stride={args.max_seq_length // 4}"],
                            os.path.join(work, "run"))
        return squad_agreement(run_dir, work, os.path.join(data_dir, "predict.json"), args.batch)
    data_dir = train_slice(os.path.join(args.glue_dir, task), args.train_examples, os.path.join(work, "data"))
    run_dir = fine_tune(args, "run_classifier.py", [f"--task_name={task}", f"--data_dir={data_dir}"],
                        os.path.join(work, "run"))
    return agreement(task, run_dir, data_dir, args.batch)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--init_checkpoint", required=True, help="the checkpoint every task fine-tunes from")
    parser.add_argument("--tasks", default="SST-2,MRPC,STS-B,NER,SQuAD")
    parser.add_argument("--glue_dir", default=GLUE)
    parser.add_argument("--conll_dir", default=CONLL)
    parser.add_argument("--squad_file", default=SQUAD,
                        help="SQuAD v1.1 json: its first articles train, the rest are predicted")
    parser.add_argument("--output_dir", default=os.path.join(ROOT, "runs", "export_precision_agreement"))
    parser.add_argument("--train_examples", type=int, default=2000,
                        help="training rows of each task (NER: sentences; SQuAD: questions, whole articles)")
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from benchmarks.common import host_description
    rows = []
    for task in args.tasks.split(","):
        rows.append(task_row(args, task))
        print(json.dumps(rows[-1]), flush=True)
    print(host_description())
    print(f"{'task':<8} {'dev':>5} {'float32':>8} {'bfloat16':>8} {'labels agree':>12} {'max |dlogit|':>12} "
          f"{'max |dprob|':>11}")
    for row in rows:
        metric = next(m for m in ("pearson", "accuracy", "exact_match", "f1") if f"float32_{m}" in row)
        print(f"{row['task']:<8} {row['dev_examples']:>5} {row[f'float32_{metric}']:8.4f} "
              f"{row[f'bfloat16_{metric}']:8.4f} {row.get('labels_agree', float('nan')):12.4f} "
              f"{row.get('max_abs_logit_difference', float('nan')):12.4f} "
              f"{row.get('max_abs_probability_difference', float('nan')):11.4f}")
    with open(os.path.join(args.output_dir, "agreement.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
