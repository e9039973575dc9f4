"""What a family's pretraining-data writer provides: a chunk processor, which
both writers run unchanged, the local one in a process pool
(`writer.write_pretraining_data`) and the Beam pipeline on any runner
(`beam_writer.write_pretraining_data_beam`). A family's writer works on both
by being written to this contract; neither writer knows any family.
"""

from typing import Protocol


class ChunkProcessor(Protocol):
    """Made once per worker process from `(config, vocab_file, do_lower_case,
    num_shards)`: the family's settings, its vocabulary file (a local path), its
    casing flag and the number of output shards.

    Its output must depend only on the chunk and the settings (seeds come from
    `config.random_seed` and `chunk.first_document` or the numbers of the
    chunk's documents), never on which process runs it or on what ran before.
    """

    family: str  # what the records' metadata names ("bert", "xlnet", ...)
    strict_utf8: bool  # invalid UTF-8 stops the local writer (and is skipped by Beam) rather than replaced

    def __call__(self, chunk):
        """(one bytes blob of framed TFRecords per shard, the records in each,
        a collections.Counter for the summary and the metrics) of one
        `corpus_reader.Chunk`."""

    def metadata_settings(self):
        """The JSON settings a reader of the records must agree with (`records_metadata`)."""

    def no_output_reason(self, input_files):
        """Why a corpus gave no record, for the error message."""
