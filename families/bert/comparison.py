"""BERT's systems in `compare.py`: the paper's Table 5 (BERT, No NSP, LTR & No
NSP, + BiLSTM), a smaller BERT at the same steps (Table 6) and the randomly
initialised floor. Pretrained as `run_pretraining.py` runs them, on records of
`create_pretraining_data.py`, over a WordPiece vocabulary of `build_vocab.py`."""

from contracts.comparison import System, Vocabulary
from families.bert.config import BertConfig
from families.bert.flops import pretraining_flops

DUPE_FACTOR = 5  # masks drawn per document pass (the original's default is 10)

VOCABULARY = Vocabulary(lambda corpus, size, path: [
    "build_vocab.py", f"--input_file={corpus}", f"--output_file={path}", f"--vocab_size={size}",
    "--num_unused=0", "--lower_thresh=2"])


def config(size, shape):
    return BertConfig(
        vocab_size=shape.vocab_size, hidden_size=size.hidden, num_hidden_layers=size.layers,
        num_attention_heads=size.heads, intermediate_size=size.intermediate,
        max_position_embeddings=shape.seq_length, hidden_dropout_prob=size.dropout,
        attention_probs_dropout_prob=size.dropout)


def _pretrained(objective):
    """(records name, data writer argv, run_pretraining.py flags, step FLOPs) of `objective`."""
    def write_records(corpus, vocabulary, shape, seed, output):
        return ["create_pretraining_data.py", f"--input_file={corpus}", f"--output_file={output}",
                f"--vocab_file={vocabulary}", "--do_lower_case", f"--max_seq_length={shape.seq_length}",
                f"--max_predictions_per_seq={shape.predictions}", f"--objective={objective}",
                f"--dupe_factor={DUPE_FACTOR}", f"--random_seed={seed}", "--num_workers=2"]

    def flags(config_file, shape, vocabulary):
        return [f"--bert_config_file={config_file}", f"--max_seq_length={shape.seq_length}",
                f"--max_predictions_per_seq={shape.predictions}", f"--objective={objective}"]

    def flops(config, shape):
        return pretraining_flops(config, shape.seq_length, shape.predictions, objective, shape.batch)

    return {"records": objective, "write_records": write_records, "pretraining_flags": flags,
            "flops": flops}


def _bilstm(config):
    return config.replace(fine_tuning_bilstm=True)


SYSTEMS = (
    System("bert", "BERT (MLM + NSP)", "bert", VOCABULARY, config, **_pretrained("mlm_nsp")),
    System("no_nsp", "No NSP", "bert", VOCABULARY, config, **_pretrained("mlm")),
    System("ltr", "LTR & No NSP", "bert", VOCABULARY, config, **_pretrained("ltr")),
    System("ltr_bilstm", "+ BiLSTM", "bert", VOCABULARY, config, pretrained_as="ltr",
           fine_tuning_config=_bilstm),
    System("bert_small", "BERT, smaller (same steps)", "bert", VOCABULARY, config, size="small",
           same_steps_as="bert", **_pretrained("mlm_nsp")),
    System("random", "random init (no pretraining)", "bert", VOCABULARY, config),
)
