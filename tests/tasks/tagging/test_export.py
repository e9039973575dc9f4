"""The NER SavedModel in a fresh tensorflow + tensorflow_text process: the
entities it returns are the ones the training-time windows
(`tasks.tagging.features`), the model in process and seqeval's conlleval chunker
give, with character offsets into the input; hostile text included. For BERT
(basic-tokenizer words, `[CLS]` first) and XLNet (whitespace words,
SentencePiece, windows padded on the left) with a CRF, whose served tags are
the Viterbi tags of each window's words, as in evaluation. A plain tag set
(part of speech) serves each word's tag."""

import base64
import json

import keras
import numpy as np
import pytest
from seqeval.metrics.sequence_labeling import get_entities

from checkpoints.ours import save_weights
from export.export_meta import ExportMeta, read_export_meta, write_export_meta
from export.export_model import build_task_model, export_model
from families.xlnet.config import XLNetConfig
from families.xlnet.encoder import XLNetEncoder
from modeling.crf import TRANSITIONS_OUTPUT, viterbi_tags
from tasks.tagging.conll_reader import TaggedSentence
from tasks.tagging.features import build_tagging_features
from tasks.tagging.model import TokenClassifier
from tasks.tagging.predictions import values_per_word
from tests.export_harness import (HOSTILE_TEXTS, TINY_CONFIG, check_warmup_requests, run_fresh,
                                  sentences)
from tests.families.xlnet.spiece_model import learn_spiece_model

LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")
SEQ_LENGTH, DOC_STRIDE = 16, 4  # several windows per sentence
# Words as each family's serving module splits text (a word without pieces is none).
WORDS = {"bert": lambda text, t: tuple(w for w, _ in text.tokenizer.tokenize_words(t)),
         "xlnet": lambda text, t: tuple(w for w in t.split() if text.encode(w))}

_LOADER = """
import base64, json
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401

reports = {}
for key, request in ARGS["exports"].items():
    loaded = tf.saved_model.load(request["export_dir"])
    serve = loaded.signatures["serving_default"]
    report = reports[key] = {"cli": saved_model_cli_show(request["export_dir"])}
    for name in ("texts", "alone"):
        texts = [base64.b64decode(t) for t in request[name]]
        batches = [texts] if name == "texts" else [[t] for t in texts] + [[]]
        report[name] = []
        for batch in batches:
            outputs = serve(text=tf.constant(batch, tf.string))
            report[name].append({k: [[x.decode("utf-8") if isinstance(x, bytes) else int(x)
                                      for x in np.atleast_1d(row)] for row in v.numpy()]
                                 for k, v in outputs.items()})
print(json.dumps(reports))
"""


def _xlnet_crf_meta(directory):
    config = XLNetConfig.from_preset("xlnet_tiny").replace(n_token=128, initializer_range=0.5)
    task_model = keras.saving.serialize_keras_object(
        TokenClassifier(XLNetEncoder(config), len(LABELS), crf=True))
    return ExportMeta("ner", config, learn_spiece_model(directory), do_lower_case=False,
                      max_seq_length=SEQ_LENGTH, label_list=LABELS, doc_stride=DOC_STRIDE,
                      task_model=task_model)


def _export(tmp, seed, make_meta, crf_seed=None):
    """A random task model of `make_meta(tmp)`'s export meta, exported as a run's
    output_dir would be: (model, text side, export_dir)."""
    keras.utils.set_random_seed(seed)
    meta = make_meta(tmp)
    model = build_task_model(meta)
    if crf_seed is not None:  # transitions strong enough to overrule the logits
        for weight in model.get_layer("crf").weights:
            weight.assign(np.random.default_rng(crf_seed).normal(0, 3, weight.shape))
    run_dir = str(tmp / "run")
    save_weights(model, run_dir)
    write_export_meta(run_dir, meta)
    return model, meta.text_side(), export_model(read_export_meta(run_dir), str(tmp / meta.task / "1"), run_dir)


