"""The Hugging Face peer's training step (transformers `BertForPreTraining`, or any model
with a loss: `step_runner`), torch, on CPU or GPU.

Same work as ours (`benchmarks/train_step.py`): masked LM on the batch's
masked positions + NSP, AdamW (lr 1e-4, weight decay 0.01), gradients clipped
to global norm 1.0, dropout on (train mode: hidden and attention 0.1). As
transformers does, its MLM head scores every position and the loss keeps only
the labelled ones (-100 elsewhere); ours gathers the masked positions first.
"""

import numpy as np


def pretraining_step_runner(config, features, labels, device="cpu", bf16=False, compiled=False):
    """`run(steps)` -> last loss, after `steps` optimizer steps; bf16 is torch autocast."""
    import torch
    import transformers

    device = torch.device(device)
    model = transformers.BertForPreTraining(transformers.BertConfig(**config.to_dict())).to(device)
    inputs = {"input_ids": features["input_word_ids"], "attention_mask": features["input_mask"],
              "token_type_ids": features["input_type_ids"]}
    inputs = {k: torch.from_numpy(v).long().to(device) for k, v in inputs.items()}
    mlm_labels = np.full(features["input_word_ids"].shape, -100, np.int64)
    np.put_along_axis(mlm_labels, features["masked_lm_positions"], labels["masked_lm_ids"], axis=1)
    inputs["labels"] = torch.from_numpy(mlm_labels).to(device)
    inputs["next_sentence_label"] = torch.from_numpy(labels["next_sentence_labels"]).long().to(device)
    return step_runner(model, inputs, device, bf16, compiled)


def step_runner(model, inputs, device, bf16=False, compiled=False):
    """`run(steps)` of any transformers model whose output has a `loss` on
    `inputs` (torch tensors on `device`): AdamW (lr 1e-4, weight decay 0.01),
    gradients clipped to global norm 1.0, dropout on."""
    import torch

    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, fused=True)
    forward = torch.compile(model) if compiled else model

    def step():
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            loss = forward(**inputs).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    def run(steps):
        loss = None
        for _ in range(steps):
            loss = step()
        return float(loss)  # Waits for the device.

    return run
