"""What GPT's pretraining tests share: a small corpus, its records over the
tests' 2,000-merge BPE (`tests/fixtures/gpt/`) and a tiny config without
special rows, as pretraining builds it."""

from data.pretraining.writer import output_paths, write_pretraining_data
from families.gpt.pretraining.chunks import GPTChunkProcessor
from families.gpt.pretraining.config import GPTDataConfig
from tests.families.gpt.kit import ENCODER_FILE, tiny_config
from tests.families.xlnet.corpus import write_corpus

CONFIG = tiny_config().replace(n_special=0)


def write_records(directory, documents=20, max_seq_length=16, shards=1, chunk=2000, seed=0,
                  original_tokenizer=True):
    """(the corpus, the record files, the writer's counts). The original
    tokenizer by default: the in-graph one, which gives the same ids on this
    corpus, takes seconds to build."""
    directory.mkdir(parents=True, exist_ok=True)
    corpus = write_corpus(directory / "corpus.txt", documents, seed)
    paths = output_paths(str(directory / "gpt.tfrecord"), shards)
    counts = write_pretraining_data(
        corpus, paths, ENCODER_FILE, GPTDataConfig(max_seq_length, original_tokenizer),
        documents_per_chunk=chunk, processor_class=GPTChunkProcessor, log_every_seconds=1e9)
    return corpus, paths, counts