def _encoded(texts):
    return [base64.b64encode(t.encode("utf-8")).decode() for t in texts]


TEXTS = sentences() + HOSTILE_TEXTS
ALONE = HOSTILE_TEXTS[:2] + [sentences()[0]]
POS_TAGS = (".", "DT", "JJ", "NN", "NNP", "VBZ")


@pytest.fixture(scope="module")
def exports(tmp_path_factory, uncased_vocab_file):
    """The NER exports (BERT; XLNet with a CRF) and a BERT tagger of a plain tag set,
    exported from their runs' export_meta.json (which records `tag_scheme`) and
    served in one fresh process that sees no project code (one for the three: the
    claim is another process, not a process per export): {name: (model, text
    side, export_dir, report)}."""
    # A wide initialisation makes the random models predict entities (tags) of every kind.
    def bert(labels, **scheme):
        return lambda tmp: ExportMeta("ner", TINY_CONFIG.replace(initializer_range=0.5), uncased_vocab_file,
                                      max_seq_length=SEQ_LENGTH, label_list=labels, doc_stride=DOC_STRIDE, **scheme)

    built = {"bert": _export(tmp_path_factory.mktemp("ner_bert"), 11, bert(LABELS)),
             "xlnet_crf": _export(tmp_path_factory.mktemp("ner_xlnet_crf"), 11, _xlnet_crf_meta, crf_seed=5),
             "pos": _export(tmp_path_factory.mktemp("pos"), 12, bert(POS_TAGS, tag_scheme="tags"))}
    requests = {name: {"export_dir": export_dir, "texts": _encoded(TEXTS),
                       "alone": _encoded(ALONE) if name != "pos" else []}
                for name, (_, _, export_dir) in built.items()}
    workdir = tmp_path_factory.mktemp("served")
    reports = json.loads(run_fresh(_LOADER, workdir, exports=requests).strip().splitlines()[-1])
    return {name: (*made, reports[name]) for name, made in built.items()}


@pytest.fixture(scope="module", params=["bert", "xlnet_crf"])
def exported(request, exports):
    model, text, export_dir, _ = exports[request.param]
    return {"name": request.param, "model": model, "export_dir": export_dir, "text": text,
            "family": request.param.split("_")[0]}


@pytest.fixture(scope="module")
def served(exports, exported):
    return exports[exported["name"]][3], TEXTS, ALONE


def _expected_entities(exported, texts):
    """Entities from the training pipeline: the family's words, training
    windows, the model in process, seqeval chunks. [(type, first word, last word, words)]."""
    text = exported["text"]
    sentence_words = [WORDS[exported["family"]](text, t) for t in texts]
    tagged = [TaggedSentence(words, ("O",) * len(words), i, "served", 1)
              for i, words in enumerate(sentence_words)]
    features = build_tagging_features(tagged, text, {l: i for i, l in enumerate(LABELS)},
                                      SEQ_LENGTH, DOC_STRIDE)
    outputs = exported["model"](features.inputs, training=False)
    predicted = np.asarray(outputs["logits"]).argmax(-1)
    if TRANSITIONS_OUTPUT in outputs:
        tags = np.asarray(viterbi_tags(outputs["logits"], outputs[TRANSITIONS_OUTPUT],
                                       features.label_weights > 0))
        labelled = features.label_weights > 0
        assert (tags[labelled] != predicted[labelled]).mean() > 0.2  # not the argmax's tags
        predicted = tags
    labels = values_per_word(features.label_weights, features.word_index,
                             features.sentence_index, predicted)
    return [[(kind, first, last, words[first:last + 1])
             for kind, first, last in get_entities([LABELS[i] for i in labels.get(n, [])])]
            for n, words in enumerate(sentence_words)], text


