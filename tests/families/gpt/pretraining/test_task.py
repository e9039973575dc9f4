"""The GPT pretraining task against Hugging Face's `OpenAIGPTLMHeadModel` on
the same weights: its evaluation over records (a padded last window among
them) reports the mean loss per window, the per-token LM loss Hugging Face
computes, its exponential as perplexity, and the next-token accuracy; and
the decayed variables are the matrices, as the original's weight decay; and
records, vocabularies and lengths that do not fit are refused."""

import numpy as np
import pytest

from checkpoints.ours import save_weights
from data.pretraining import features as F
from data.pretraining.record_statistics import read_examples
from data.pretraining.records_metadata import RecordLayoutError
from families.gpt.language_model import GPTLanguageModel
from families.gpt.pretraining.dataset import check_records
from families.gpt.pretraining.run import check_vocabulary
from families.gpt.pretraining.task import GPTPretrainingTask
from tests.families.gpt.kit import ENCODER_FILE
from tests.families.gpt.model_reference import hf_model, hf_tensors, load_hf
from tests.families.gpt.pretraining.corpus import CONFIG, write_records
from tests.pretraining_records import write_records as write_bert_records
from training.optimization import OptimizerConfig
from training.run_options import RunOptions
from training.trainer import Trainer

pytest.importorskip("transformers")


def reference(model, ids, mask):
    """Per-window mean loss, per-token loss and its perplexity, accuracy and
    the positions whose top two logits are too close to call, from Hugging
    Face's logits (float64 arithmetic); and its own `loss` (the token mean)."""
    import torch
    labels = np.where(mask > 0, ids, -100)
    with torch.no_grad():
        out = model(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask.astype(np.float32)),
                    labels=torch.from_numpy(labels))
    logits = out.logits.numpy().astype(np.float64)[:, :-1]
    targets, weights = ids[:, 1:], mask[:, 1:] > 0
    log_probs = logits - logits.max(-1, keepdims=True)
    log_probs -= np.log(np.exp(log_probs).sum(-1, keepdims=True))
    losses = -np.take_along_axis(log_probs, targets[..., None], -1)[..., 0]
    top2 = np.sort(logits, -1)[..., -2:]
    return {"loss": float(((losses * weights).sum(1) / weights.sum(1)).mean()),
            "lm_loss": float(losses[weights].mean()), "hf_loss": float(out.loss),
            "lm_accuracy": float((logits.argmax(-1) == targets)[weights].mean()),
            "near_ties": int(((top2[..., 1] - top2[..., 0]) < 1e-4)[weights].sum()), "targets": int(weights.sum())}


def test_evaluation_reports_hugging_faces_lm_loss_perplexity_and_accuracy(tmp_path):
    _, paths, counts = write_records(tmp_path, documents=12, max_seq_length=16)
    records = read_examples(paths)
    ids, mask = records[F.INPUT_IDS], records[F.INPUT_MASK]
    assert mask[-1].sum() < 16  # a padded window is among them
    hf = hf_model(CONFIG, "OpenAIGPTLMHeadModel")
    ours = GPTLanguageModel(CONFIG)
    load_hf(ours, hf_tensors(hf))
    save_weights(ours, str(tmp_path / "weights"))
    task = GPTPretrainingTask(CONFIG, paths[0], 16, init_checkpoint=str(tmp_path / "weights"))
    got = Trainer(task, RunOptions(output_dir=str(tmp_path / "run"))).evaluate(batch_size=5)
    want = reference(hf, ids, mask)
    assert want["targets"] == counts["targets"]
    for name in ("loss", "lm_loss"):
        assert got[name] == pytest.approx(want[name], rel=1e-5), name
    assert got["lm_loss"] == pytest.approx(want["hf_loss"], rel=1e-5)
    assert got["perplexity"] == pytest.approx(np.exp(want["lm_loss"]), rel=1e-5)
    assert abs(got["lm_accuracy"] - want["lm_accuracy"]) <= want["near_ties"] / want["targets"] + 1e-7


def test_weight_decay_falls_on_the_matrices_as_the_originals():
    """The original GPT code decays the variables of more than one dimension
    (`vector_l2=False`); the shared rule (not LayerNorm, not bias) picks the same."""
    model = GPTLanguageModel(CONFIG)
    optimizer = OptimizerConfig(name="adam").build(10)
    optimizer.build(model.trainable_variables)
    decayed = {v.path for v, d in zip(model.trainable_variables, optimizer._decayed) if d}
    assert decayed == {v.path for v in model.trainable_variables if len(v.shape) > 1}
    assert "embeddings/position_embeddings/embeddings" in decayed


def test_a_window_longer_than_the_models_positions_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"--max_seq_length=65 exceeds the model's n_ctx=64"):
        GPTPretrainingTask(CONFIG, str(tmp_path), 65)


def test_bert_records_and_a_vocabulary_past_the_config_are_refused(tmp_path):
    """BERT's records have `input_ids` and `input_mask` too; without metadata
    their other features give them away."""
    bert = write_bert_records(tmp_path / "bert.tfrecord", count=2, seq_length=16)
    with pytest.raises(RecordLayoutError, match=f"{bert}: features .* not GPT pretraining records"):
        check_records([bert], 16)
    pieces = CONFIG.n_vocab
    with pytest.raises(ValueError, match=f"{ENCODER_FILE} has {pieces} BPE pieces but gpt_config.json has "
                                         f"n_vocab={pieces - 1}"):
        check_vocabulary(CONFIG.replace(n_vocab=pieces - 1), "gpt_config.json", ENCODER_FILE)
