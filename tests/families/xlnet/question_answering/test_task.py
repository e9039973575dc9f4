"""XLNet question answering against independent references: the loss against
Hugging Face's `XLNetForQuestionAnswering` (same weights), the beam
post-processing against Model Garden's `squad_lib_sp.postprocess_output` with
`xlnet_format=True` (a port of the original XLNet `write_predictions`)."""

import collections

import numpy as np
import pytest

from families.xlnet.checkpoints.parts import load_hf_xlnet
from families.xlnet.encoder import XLNetEncoder
from families.xlnet.question_answering.beam import postprocess_beam
from families.xlnet.question_answering.head import BeamHead
from families.xlnet.span_labeler import XLNetSpanLabeler
from families.xlnet.text_side import XLNetText
from tasks.question_answering import features as squad_features, squad_reader
from tasks.question_answering.answers import PostprocessConfig
from tasks.question_answering.task import QuestionAnsweringConfig
from tests.families.xlnet.cases import TINY
from tests.families.xlnet.spiece_model import LINES, learn_spiece_model
from tests.families.xlnet.tolerance import UNIT_ROUNDOFF

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
squad_lib_sp = pytest.importorskip("official.nlp.data.squad_lib_sp")
from tests.families.xlnet.hf_reference import hf_model, hf_tensors  # noqa: E402

ISSUE_BOUND = 1e-5  # the SQuAD head's parity figure with Hugging Face, absolute
START_N_TOP, END_N_TOP = 3, 4


def loss_batch():
    """Three left-padded windows: paragraph positions 3..7 (row 1: 5..7), question
    8..10, <cls> 11; answers in the paragraph, row 2 without one (at <cls>)."""
    seq = 12
    input_ids = np.random.default_rng(3).integers(10, TINY.n_token, (3, seq)).astype(np.int32)
    input_mask = np.ones((3, seq), np.int32)
    type_ids = np.array([[4] * 3 + [0] * 5 + [1] * 3 + [2]] * 3, np.int32)
    input_mask[:, :3] = 0
    input_mask[1, :5], type_ids[1, :5] = 0, 4
    p_mask = np.ones((3, seq), np.float32)
    p_mask[:, 3:8], p_mask[1, 3:5], p_mask[:, 11] = 0.0, 1.0, 0.0
    labels = {"start_positions": np.array([4, 6, 11], np.int32),
              "end_positions": np.array([6, 7, 11], np.int32),
              "is_impossible": np.array([0.0, 0.0, 1.0], np.float32)}
    inputs = {"input_word_ids": input_ids, "input_mask": input_mask, "input_type_ids": type_ids,
              "p_mask": p_mask, "cls_index": np.full(3, seq - 1, np.int32),
              "start_positions": labels["start_positions"]}
    return inputs, labels


