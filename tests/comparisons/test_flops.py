"""The FLOP counter against hand counts: one configuration of each family
that pretrains, every product written out."""

from families.bert.config import BertConfig
from families.bert.flops import pretraining_flops as bert_flops
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
