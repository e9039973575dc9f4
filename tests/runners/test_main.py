"""The README's main job runs end to end (reduced: `--quick`) for BERT, XLNet,
OpenAI GPT and ELMo, so it cannot silently break."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from demo.pretrained import read_key_values
from demo.progress import last_logged_values, progress_line
from tests.conftest import ROOT

# Both arms' dev accuracy, each with its chosen learning rate and whether it fit its training data.
ARMS = (r"from pretrained\s+[01]\.\d{3}  \(lr [0-9.e-]+; .*training loss \d+\.\d{3} against the label prior's "
        r"\d+\.\d{3}, train accuracy [01]\.\d{3} against the majority's 0\.500.*\)\n"
        r"\s+from scratch\s+[01]\.\d{3}  \(lr [0-9.e-]+; .*\)")
# What TensorFlow and CUDA print at start-up on a CPU machine when nobody silences them.
NOISE = re.compile(r"cuInit|CUDA|cuda|oneDNN custom operations|This TensorFlow binary|"
                   r"^[IWEF]\d{4} |^WARNING:|absl::InitializeLog", re.MULTILINE)


# `.ci/run` runs the BERT quick job first, as the README's first command, and names its folder here
# (`work/`, `stdout.txt`, `stderr.txt`): the suite then checks that run instead of making another.
QUICK_RUN_ENV = "BERT_GARDEN_QUICK_RUN"


def run_quick(tmp_path_factory, family):
    work = tmp_path_factory.mktemp(f"main_{family}")
    env = {k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL", QUICK_RUN_ENV)}
    result = subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), "--quick", f"--family={family}",
                             f"--work_dir={work}"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return work, result


def recorded_quick_run(folder):
    """(work_dir, the finished process's output) of the BERT quick job `.ci/run` ran in `folder`."""
    import pathlib
    folder = pathlib.Path(folder)
    stdout, stderr = ((folder / name).read_text(encoding="utf-8") for name in ("stdout.txt", "stderr.txt"))
    return folder / "work", subprocess.CompletedProcess(["main.py", "--quick"], 0, stdout, stderr)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    recorded = os.environ.get(QUICK_RUN_ENV)
    return recorded_quick_run(recorded) if recorded else run_quick(tmp_path_factory, "bert")


@pytest.fixture(scope="module")
def quick_xlnet_run(tmp_path_factory):
    return run_quick(tmp_path_factory, "xlnet")


@pytest.fixture(scope="module")
def quick_gpt_run(tmp_path_factory):
    return run_quick(tmp_path_factory, "gpt")


@pytest.fixture(scope="module")
def quick_elmo_run(tmp_path_factory):
    return run_quick(tmp_path_factory, "elmo")


def test_main_job_builds_every_artefact(quick_run):
    work, _ = quick_run
    for name in ("vocab.txt", "pretrain_eval/eval_results.txt", "classifier/eval_results.txt",
                 "scratch/eval_results.txt", "serving/saved_model.pb", "hub/preprocessor/saved_model.pb",
                 "hub/encoder/saved_model.pb"):
        assert (work / name).exists(), name


def test_main_job_summary_reports_both_arms_and_served_pairs(quick_run):
    _, result = quick_run
    summary = result.stdout.split("=== summary", 1)[1]
    accuracies = r"masked-LM accuracy 0\.\d{3}, next-sentence accuracy 0\.\d{3} \(majority label 0\.\d{3}\)"
    assert re.search(r"last training batches " + accuracies, summary)
    assert re.search(r"scored on held-out modules: " + accuracies, summary)
    assert re.search(ARMS, summary)
    served = re.findall(r"^\s+(original|scrambled) \((0\.\d\d|1\.00)\)", summary, re.MULTILINE)
    assert len(served) == 3


def test_xlnet_main_job_scores_pretraining_against_a_unigram_model_and_serves(quick_xlnet_run):
    work, result = quick_xlnet_run
    for name in ("spiece.model", "pretrain/xlnet_config.json", "pretrain_eval/eval_results.txt",
                 "unigram.txt", "classifier/eval_results.txt", "scratch/eval_results.txt",
                 "serving/saved_model.pb", "hub/preprocessor/saved_model.pb", "hub/encoder/saved_model.pb"):
        assert (work / name).exists(), name
    summary = result.stdout.split("=== summary", 1)[1]
    assert re.search(r"last training batches LM accuracy 0\.\d{3}, loss \d+\.\d{3};", summary)
    assert re.search(r"scored on held-out modules: LM accuracy 0\.\d{3}, loss \d+\.\d{3} nats "
                     r"\(unigram model \d+\.\d{3}; its commonest target 0\.\d{3}\)", summary)
    assert re.search(ARMS, summary)
    assert len(re.findall(r"^\s+(original|scrambled) \((0\.\d\d|1\.00)\)", summary, re.MULTILINE)) == 3
    assert not NOISE.search(result.stdout + result.stderr)


@pytest.mark.slow  # the whole quick job: the chain pretraining -> fine-tuning -> exports -> serving
def test_gpt_main_job_scores_pretraining_against_a_unigram_model_and_serves(quick_gpt_run):
    """Pretraining output_dir -> fine-tuning from it (run_classifier.py, with the
    auxiliary LM loss) and its SavedModel served in a fresh process, the TF Hub
    pair exported from it: the job's own stages."""
    work, result = quick_gpt_run
    for name in ("encoder_bpe_300.json", "vocab_300.bpe", "pretraining.tfrecord", "pretrain/gpt_config.json",
                 "pretrain_eval/eval_results.txt", "unigram.txt", "classifier/eval_results.txt",
                 "scratch/eval_results.txt", "serving/saved_model.pb", "hub/preprocessor/saved_model.pb",
                 "hub/encoder/saved_model.pb"):
        assert (work / name).exists(), name
    summary = result.stdout.split("=== summary", 1)[1]
    assert re.search(r"last training batches LM accuracy 0\.\d{3}, loss \d+\.\d{3};", summary)
    assert re.search(r"scored on held-out modules: LM accuracy 0\.\d{3}, loss \d+\.\d{3} nats, perplexity "
                     r"\d+\.\d \(unigram model \d+\.\d{3} nats, perplexity \d+\.\d; its commonest token "
                     r"0\.\d{3}\)", summary)
    assert re.search(ARMS, summary)
    assert len(re.findall(r"^\s+(original|scrambled) \((0\.\d\d|1\.00)\)", summary, re.MULTILINE)) == 3
    assert re.search(r"^  pretraining: step 20/20 .* LM acc .* examples/s", result.stdout, re.MULTILINE)
    assert not NOISE.search(result.stdout + result.stderr)
    # Training adds lm_coef (0.5) x the LM loss of the sentences (about 5.5 nats after 20 steps) to the
    # classifier's; evaluation reports the classifier's alone.
    trained = last_logged_values(str(work / "logs" / "fine-tuning_from_pretrained.log"))
    assert trained["loss"] > read_key_values(str(work / "classifier" / "eval_results.txt"))["eval_loss"] + 1.0


@pytest.mark.slow  # the quick job's output, converted
def test_gpt_main_jobs_pretraining_converts_to_the_release_and_to_hugging_face(quick_gpt_run, tmp_path):
    """The rest of the chain from the job's pretraining output_dir: convert_checkpoint.py writes the release's
    shards, which load back bit for bit, and a Hugging Face directory whose `OpenAIGPTLMHeadModel` gives the
    pretrained model's logits (float32 bound of tests/families/gpt/model_tolerance.py)."""
    transformers = pytest.importorskip("transformers")
    import torch
    from checkpoints.loader import load_into
    from convert_checkpoint import convert
    from families.gpt.config import GPTConfig
    from families.gpt.language_model import GPTLanguageModel
    from tests.families.gpt.model_tolerance import float32_bound
    work, _ = quick_gpt_run
    pretrained = str(work / "pretrain")
    config = GPTConfig.from_json_file(os.path.join(pretrained, "gpt_config.json"))
    ours = GPTLanguageModel(config)
    assert not load_into(ours, pretrained, strict=True).missing
    done = subprocess.run([sys.executable, os.path.join(ROOT, "convert_checkpoint.py"),
                           f"--init_checkpoint={pretrained}", "--output_format=release",
                           f"--output_dir={tmp_path / 'release'}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    convert(pretrained, str(tmp_path / "hf"), "hf")
    released = GPTLanguageModel(config)
    load_into(released, str(tmp_path / "release"), strict=True)
    for mine, theirs in zip(ours.weights, released.weights):
        np.testing.assert_array_equal(theirs.numpy(), mine.numpy(), err_msg=mine.path)

    rng = np.random.default_rng(0)
    ids = rng.integers(0, config.n_vocab, (3, config.n_ctx)).astype(np.int32)
    mask = np.ones_like(ids)
    want = ours({"input_word_ids": ids, "input_mask": mask})["lm_logits"].numpy()
    hf = transformers.OpenAIGPTLMHeadModel.from_pretrained(str(tmp_path / "hf")).eval()
    with torch.no_grad():
        got = hf(torch.from_numpy(ids.astype(np.int64))).logits.numpy()
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= float32_bound(config, config.n_ctx, want)


@pytest.mark.slow  # the whole quick job: 195 s at load 8-11 on 2 shared cores (137 s of CPU time)
def test_elmo_main_job_scores_perplexity_against_a_unigram_model_and_serves(quick_elmo_run):
    """Vocabulary -> records -> biLM pretraining -> held-out perplexity beside the unigram model of the
    same targets -> feature-based fine-tuning from the pretrained biLM and from a random one -> the
    classifier served in a fresh process, the TF Hub pair and the ELMo module exported: the job's stages."""
    work, result = quick_elmo_run
    for name in ("vocab.txt", "options.json", "pretraining.tfrecord", "held_out.tfrecord",
                 "pretrain/options.json", "pretrain_eval/eval_results.txt", "unigram.txt",
                 "classifier/eval_results.txt", "scratch/eval_results.txt", "serving/saved_model.pb",
                 "hub/preprocessor/saved_model.pb", "hub/encoder/saved_model.pb", "hub/elmo/saved_model.pb"):
        assert (work / name).exists(), name
    summary = result.stdout.split("=== summary", 1)[1]
    assert re.search(r"^    hub/elmo/ +the TF Hub ELMo module", summary, re.MULTILINE)
    assert re.search(r"pretraining \(10 steps of 64 windows of 20 words each way\): last training batches "
                     r"perplexity \d+\.\d;", summary)
    held = re.search(r"scored on held-out modules: perplexity (\d+\.\d) \(forward \d+\.\d, backward "
                     r"\d+\.\d\), loss (\d+\.\d{3}) nats \(unigram model (\d+\.\d{3}) nats, perplexity "
                     r"\d+\.\d; its commonest word 0\.\d{3}\)", summary)
    assert held, summary
    results = read_key_values(str(work / "pretrain_eval" / "eval_results.txt"))
    assert float(held.group(2)) == pytest.approx(results["loss"], abs=1e-3)
    assert float(held.group(3)) == pytest.approx(
        read_key_values(str(work / "unigram.txt"))["unigram_loss"], abs=1e-3)
    assert re.search(ARMS, summary)
    assert len(re.findall(r"^\s+(original|scrambled) \((0\.\d\d|1\.00)\)", summary, re.MULTILINE)) == 3
    assert re.search(r"^  pretraining: step 10/10 .* ppl .* examples/s", result.stdout, re.MULTILINE)
    assert not NOISE.search(result.stdout + result.stderr)
    # Feature-based, both arms: the classifier's biLM is the pretrained one, frozen through fine-tuning;
    # the other arm's is a random biLM of the same options.
    import tensorflow as tf
    biLMs = {}
    for arm in ("pretrain", "classifier", "scratch"):
        reader = tf.train.load_checkpoint(str(work / arm))
        biLMs[arm] = {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()
                      if name.startswith("model/bilm.") and "OPTIMIZER_SLOT" not in name}
    assert biLMs["pretrain"] and biLMs["classifier"].keys() == biLMs["pretrain"].keys() == biLMs["scratch"].keys()
    for name, value in biLMs["pretrain"].items():
        np.testing.assert_array_equal(biLMs["classifier"][name], value, err_msg=name)
    assert any(not np.array_equal(biLMs["scratch"][name], value) for name, value in biLMs["pretrain"].items())


def test_unigram_baseline_scores_add_one_frequencies_of_the_training_targets():
    from demo.unigram_baseline import unigram_scores
    scores = unigram_scores(np.array([1, 1, 2]), np.array([1, 3]), vocab_size=4)
    # Counts + 1: [1, 3, 2, 1] of 7; the commonest training target is 1.
    assert scores["unigram_loss"] == pytest.approx(-(np.log(3 / 7) + np.log(1 / 7)) / 2)
    assert scores["majority_accuracy"] == 0.5


def test_main_job_shows_training_progress_with_time_left(quick_run):
    _, result = quick_run
    lines = re.findall(r"^  pretraining: step (\d+)/20 .* examples/s .* left$", result.stdout, re.MULTILINE)
    assert lines and lines[-1] == "20"


def test_main_job_prints_no_tensorflow_or_cuda_start_up_noise(quick_run):
    _, result = quick_run
    assert not NOISE.search(result.stdout), NOISE.search(result.stdout).group(0)
    assert not NOISE.search(result.stderr), result.stderr[:2000]


def test_progress_line_estimates_time_left_from_examples_per_second():
    line = progress_line("pretraining", 100, 400, {"loss": 5.0, "masked_lm_accuracy": 0.25,
                                                    "examples_per_second": 64.0}, 32)
    # 300 steps of 32 examples at 64 examples/s: 150 s.
    assert line == "  pretraining: step 100/400  MLM acc 0.250  loss 5.000  64 examples/s  2m30s left"


def test_last_logged_values_are_the_last_progress_line_of_a_log(tmp_path):
    log = tmp_path / "pretraining.log"
    log.write_text("I1124 trainer.py:264] step 75: loss = 6.9, next_sentence_accuracy = 0.61\n"
                   "I1124 other.py:1] unrelated line\n"
                   "I1124 trainer.py:264] step 150: loss = 5.5, next_sentence_accuracy = 0.72\n", encoding="utf-8")
    assert last_logged_values(str(log)) == {"loss": 5.5, "next_sentence_accuracy": 0.72}
    log.write_text("no progress here\n", encoding="utf-8")
    assert last_logged_values(str(log)) == {}


def test_stdlib_corpus_reads_neither_tests_nor_installed_packages():
    from demo.stdlib_corpus import documents
    top_dirs = {module.split(os.sep)[0] for module, _ in documents()}
    assert "os.py" in top_dirs and "email" in top_dirs
    assert not top_dirs & {"site-packages", "dist-packages", "test", "idlelib"}


def test_pretraining_is_scored_on_the_modules_its_corpus_holds_out(tmp_path):
    from demo.stdlib_corpus import documents, held_out, write_corpus
    trained, trained_docstrings, _ = write_corpus(str(tmp_path / "corpus.txt"))
    held, _, _ = write_corpus(str(tmp_path / "held_out.txt"), held=True)
    eligible = {m: [d for d in docstrings if len(d) >= 2] for m, docstrings in documents()}
    eligible = {m: docstrings for m, docstrings in eligible.items() if docstrings}
    assert trained + held == len(eligible)
    assert held == sum(held_out(m) for m in eligible) and trained > 3 * held  # a fifth of the modules
    assert trained_docstrings == sum(len(d) for m, d in eligible.items() if not held_out(m))


def test_corpus_has_one_document_per_docstring_of_two_or_more_sentences(tmp_path):
    from demo.stdlib_corpus import write_corpus
    _, count, size = write_corpus(str(tmp_path / "corpus.txt"), max_modules=5)
    text = (tmp_path / "corpus.txt").read_text(encoding="utf-8")
    blocks = text.split("\n\n")
    assert len(text.encode("utf-8")) == size and blocks[-1] == ""
    assert len(blocks) - 1 == count and all(len(b.split("\n")) >= 2 for b in blocks[:-1])


def test_labelled_sentences_come_from_modules_the_corpus_holds_out(tmp_path):
    from demo.make_word_order_set import write_set
    from demo.stdlib_corpus import write_corpus
    write_set(str(tmp_path))
    write_corpus(str(tmp_path / "corpus.txt"))
    corpus = set((tmp_path / "corpus.txt").read_text(encoding="utf-8").splitlines())
    splits = {}
    for split in ("train", "dev"):
        rows = [line.split("\t") for line in (tmp_path / f"{split}.tsv").read_text(encoding="utf-8").splitlines()]
        assert rows[0] == ["sentence", "label"]
        splits[split] = rows[1:]
        labels = [label for _, label in rows[1:]]
        assert labels.count("original") == labels.count("scrambled") == len(labels) // 2
        assert not {s for s, label in rows[1:] if label == "original"} & corpus
    assert not {s for s, _ in splits["train"]} & {s for s, _ in splits["dev"]}
    if sys.version_info[:3] == (3, 11, 7):  # the shipped files were made with this Python
        for split in ("train", "dev"):
            assert (tmp_path / f"{split}.tsv").read_bytes() == (
                open(os.path.join(ROOT, "assets", "demo_word_order", f"{split}.tsv"), "rb").read())


def test_scrambled_sentences_keep_their_words_in_another_order():
    import random
    from demo.make_word_order_set import scramble
    rng = random.Random(0)
    for sentence in ("Return the value.", "a b", "Close the file if it is open and flush its buffer."):
        scrambled = scramble(sentence, rng)
        assert scrambled != sentence and sorted(scrambled.split()) == sorted(sentence.split())


def test_docstrings_come_in_ast_walks_order(tmp_path):
    """Walking statements only finds the definitions `ast.walk` finds, in its order."""
    import ast
    from demo.stdlib_corpus import _docstrings
    source = '''"""Module."""
class A:
    """A."""
    def f(self):
        """A.f."""
        return lambda: [x for x in ()]
if True:
    def g():
        """g."""
        class B:
            """B."""
try:
    pass
except ValueError:
    async def h():
        """h."""
match 1:
    case 1:
        def i():
            """i."""
with open(__file__) as f:
    def j():
        """j."""
'''
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    tree = ast.parse(source)
    walked = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    assert _docstrings(str(path)) == [ast.get_docstring(n) for n in walked]
    assert _docstrings(str(path)) == ["Module.", "A.", "A.f.", "g.", "j.", "B.", "h.", "i."]


def run_stages(tmp_path, *scripts, after=None, slots=2, warm=None):
    from demo.progress import Stage, run_stages as run
    stages = [Stage(f"stage {i}", ["-c", script], after=(after or {}).get(i, ()),
                    log_path=str(tmp_path / f"{i}.log"), env=dict(os.environ)) for i, script in enumerate(scripts)]
    return run(stages, str(tmp_path), slots=slots, warm=warm)


@pytest.fixture(scope="module")
def warm_start():
    """The interpreter the main job forks its stages from."""
    from utils.warm_start import WarmStart
    with WarmStart(dict(os.environ)) as server:
        yield server


def check_side_by_side(tmp_path, capsys, warm):
    """Each stage waits for the other's file: they end only if both run at once."""
    meet = ("import os, sys, time\nopen('{me}', 'w').close()\ndeadline = time.time() + 30\n"
            "while not os.path.exists('{other}'):\n"
            "    if time.time() > deadline: sys.exit('alone')\n"
            "    time.sleep(0.05)\nprint('met {me}')\n")
    seconds = run_stages(tmp_path, meet.format(me="a", other="b"), meet.format(me="b", other="a"), warm=warm)
    assert set(seconds) == {"stage 0", "stage 1"}
    assert (tmp_path / "0.log").read_text() == "met a\n" and (tmp_path / "1.log").read_text() == "met b\n"
    out = capsys.readouterr().out
    assert "=== stage 0" in out and "=== stage 1" in out and "stage 1: done in" in out


def test_side_by_side_stages_run_at_once(tmp_path, capsys):
    check_side_by_side(tmp_path, capsys, None)


def test_side_by_side_stages_forked_warm_run_at_once(tmp_path, capsys, warm_start):
    check_side_by_side(tmp_path, capsys, warm_start)


def check_failing_stage(tmp_path, warm):
    from demo.progress import StageError
    start = time.time()
    with pytest.raises(StageError, match=r"stage 0 failed \(exit 3\).*0\.log:\nboom"):
        run_stages(tmp_path, "import sys; print('boom'); sys.exit(3)", "import time; time.sleep(60)", warm=warm)
    assert time.time() - start < 30


def test_a_failing_stage_stops_the_one_beside_it(tmp_path):
    check_failing_stage(tmp_path, None)


def test_a_failing_stage_forked_warm_stops_the_one_beside_it(tmp_path, warm_start):
    check_failing_stage(tmp_path, warm_start)


def test_micro_batches_side_by_side_split_the_batch_over_the_cores(monkeypatch):
    from demo.threads import micro_batches_side_by_side
    for cores, batch, flags, intra, inter in ((2, 128, ["--grad_accum_steps=2"], "1", "2"),
                                              (8, 128, ["--grad_accum_steps=4"], "2", "4"),
                                              (4, 6, ["--grad_accum_steps=3"], "1", "3")):
        monkeypatch.setattr("os.cpu_count", lambda: cores)
        split, env = micro_batches_side_by_side(batch)
        assert (split, env["TF_NUM_INTRAOP_THREADS"], env["TF_NUM_INTEROP_THREADS"]) == (flags, intra, inter)
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert micro_batches_side_by_side(128) == ([], {})


def test_stages_wait_for_a_free_slot_and_the_stages_they_come_after(tmp_path):
    """Stage 0 ends once stage 2 has (or after 5 s); stage 1 ends last. Stage 2 ends
    first only when it need not wait for stage 0's slot or end."""
    wait_for = ("import os, time\ndeadline = time.time() + {}\n"
                "while not set('{}') <= set(open('order').read() if os.path.exists('order') else ''):\n"
                "    if time.time() > deadline: break\n"
                "    time.sleep(0.05)\nopen('order', 'a').write('{}')\n")
    stages = wait_for.format(5, "2", 0), wait_for.format(60, "02", 1), wait_for.format(0, "", 2)
    run_stages(tmp_path / "free", *stages, slots=3)
    run_stages(tmp_path / "slot", *stages, slots=2)
    run_stages(tmp_path / "after", *stages, slots=3, after={2: ("stage 0",)})
    assert [(tmp_path / case / "order").read_text() for case in ("free", "slot", "after")] == ["201", "021", "021"]


def test_a_work_dir_the_job_did_not_make_is_refused_and_kept(tmp_path):
    """Only a folder the main job made (its mark inside) is cleared for a rerun."""
    work = tmp_path / "mine"
    work.mkdir()
    (work / "notes.txt").write_text("keep me", encoding="utf-8")
    result = subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), f"--work_dir={work}"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: --work_dir={work} holds files the main job did not write (notes.txt); give a new or empty folder")
    assert (work / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_a_rerun_clears_the_folder_the_job_made(quick_run):
    work, _ = quick_run
    assert (work / ".main_job").exists()  # so that the next run may clear it
