"""The main job's GPT half: a BPE vocabulary learned from the corpus
(`build_vocab.py --model=gpt`), contiguous windows of its ids, a 2-layer GPT
pretrained on them with the original's optimizer (bias-corrected Adam, warmup
then cosine decay), scored on the held-out modules beside a unigram model of
the training tokens."""

import json
import math
import os

from contracts.main_job import Pretrained
from utils.files import atomic_write_text

SEQ_LENGTH = 64  # the windows, fine-tuning and serving
NUM_MERGES = 2000
BATCH = 32
# n_embd 64 and no dropout for the reasons of BERT's H=64 (see families/bert/main_job.py); no
# special rows: fine-tuning adds them.
MODEL = {"n_special": 0, "n_ctx": SEQ_LENGTH, "n_embd": 64, "n_head": 2, "n_layer": 2, "embd_pdrop": 0.0,
         "attn_pdrop": 0.0, "resid_pdrop": 0.0, "clf_pdrop": 0.0}


def steps(quick):
    return 20 if quick else 3000


def pretrain(job, work, corpus, held_out, seed, quick):
    """Runs the GPT stages through `job.stage(name, args, batch_size, threads)`
    (`demo.pretrained.FamilyJob`); returns its `Pretrained`."""
    num_merges = 300 if quick else NUM_MERGES  # the quick corpus has too few frequent pairs for more
    encoder = f"encoder_bpe_{num_merges}.json"
    path = {name: os.path.join(work, name) for name in (
        encoder, "gpt_config.json", "pretraining.tfrecord", "held_out.tfrecord", "pretrain", "pretrain_eval",
        "unigram.txt", "logs")}
    job.stage("vocabulary", ["build_vocab.py", "--model=gpt", f"--input_file={corpus}", f"--output_dir={work}",
                             f"--num_merges={num_merges}"])
    with open(path[encoder], encoding="utf-8") as f:
        n_vocab = len(json.load(f))
    atomic_write_text(path["gpt_config.json"], json.dumps({**MODEL, "n_vocab": n_vocab}, indent=2))
    # The original Python pipeline, as the original's records; its writer loads no TensorFlow (the
    # in-graph tokenizer of fine-tuning gives the same ids on every line of this corpus).
    records = [f"--vocab_file={path[encoder]}", f"--max_seq_length={SEQ_LENGTH}", "--original_tokenizer"]
    job.stage("pretraining data", ["create_pretraining_data.py", "--model=gpt", f"--input_file={corpus}",
                                   f"--output_file={path['pretraining.tfrecord']}", *records])
    job.stage("held-out pretraining data", ["create_pretraining_data.py", "--model=gpt",
                                            f"--input_file={held_out}",
                                            f"--output_file={path['held_out.tfrecord']}", *records])
    pretraining = ["--model=gpt", f"--bert_config_file={path['gpt_config.json']}", f"--max_seq_length={SEQ_LENGTH}",
                   "--optimizer=adam", "--learning_rate_schedule=cosine", f"--seed={seed}"]
    num_steps = steps(quick)
    job.pretrain_and_score(path, pretraining, BATCH, num_steps)
    job.stage("unigram baseline", [
        "-m", "demo.unigram_baseline", "--model=gpt", f"--train_file={path['pretraining.tfrecord']}",
        f"--held_out_file={path['held_out.tfrecord']}", f"--config_file={path['gpt_config.json']}",
        f"--max_seq_length={SEQ_LENGTH}", f"--output_file={path['unigram.txt']}"])
    trained = job.last_logged_values(os.path.join(path["logs"], "pretraining.log"))
    held = job.read_key_values(os.path.join(path["pretrain_eval"], "eval_results.txt"))
    unigram = job.read_key_values(path["unigram.txt"])
    return Pretrained(
        checkpoint=path["pretrain"],
        runner_flags=[f"--vocab_file={path[encoder]}", f"--bert_config_file={path['gpt_config.json']}"],
        seq_length=SEQ_LENGTH,
        built=[(encoder, f"BPE vocabulary, {n_vocab} pieces ({num_merges} merges)"),
               ("pretrain", f"pretrained 2-layer GPT (n_embd={MODEL['n_embd']}), checkpoint + gpt_config.json")],
        summary=[
            f"pretraining ({num_steps} steps of {BATCH} windows of {SEQ_LENGTH} tokens): last training "
            f"batches LM accuracy {trained['lm_accuracy']:.3f}, loss {trained['lm_loss']:.3f};",
            f"  scored on held-out modules: LM accuracy {held['lm_accuracy']:.3f}, loss {held['lm_loss']:.3f} "
            f"nats, perplexity {held['perplexity']:.1f} (unigram model {unigram['unigram_loss']:.3f} nats, "
            f"perplexity {math.exp(unigram['unigram_loss']):.1f}; its commonest token "
            f"{unigram['majority_accuracy']:.3f})"])