def _check(outputs, texts, expected, text_side):
    for row, (text, entities) in enumerate(zip(texts, expected)):
        count = outputs["num_entities"][row][0]
        assert count == len(entities), (row, text[:80])
        assert outputs["entity_types"][row][:count] == [kind for kind, *_ in entities]
        for column, (_, _, _, words) in enumerate(entities):
            start, end = outputs["entity_starts"][row][column], outputs["entity_ends"][row][column]
            entity_text = outputs["entity_texts"][row][column]
            assert text[start:end] == entity_text
            assert text_side.encode(entity_text) == [p for w in words for p in text_side.encode(w)]
        width = len(outputs["entity_types"][row])
        assert outputs["entity_types"][row][count:] == [""] * (width - count)
        assert outputs["entity_starts"][row][count:] == [-1] * (width - count)


def test_entities_equal_the_training_pipeline(exported, served):
    report, texts, _ = served
    expected, text_side = _expected_entities(exported, texts)
    assert sum(len(e) for e in expected) > 20  # the check is not vacuous
    _check(report["texts"][0], texts, expected, text_side)


def test_hostile_text_alone_and_empty_batch(exported, served):
    """Text without words has no entities; a batch of one or none works."""
    report, _, alone = served
    expected, text_side = _expected_entities(exported, alone)
    for outputs, text, entities in zip(report["alone"], alone, expected):
        _check(outputs, [text], [entities], text_side)
    assert report["alone"][0]["num_entities"] == [[0]] and report["alone"][1]["num_entities"] == [[0]]
    assert report["alone"][-1]["num_entities"] == []


def test_saved_model_cli_lists_the_outputs(served):
    shown = served[0]["cli"]
    assert "signature_def['serving_default']" in shown
    for name in ("text", "entity_types", "entity_texts", "entity_starts", "entity_ends",
                 "num_entities"):
        assert f"['{name}']" in shown, name


def test_warmup_requests_run(exported):
    check_warmup_requests(exported["export_dir"], {"serving_default": (
        "entity_types", "entity_texts", "entity_starts", "entity_ends", "num_entities")})


@pytest.fixture(scope="module")
def tags_served(exports):
    model, text_side, export_dir, report = exports["pos"]
    return model, text_side, TEXTS, report, export_dir


def test_a_plain_tag_set_serves_each_words_tag_as_the_training_pipeline(tags_served):
    model, text_side, texts, report, export_dir = tags_served
    words = [WORDS["bert"](text_side, t) for t in texts]
    tagged = [TaggedSentence(w, (".",) * len(w), i, "served", 1) for i, w in enumerate(words)]
    features = build_tagging_features(tagged, text_side, {t: i for i, t in enumerate(POS_TAGS)},
                                      SEQ_LENGTH, DOC_STRIDE)
    predicted = np.asarray(model(features.inputs, training=False)["logits"]).argmax(-1)
    expected = values_per_word(features.label_weights, features.word_index, features.sentence_index,
                               predicted)
    outputs = report["texts"][0]
    assert len({t for row in outputs["word_tags"] for t in row} - {""}) > 2  # not one tag throughout
    for row, (text, row_words) in enumerate(zip(texts, words)):
        count = outputs["num_words"][row][0]
        assert count == len(row_words), (row, text[:80])
        assert outputs["word_tags"][row][:count] == [POS_TAGS[i] for i in expected.get(row, [])]
        for column, word in enumerate(row_words):
            start, end = outputs["word_starts"][row][column], outputs["word_ends"][row][column]
            assert text[start:end] == outputs["word_texts"][row][column]
            assert text_side.encode(text[start:end]) == text_side.encode(word)
        width = len(outputs["word_tags"][row])
        assert outputs["word_tags"][row][count:] == [""] * (width - count)
        assert outputs["word_starts"][row][count:] == [-1] * (width - count)
    for name in ("word_tags", "word_texts", "word_starts", "word_ends", "num_words"):
        assert f"['{name}']" in report["cli"], name
    check_warmup_requests(export_dir, {"serving_default": (
        "word_tags", "word_texts", "word_starts", "word_ends", "num_words")})
