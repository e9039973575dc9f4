"""The main job's XLNet half: a SentencePiece model learned from the corpus,
permutation-LM records as the original's `data_utils.py` writes them, a
2-layer XLNet pretrained on them, scored on the held-out modules beside a
unigram model of the training targets."""

import json
import os

from contracts.main_job import Pretrained
from utils.files import atomic_write_text

SEQ_LEN = 64
REUSE_LEN = 32  # the permuted block: each record's first half, as the original's seq_len/2
NUM_PREDICT = 10  # about 15% of the tokens, as the original's 85 of 512
VOCAB_SIZE = 2000
BATCH = 32
# d_model 64 and no dropout for the reasons of BERT's H=64 (see families/bert/main_job.py).
MODEL = {"n_layer": 2, "d_model": 64, "n_head": 2, "d_head": 32, "d_inner": 256, "ff_activation": "gelu",
         "untie_r": True, "dropout": 0.0, "dropatt": 0.0}


def steps(quick):
    return 20 if quick else 3000


def pretrain(job, work, corpus, held_out, seed, quick):
    """Runs the XLNet stages through `job.stage(name, args, batch_size, threads)`
    (`demo.pretrained.FamilyJob`); returns its `Pretrained`."""
    path = {name: os.path.join(work, name) for name in (
        "spiece.model", "xlnet_config.json", "pretraining.tfrecord", "held_out.tfrecord", "pretrain",
        "pretrain_eval", "unigram.txt", "logs")}
    vocab_size = 500 if quick else VOCAB_SIZE  # the quick corpus has too few distinct pieces for more
    job.stage("vocabulary", [
        "build_vocab.py", "--model=xlnet", f"--input_file={corpus}", f"--model_file={path['spiece.model']}",
        f"--vocab_size={vocab_size}"])
    atomic_write_text(path["xlnet_config.json"], json.dumps({**MODEL, "n_token": vocab_size}, indent=2))
    shape = [f"--seq_len={SEQ_LEN}", f"--reuse_len={REUSE_LEN}", f"--num_predict={NUM_PREDICT}"]
    records = [f"--sp_path={path['spiece.model']}", *shape, f"--bsz_per_host={BATCH}", "--nobi_data",
               f"--random_seed={seed}"]
    job.stage("pretraining data", [
        "create_pretraining_data.py", "--model=xlnet", f"--input_file={corpus}",
        f"--output_file={path['pretraining.tfrecord']}", *records])
    job.stage("held-out pretraining data", [
        "create_pretraining_data.py", "--model=xlnet", f"--input_file={held_out}",
        f"--output_file={path['held_out.tfrecord']}", *records])
    pretraining = ["--model=xlnet", f"--xlnet_config_file={path['xlnet_config.json']}", *shape,
                   f"--perm_size={REUSE_LEN}", "--nobi_data", f"--seed={seed}"]
    num_steps = steps(quick)
    job.pretrain_and_score(path, pretraining, BATCH, num_steps)
    job.stage("unigram baseline", [
        "-m", "demo.unigram_baseline", "--model=xlnet", f"--train_file={path['pretraining.tfrecord']}",
        f"--held_out_file={path['held_out.tfrecord']}", f"--config_file={path['xlnet_config.json']}",
        *shape, f"--output_file={path['unigram.txt']}"])
    trained = job.last_logged_values(os.path.join(path["logs"], "pretraining.log"))
    held = job.read_key_values(os.path.join(path["pretrain_eval"], "eval_results.txt"))
    unigram = job.read_key_values(path["unigram.txt"])
    return Pretrained(
        checkpoint=path["pretrain"],
        runner_flags=[f"--spiece_model_file={path['spiece.model']}",
                      f"--bert_config_file={path['xlnet_config.json']}"],
        seq_length=SEQ_LEN,
        built=[("spiece.model", f"SentencePiece model, {vocab_size} pieces"),
               ("pretrain", f"pretrained 2-layer XLNet (d_model={MODEL['d_model']}), checkpoint + "
                            "xlnet_config.json")],
        summary=[
            f"pretraining ({num_steps} steps of {BATCH}, {NUM_PREDICT} of {SEQ_LEN} tokens predicted): "
            f"last training batches LM accuracy {trained['lm_accuracy']:.3f}, loss {trained['lm_loss']:.3f};",
            f"  scored on held-out modules: LM accuracy {held['lm_accuracy']:.3f}, loss {held['lm_loss']:.3f} "
            f"nats (unigram model {unigram['unigram_loss']:.3f}; its commonest target "
            f"{unigram['majority_accuracy']:.3f})"])
