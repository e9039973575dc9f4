"""ELMo (Peters et al. 2018) in the family registry: feature-based, as its
paper uses it (the biLM frozen, a learned scalar mix with an L2 of 0.001 on
its weights, a task BiLSTM)."""

import functools

from families.elmo.checkpoints import convert
from families.elmo.checkpoints.formats import FORMATS
from families.elmo.config import ELMoConfig
from families.elmo.encoder import ELMoEncoder
from families.elmo.hub_module import save_hub_module
from families.elmo.question_answering import QuestionFirst, WordReader
from families.elmo.scalar_mix import ScalarMix
from families.elmo.text_side import ELMoText
from families.family import Family, FeatureBased, QuestionAnswering
from tasks.question_answering_heads import StartEndHead

# The paper's lambda = 0.001 (its Table 2: better than 1 on SQuAD, SNLI and SRL).
L2_COEF = 0.001

FAMILY = Family(
    name="elmo", title="ELMo", config_type=ELMoConfig, encoder_type=ELMoEncoder, text_side=ELMoText,
    tiny_preset="elmo_tiny", checkpoint_formats=FORMATS,
    convert=convert.convert, output_formats=convert.OUTPUT_FORMATS,
    convert_flags=(("token_embedding_file", "The original's token inputs: the table its dump_token_embeddings "
                    "wrote, read with the LSTMs of --init_checkpoint (lm_weights.hdf5) as the token-embedding "
                    "variant; the vocabulary (--vocab_file, else vocab.txt beside) goes with it."),),
    hub_module=save_hub_module, pretraining="families.elmo.pretraining.run",
    comparison="families.elmo.comparison",
    command_lines=("build_elmo_vocab.py", "create_elmo_pretraining_data.py"),
    feature_based=FeatureBased(mix=functools.partial(ScalarMix, l2_coef=L2_COEF)),
    question_answering=QuestionAnswering(QuestionFirst, StartEndHead, WordReader))
