"""Token tagging on XLNet: BERT's `TokenClassificationHead` on the content stream
against Hugging Face's `XLNetForTokenClassification` (torch, CPU, eval, random
weights, float32), loaded through the checkpoint tables (`classifier`)."""

import numpy as np
import pytest

from families.xlnet.checkpoints.parts import load_hf_xlnet
from modeling.heads import TokenClassificationHead
from families.xlnet.backbone import XLNetBackbone
from tests.families.xlnet.cases import TINY, fine_tuning_inputs
from tests.families.xlnet.tolerance import dense_bound, float32_bound

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from tests.families.xlnet.hf_reference import hf_model, hf_tensors  # noqa: E402

ISSUE_BOUND = 1e-5  # issue 19's acceptance figure, absolute
NUM_LABELS = 5


def test_matches_hugging_face_token_classification():
    inputs = fine_tuning_inputs(np.random.default_rng(53))
    model = hf_model(TINY, model_class=transformers.XLNetForTokenClassification, num_labels=NUM_LABELS)
    with torch.no_grad():
        out = model(input_ids=torch.from_numpy(inputs["input_ids"]).long(),
                    token_type_ids=torch.from_numpy(inputs["segment_ids"]).long(),
                    input_mask=torch.from_numpy(inputs["input_mask"]), output_hidden_states=True)
    theirs, hidden = out.logits.numpy(), out.hidden_states[-1].numpy()
    tensors = hf_tensors(model)
    backbone = XLNetBackbone(TINY)
    head = TokenClassificationHead(NUM_LABELS, dropout_rate=0.0)
    backbone.build()
    head.build((None, None, TINY.d_model))
    load_hf_xlnet(backbone, tensors, head)
    ours = np.asarray(head(backbone(inputs)["sequence_output"]))
    assert ours.shape == theirs.shape == (2, 10, NUM_LABELS)
    bound = dense_bound(float32_bound(TINY, hidden.shape[1], hidden), hidden.reshape(-1, TINY.d_model),
                        tensors["classifier.weight"].T, tensors["classifier.bias"])
    diff = float(np.abs(ours - theirs).max())
    assert diff <= bound and diff <= ISSUE_BOUND, diff
