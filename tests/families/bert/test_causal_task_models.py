"""Every fine-tuning task keeps the left-to-right ablation's causal mask: the
config beside a pretraining checkpoint says `causal_attention`, the task model
each runner builds from it attends only to earlier tokens, and so does the
model its export rebuilds from `export_meta.json`; for a sequence classifier
the pooled vector is the last real token's, not [CLS]'s, which sees only itself."""

import os

import numpy as np
import pytest

from checkpoints.companion_files import resolve_model_files
from export.export_model import build_task_model
from tasks.classification.glue_readers import GlueReader
from tasks.classification.task import ClassificationConfig, ClassificationTask
from tasks.multiple_choice.task import MultipleChoiceConfig, MultipleChoiceTask
from tasks.question_answering.task import QuestionAnsweringConfig, QuestionAnsweringTask
from tasks.tagging.task import TaggingConfig, TaggingTask
from tests.causality import SEQ, inputs, sees_only_earlier_tokens
from tests.conftest import FIXTURES
from tests.tiny_config import TINY_CONFIG

TASKS = {
    "classification": lambda vocab, config, cache: ClassificationTask(ClassificationConfig(
        GlueReader("SST-2", os.path.join(FIXTURES, "glue_sst-2")), vocab, config, cache, max_seq_length=SEQ)),
    "tagging": lambda vocab, config, cache: TaggingTask(TaggingConfig(
        os.path.join(FIXTURES, "conll_tiny"), vocab, config, max_seq_length=SEQ, doc_stride=8)),
    "multiple_choice": lambda vocab, config, cache: MultipleChoiceTask(MultipleChoiceConfig(
        cache, vocab, config, max_seq_length=SEQ)),
    "question_answering": lambda vocab, config, cache: QuestionAnsweringTask(QuestionAnsweringConfig(
        vocab, config, predict_file=os.path.join(FIXTURES, "squad_v1_tiny.json"), max_seq_length=SEQ,
        doc_stride=8, max_query_length=4)),
}


@pytest.fixture(scope="module")
def pretrained_config(tmp_path_factory, uncased_vocab_file):
    """What fine-tuning reads beside a left-to-right pretraining checkpoint."""
    directory = tmp_path_factory.mktemp("ltr")
    TINY_CONFIG.replace(causal_attention=True).to_json_file(str(directory / "bert_config.json"))
    return resolve_model_files(uncased_vocab_file, init_checkpoint=str(directory))


@pytest.mark.parametrize("task", sorted(TASKS))
def test_task_models_and_their_exports_stay_causal(task, pretrained_config, tmp_path):
    vocab, config = pretrained_config
    assert config.causal_attention
    fine_tuning = TASKS[task](vocab, config, str(tmp_path))
    model = fine_tuning.build_model()
    assert sees_only_earlier_tokens(model.encoder)
    exported = build_task_model(fine_tuning.export_meta())
    assert sees_only_earlier_tokens(exported.encoder)


def test_a_causal_classifier_pools_the_last_real_token(pretrained_config, tmp_path):
    vocab, config = pretrained_config
    model = TASKS["classification"](vocab, config, str(tmp_path)).build_model()
    ids = np.random.default_rng(4).integers(5, 100, (1, SEQ)).astype("int32")
    changed = ids.copy()
    changed[0, -1] = ids[0, -1] % 90 + 6
    logits = [np.asarray(model(inputs(x))["logits"]) for x in (ids, changed)]
    assert np.abs(logits[0] - logits[1]).max() > 1e-6  # [CLS] under a causal mask never sees the last token
