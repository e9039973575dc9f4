"""The reference: `transformers.XLNetLMHeadModel` (or another XLNet class: torch,
CPU, eval) with random weights, built from one of our configs, and its outputs in
our layout."""

import torch
import transformers

WEIGHT_STD = 0.2  # large enough that attention is far from uniform at d_head 8


def hf_model(config, seed=0, model_class=transformers.XLNetLMHeadModel, **head_options):
    hf_config = transformers.XLNetConfig(
        vocab_size=config.n_token, d_model=config.d_model, n_layer=config.n_layer,
        n_head=config.n_head, d_inner=config.d_inner, ff_activation=config.ff_activation,
        attn_type=config.attn_type, bi_data=config.bi_data, clamp_len=config.clamp_len,
        same_length=config.same_length, mem_len=config.mem_len or None,
        reuse_len=config.reuse_len or None, dropout=0.0, layer_norm_eps=config.layer_norm_eps,
        **head_options)
    model = model_class(hf_config).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if "layer_norm.weight" in name:
                param.copy_(1.0 + 0.1 * noise)
            elif "layer_norm" in name:
                param.copy_(0.1 * noise)
            else:
                param.copy_(WEIGHT_STD * noise)
        if not config.untie_r:  # the original shares these across layers
            first = model.transformer.layer[0].rel_attn
            for layer in model.transformer.layer[1:]:
                for name in ("r_w_bias", "r_r_bias", "r_s_bias"):
                    getattr(layer.rel_attn, name).copy_(getattr(first, name))
    return model


def hf_tensors(model):
    return {k: v.detach().numpy() for k, v in model.state_dict().items()}


def run_hf(model, steps):
    """Same keys as `cases.run_ours`; mems turned batch-major."""
    results, mems = [], None
    use_mems = bool(model.config.mem_len)
    for inputs in steps:
        kwargs = {"input_ids": inputs["input_ids"], "token_type_ids": inputs["segment_ids"],
                  "input_mask": inputs["input_mask"], "perm_mask": inputs.get("perm_mask"),
                  "target_mapping": inputs.get("target_mapping")}
        kwargs = {k: None if v is None else torch.from_numpy(v) for k, v in kwargs.items()}
        for k in ("input_ids", "token_type_ids"):
            kwargs[k] = kwargs[k].long()
        with torch.no_grad():
            out = model(**kwargs, mems=mems, use_mems=use_mems, output_hidden_states=True)
        two_stream = kwargs["target_mapping"] is not None
        result = {"sequence_output": out.hidden_states[-2 if two_stream else -1].numpy()}
        if two_stream:
            result["query_output"] = out.hidden_states[-1].numpy()
            result["logits"] = out.logits.numpy()
        mems = out.mems if use_mems else None
        for i, mem in enumerate(mems or []):
            result[f"new_mems_{i}"] = mem.numpy().transpose(1, 0, 2)
        results.append(result)
    return results