def test_loss_matches_hugging_face():
    """Hugging Face returns (start + end cross-entropy) / 2 for the same start and end
    positions; its answer class in training reads the gold start's state where the
    original (and we) read the start-probability weighted one, which is its
    inference `cls_logits`: the v2.0 term is added by hand from those."""
    hf = hf_model(TINY, model_class=transformers.XLNetForQuestionAnswering,
                  start_n_top=START_N_TOP, end_n_top=END_N_TOP)
    model = XLNetSpanLabeler(XLNetEncoder(TINY), START_N_TOP, END_N_TOP, dropout_rate=0.0)
    load_hf_xlnet(model.encoder.backbone, hf_tensors(hf), model.head)
    inputs, labels = loss_batch()
    theirs = {"input_ids": torch.from_numpy(inputs["input_word_ids"]).long(),
              "token_type_ids": torch.from_numpy(inputs["input_type_ids"]).long(),
              "input_mask": torch.from_numpy(1.0 - inputs["input_mask"].astype(np.float32)),
              "p_mask": torch.from_numpy(inputs["p_mask"])}
    gold = {k: torch.from_numpy(v).long() for k, v in labels.items() if k != "is_impossible"}
    with torch.no_grad():
        span_loss = float(hf(**theirs, **gold).loss)
        cls_logits = hf(**theirs).cls_logits
        cls_loss = float(torch.nn.functional.binary_cross_entropy_with_logits(
            cls_logits, torch.from_numpy(labels["is_impossible"])))
        hidden = hf.transformer(**{k: v for k, v in theirs.items() if k != "p_mask"})[0]
        start_log_probs = torch.log_softmax(hf.start_logits(hidden, p_mask=theirs["p_mask"]), -1)
        end_log_probs = torch.log_softmax(hf.end_logits(
            hidden, start_positions=gold["start_positions"], p_mask=theirs["p_mask"]), -1)
    reference = span_loss + 0.5 * cls_loss

    config = QuestionAnsweringConfig("unused", TINY, version_2_with_negative=True, max_seq_length=12,
                                     max_query_length=4)
    outputs = model(inputs, training=True)
    ours = float(np.mean(np.asarray(BeamHead(config).loss(labels, outputs))))
    # |loss difference| <= the mean of the start and end log-probability differences
    # at the gold positions + 0.5 x the answer-class logit difference (binary
    # cross-entropy with logits is 1-Lipschitz), plus the rounding of a few sums.
    rows = np.arange(3)
    d_start = np.abs(np.asarray(outputs["start_log_probs"])[rows, labels["start_positions"]]
                     - start_log_probs.numpy()[rows, labels["start_positions"]]).max()
    d_end = np.abs(np.asarray(outputs["end_log_probs"])[rows, labels["end_positions"]]
                   - end_log_probs.numpy()[rows, labels["end_positions"]]).max()
    d_cls = np.abs(np.asarray(outputs["cls_logits"]) - cls_logits.numpy()).max()
    assert max(d_start, d_end, d_cls) <= ISSUE_BOUND, (d_start, d_end, d_cls)
    bound = (d_start + d_end) / 2 + 0.5 * d_cls + 16 * UNIT_ROUNDOFF * abs(reference)
    assert abs(ours - reference) <= bound, (ours, reference, bound)
    v1 = BeamHead(QuestionAnsweringConfig("unused", TINY, max_seq_length=12, max_query_length=4))
    assert abs(float(np.mean(np.asarray(v1.loss(labels, outputs)))) - span_loss) <= bound


# --- the beam against Model Garden's XLNet post-processing --------------------------------

MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH = 32, 6, 8
TheirExample = collections.namedtuple("TheirExample", ["qas_id", "paragraph_text"])
TheirFeature = collections.namedtuple("TheirFeature", [
    "unique_id", "example_index", "tok_start_to_orig_index", "tok_end_to_orig_index",
    "token_is_max_context"])
TheirResult = collections.namedtuple("TheirResult", [
    "unique_id", "start_logits", "start_indexes", "end_logits", "end_indexes", "class_logits"])


@pytest.fixture(scope="module")
def windows(tmp_path_factory):
    """Questions about punctuation-free house sentences: every piece's text is the
    characters it covers, so word-level and character-level texts agree."""
    text = XLNetText.from_file(learn_spiece_model(tmp_path_factory.mktemp("spm")), False)
    examples = []
    for p in range(4):
        context = " ".join(LINES[2 * p:2 * p + 2]).replace(",", "").replace(".", "")
        words, _, starts = squad_reader.split_words(context)
        # Each word's pieces spell it: a piece covers the characters of its text.
        assert ["".join(text.tokenizer.tokenize(w)).lstrip("\u2581") for w in words] == words
        examples.append(squad_reader.SquadExample(f"q{p}", "How many rooms?", context,
                                                  tuple(words), tuple(starts)))
    features = squad_features.convert_examples_to_features(
        examples, text, MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH, is_training=False)
    return examples, features


