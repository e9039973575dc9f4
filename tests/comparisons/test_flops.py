"""The FLOP counter against hand counts: one configuration of each family
that pretrains, every product written out."""

from families.bert.config import BertConfig
from families.bert.flops import pretraining_flops as bert_flops
from families.elmo.config import CharCNNOptions, ELMoConfig, LSTMOptions
from families.elmo.flops import pretraining_flops as elmo_flops
from families.gpt.config import GPTConfig
from families.gpt.flops import pretraining_flops as gpt_flops
from families.xlnet.config import XLNetConfig
from families.xlnet.flops import pretraining_flops as xlnet_flops

BERT = BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16,
                  max_position_embeddings=6)
# One layer over S=6 tokens, H=8, I=16, two products of 2*m*n*k each way:
# Q, K, V 3 x 2*6*8*8 = 2304; scores 2 heads x 2*6*4*6 = 576; mixing the same 576;
# output 2*6*8*8 = 768; feed-forward 2*6*8*16 + 2*6*16*8 = 3072: 7296 a layer, 14592 for two.
BERT_LAYERS = 2 * (2304 + 576 + 576 + 768 + 3072)


def test_bert_masked_lm_and_next_sentence_step():
    # Masked-LM head at P=2 slots: transform 2*2*8*8 = 256, tied decoder 2*2*8*50 = 1600;
    # next sentence: pooler 2*8*8 = 128, classifier 2*8*2 = 32. Training 3x, batch 3.
    assert BERT_LAYERS == 14592
    assert bert_flops(BERT, 6, 2, "mlm_nsp", batch=3) == 3 * 3 * (14592 + 256 + 1600 + 128 + 32) == 149472


def test_bert_without_next_sentence_drops_only_its_head():
    assert bert_flops(BERT, 6, 2, "mlm", batch=3) == 3 * 3 * (14592 + 256 + 1600) == 148032


def test_left_to_right_lm_predicts_every_position():
    # The head at all S=6 positions whatever the predictions setting: 2*6*8*8 = 768, 2*6*8*50 = 4800.
    assert bert_flops(BERT, 6, 2, "ltr", batch=3) == 3 * 3 * (14592 + 768 + 4800) == 181440
    assert bert_flops(BERT, 6, 5, "ltr", batch=3) == 181440


def test_xlnet_two_streams_memory_and_relative_encodings():
    config = XLNetConfig(n_token=50, n_layer=1, d_model=8, n_head=2, d_head=4, d_inner=16, mem_len=2, reuse_len=2)
    # T=4 tokens, memory 2: K=6 keys; R=K+T=10 relative distances; width 2 heads x 4 = 8; P=2 targets.
    content = (2 * (2 * 6 * 8 * 8)  # k and v over memory + content: 1536
               + 2 * 4 * 8 * 8  # content queries: 512
               + 2 * 4 * 6 * 8 + 2 * 4 * 10 * 8 + 2 * 4 * 2 * 8 + 2 * 4 * 6 * 8  # scores, positions, segments, mixing
               + 2 * 4 * 8 * 8 + 2 * 4 * 8 * 16 + 2 * 4 * 16 * 8)  # output, feed-forward
    query = (2 * 2 * 8 * 8  # its 2 queries
             + 2 * (2 * 2 * 4 * 8)  # placed by target_mapping at 4 positions, and back
             + 2 * 4 * 6 * 8 + 2 * 4 * 10 * 8 + 2 * 4 * 2 * 8 + 2 * 4 * 6 * 8  # attention from all 4 rows
             + 2 * 2 * 8 * 8 + 2 * 2 * 8 * 16 + 2 * 2 * 16 * 8)  # output and feed-forward of its 2 targets
    assert content + query == 9472
    encodings = 2 * 10 * 8 * 8  # once a batch (no bi_data)
    head = 2 * 2 * 8 * 50
    expected = 3 * (3 * (content + query) + encodings + 3 * head)
    assert expected == 103488
    assert xlnet_flops(config, 4, 2, batch=3) == expected
    # bi_data: each row's encodings are its own (forward or backward half).
    assert xlnet_flops(config.replace(bi_data=True), 4, 2, batch=3) == expected + 3 * 2 * encodings


def test_gpt_predicts_every_position_with_its_tied_embedding():
    config = GPTConfig(n_vocab=50, n_ctx=6, n_embd=8, n_head=2, n_layer=2)
    # The layers are BERT's shape (feed-forward 4 x 8 = 32): per layer over S=6 tokens,
    # Q, K, V 2304; scores 576 and mixing 576; output 768; feed-forward 2*6*8*32 + 2*6*32*8 = 6144.
    layer = 2304 + 576 + 576 + 768 + 6144
    # The tied head at all 6 positions over the 50 BPE tokens (no special rows in pretraining): 2*6*8*50.
    head = 2 * 6 * 8 * 50
    assert 3 * 3 * (2 * layer + head) == 229824
    assert gpt_flops(config, 6, batch=3) == 229824


ELMO = ELMoConfig(lstm=LSTMOptions(dim=12, projection_dim=4, n_layers=2),
                  char_cnn=CharCNNOptions(embedding_dim=3, filters=((1, 2), (2, 3)), max_characters_per_token=5,
                                          n_highway=1), n_tokens_vocab=20)
# One token in one direction:
# character CNN over 5 characters of 3-d embeddings: width 1, 2 filters at 5 places: 2*5*(1*3)*2 = 60;
# width 2, 3 filters at 4 places: 2*4*(2*3)*3 = 144; one highway over the 5 filters, carry and transform:
# 2 * 2*5*5 = 100; projection 5 -> 4: 2*5*4 = 40.
ELMO_CHARACTERS = 60 + 144 + 100 + 40
# Two LSTMP layers: [input 4, state 4] -> 4 x 12 gates: 2*8*48 = 768; projection 12 -> 4: 2*12*4 = 96.
ELMO_LSTM = 2 * (768 + 96)


def test_elmo_character_cnn_lstmp_stacks_and_full_softmax_in_both_directions():
    # Full softmax over the 20 words: 2*4*20 = 160. Both directions, T=3 tokens, batch 2, 3x for training.
    per_token = ELMO_CHARACTERS + ELMO_LSTM + 160
    assert per_token == 2232
    assert elmo_flops(ELMO, 3, batch=2) == 3 * 2 * 2 * 3 * 2232 == 80352


def test_elmo_sampled_softmax_scores_the_sampled_words_and_the_true_one():
    # 7 sampled words 2*4*7 = 56, the true word's logit 2*4 = 8, instead of the full 160.
    assert elmo_flops(ELMO, 3, batch=2, sampled=7) == 3 * 2 * 2 * 3 * (ELMO_CHARACTERS + ELMO_LSTM + 56 + 8)


def test_elmo_token_embedding_variant_has_no_character_cnn():
    config = ELMO.replace(char_cnn=None)
    assert elmo_flops(config, 3, batch=2) == 3 * 2 * 2 * 3 * (ELMO_LSTM + 160)
