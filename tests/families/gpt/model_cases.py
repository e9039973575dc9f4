"""The GPT parity cases, run the same way in the test process and in the
backend subprocess (`model_backend_forward.py`)."""

import os

import numpy as np
from keras import ops

from checkpoints import ours
from checkpoints.loader import load_tensors
from families.gpt.config import GPTConfig
from families.gpt.double_heads import GPTDoubleHeads
from families.gpt.encoder import GPTEncoder


def build_ours(directory):
    """Our double-heads model with the weights saved in `directory`, strictly."""
    config = GPTConfig.from_json_file(os.path.join(directory, GPTConfig.config_file_name))
    model = GPTDoubleHeads(GPTEncoder(config))
    load_tensors(model, ours.read_weights(directory), lambda path: (path, False), directory, "ours",
                 strict=True)
    return model


def run_single(model, inputs):
    """The encoder's outputs on [batch, seq] inputs, its LM logits both ways
    and the per-example auxiliary loss, as {name: array}."""
    encoder = model.encoder
    outputs = encoder(inputs)
    result = {f"block_{i}": x for i, x in enumerate(outputs["encoder_outputs"])}
    result.update(sequence_output=outputs["sequence_output"], pooled_output=outputs["pooled_output"],
                  lm_logits=encoder.lm_logits(outputs["sequence_output"]),
                  joint_lm_logits=encoder.lm_logits(outputs["sequence_output"], joint=True),
                  auxiliary_loss=encoder.auxiliary_loss(inputs, outputs))
    return {name: ops.convert_to_numpy(value) for name, value in result.items()}


def run_choices(model, inputs):
    """The double heads' `lm_logits` and `mc_logits` on [batch, choices, seq] inputs."""
    return {name: ops.convert_to_numpy(value) for name, value in model(inputs).items()}


def save_case(model, directory, single, choices):
    ours.save_weights(model, directory)
    np.savez(os.path.join(directory, "single.npz"), **single)
    np.savez(os.path.join(directory, "choices.npz"), **choices)