def their_feature(feature, example):
    """Model Garden's feature: paragraph positions from 0, each piece's characters
    (those of its text, after the pieces of its word before it)."""
    offset = min(feature.token_to_orig_map)
    starts, ends = [], []
    for position in sorted(feature.token_to_orig_map):
        word = feature.token_to_orig_map[position]
        first = min(p for p, w in feature.token_to_orig_map.items() if w == word)
        before = "".join(feature.tokens[first:position]).lstrip("\u2581")
        piece = feature.tokens[position].lstrip("\u2581") if position == first else feature.tokens[position]
        start = example.word_starts[word] + len(before)
        starts.append(start)
        ends.append(start + len(piece) - 1)
    return TheirFeature(feature.unique_id, feature.example_index, starts, ends,
                        {p - offset: v for p, v in feature.token_is_max_context.items()})


def random_beams(features, seed, n_top, ties):
    """{unique_id: (beam, cls_logit)}: top starts around the paragraph (padding
    and question positions too), each start's ends near it, log-probabilities
    descending."""
    rng = np.random.default_rng(seed)

    def top(k):
        values = np.sort(-rng.exponential(2.0, k))[::-1]
        return (np.round(values) if ties else values).tolist()

    results = {}
    for f in features:
        first, last = min(f.token_to_orig_map), max(f.token_to_orig_map)
        starts = rng.choice(np.arange(max(first - 2, 0), last + 3), n_top, replace=False)
        ends = [int(min(max(e, 0), MAX_SEQ_LENGTH - 1)) for start in starts
                for e in rng.choice(np.arange(start - 1, start + n_top + 3), n_top, replace=False)]
        end_log_probs = [v for _ in range(n_top) for v in top(n_top)]
        results[f.unique_id] = ((top(n_top), starts.tolist(), end_log_probs, ends),
                                float(rng.normal(0, 2)))
    return results


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("seed,n_top,max_answer_length,ties", [
    (0, 5, 30, False), (1, 4, 3, True), (2, 3, 2, False), (3, 6, 1, True), (4, 8, 8, False)])
def test_beam_matches_model_garden_xlnet_postprocessing(windows, v2, seed, n_top,
                                                         max_answer_length, ties):
    examples, features = windows
    assert max(f.doc_span_index for f in features) >= 2
    results = random_beams(features, seed, n_top, ties)
    config = PostprocessConfig(n_top, max_answer_length, False, v2)
    ours = postprocess_beam(examples, features, results, config)
    offset = {f.unique_id: min(f.token_to_orig_map) for f in features}
    their_results = [
        TheirResult(uid, s_lp, [i - offset[uid] for i in s_i], e_lp, [i - offset[uid] for i in e_i],
                    cls_logit)
        for uid, ((s_lp, s_i, e_lp, e_i), cls_logit) in results.items()]
    predictions, nbest, null_odds = squad_lib_sp.postprocess_output(
        [TheirExample(e.qas_id, e.context) for e in examples],
        [their_feature(f, examples[f.example_index]) for f in features], their_results,
        n_top, max_answer_length, False, v2, xlnet_format=True)
    compared = 0
    for example in examples:
        qid = example.qas_id
        theirs = nbest[qid]
        if [e["text"] for e in theirs] == ["empty"]:  # no candidate: theirs at -1e6, ours certain
            assert [(e["text"], e["start_log_prob"], e["end_log_prob"], e["probability"])
                    for e in ours.nbest[qid]] == [("", 0.0, 0.0, 1.0)]
            continue
        compared += 1
        assert ours.predictions[qid] == predictions[qid]
        assert [e["text"] for e in ours.nbest[qid]] == [e["text"] for e in theirs]
        for a, b in zip(ours.nbest[qid], theirs):
            assert (a["start_log_prob"], a["end_log_prob"]) == (b["start_logit"], b["end_logit"])
            assert a["probability"] == pytest.approx(b["probability"], abs=1e-12)
        if v2:
            assert ours.null_odds[qid] == null_odds[qid]
    assert compared >= 2
    assert ours.null_odds is None if not v2 else set(ours.null_odds) == set(ours.predictions)
