"""References for GPT's model tests: Hugging Face's OpenAI GPT classes with
random weights (torch, CPU, eval), and the original's fine-tuning LM loss
restated in NumPy."""

import numpy as np

from checkpoints.loader import load_tensors
from families.gpt.checkpoints.huggingface import from_hf, hf_config
from families.gpt.checkpoints.names import to_ours
from families.gpt.config import GPTConfig

# Every part of the model, 2 blocks, with the three special rows.
TINY = GPTConfig.from_preset("gpt_tiny")


def hf_model(config, architecture="OpenAIGPTDoubleHeadsModel", seed=0):
    """A `transformers` model of `config` (its special rows at the end of
    `tokens_embed`), every weight random: LayerNorm scales around 1, the rest
    normal(0, 0.2), so no part is an identity or zero."""
    import torch
    import transformers
    values = {k: v for k, v in hf_config(config, multiple_choice=True).items() if k != "architectures"}
    torch.manual_seed(seed)
    model = getattr(transformers, architecture)(transformers.OpenAIGPTConfig(**values)).eval()
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            parameter.normal_(1.0 if ".ln_" in name and name.endswith("weight") else 0.0, 0.2)
    return model


def hf_tensors(model):
    return {name: value.detach().numpy() for name, value in model.state_dict().items()}


def load_hf(model, tensors):
    """Our `model`'s variables from Hugging Face {name: array}, strictly."""
    config = getattr(model, "encoder", model).config
    original, unused = from_hf(tensors, config.n_special)
    assert not unused, unused
    return load_tensors(model, to_ours(original), lambda path: (path, False), "Hugging Face tensors",
                        "gpt_hf", strict=True)


def run_hf(model, word_ids, input_mask, mc_token_ids=None):
    """{name: array} of a Hugging Face model on [batch, (choices,) seq] inputs,
    no token_type_ids (Hugging Face would add their token embeddings)."""
    import torch
    ids = torch.from_numpy(np.asarray(word_ids, np.int64))
    mask = torch.from_numpy(np.asarray(input_mask, np.float32).reshape(-1, ids.shape[-1]))
    kwargs = {}
    if mc_token_ids is not None:
        kwargs["mc_token_ids"] = torch.from_numpy(np.asarray(mc_token_ids, np.int64))
    with torch.no_grad():
        out = model(ids, attention_mask=mask, output_hidden_states=True, **kwargs)
    result = {"hidden_states": [h.numpy() for h in out.hidden_states]}
    for name in ("last_hidden_state", "logits", "mc_logits"):
        if getattr(out, name, None) is not None:
            result[name] = getattr(out, name).numpy()
    return result


def original_lm_loss(sequence_output, we, word_ids, input_mask):
    """The original fine-tuning's LM loss per example, float64: logits of
    position t over every row of the joint embedding `we` (tokens, specials,
    positions), cross-entropy against token t+1, summed over the real targets
    (`input_mask[:, 1:]`) and divided by their number."""
    h = np.asarray(sequence_output, np.float64)[:, :-1]
    logits = h @ np.asarray(we, np.float64).T
    logits -= logits.max(-1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets = np.asarray(word_ids)[:, 1:]
    losses = -np.take_along_axis(log_probs, targets[..., None], axis=-1)[..., 0]
    weights = np.asarray(input_mask, np.float64)[:, 1:]
    return (losses * weights).sum(1) / weights.sum(1)


def inputs(rng, shape, config=TINY, lengths=None):
    """Random ids over every row of the embedding (tokens and specials) and a
    right-padded mask with the given real `lengths` (flattened over choices)."""
    word_ids = rng.integers(0, config.vocab_size, shape).astype(np.int32)
    mask = np.ones(shape, np.int32)
    if lengths is not None:
        flat = mask.reshape(-1, shape[-1])
        for row, length in enumerate(lengths):
            flat[row, length:] = 0
    return word_ids, mask
