"""The served export against what a serving user would pick instead, on CPU: a
BERT sentence classifier, raw text in, class probabilities out.

    python benchmarks/serving.py --preset=bert_base_uncased --repeats=3

`export_fp32` (and `export_bf16`) is this garden's SavedModel as a server loads
it: written once by `run_classifier.py --export_dir` (one training step from
random initialisation: speed does not depend on the weights), then in each
contender's own fresh process `tf.saved_model.load` and its `serving_default`
signature on strings (the in-graph WordPiece tokenizer included);
`export_bf16_frozen` is the bf16 export in a process that sets
`TF_ONEDNN_ASSUME_FROZEN_WEIGHTS=1`, as a server whose weights never change
may (oneDNN then keeps the weights in its own layout); `export_bf16_ids`
calls the bf16 export's `serve_ids` on ids from Hugging Face's tokenizer, as
the peers are called, so that the in-graph tokenizer's share is seen. The peers
run the same architecture from Hugging Face transformers with its fast
tokenizer over the same vocabulary: torch float32 and bf16 autocast, and that
model exported with each runtime's own tool, ONNX Runtime (`torch.onnx.export`,
all graph optimisations) and OpenVINO (`openvino.convert_model`). Every
contender pads to `--seq` tokens, as the export's signature does.

Each process measures the latency of `--requests` single-sentence requests
(p50, p99) and the throughput of `--steps` batches of `--batch` sentences
(SST-2 dev sentences, or a built-in sentence repeated when `../shared` is not
there), and its peak RSS; processes run interleaved, `--repeats` per
contender, and the table gives medians, their min-max and ratios to each
Hugging Face torch figure. The bf16 contenders run by default only where the
CPU computes bf16 natively (`--mixed_precision=auto`'s rule). The ONNX Runtime and
OpenVINO contenders need `pip install onnx onnxruntime openvino` (measured with
onnx 1.23.2, onnxruntime 1.32.0, openvino 2026.4.1), which the requirements leave out.
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.common import (add_cpu_isa_flag, contender_parser, median, peak_rss_mb,  # noqa: E402
                               print_table, run_contenders, speed_rows, start_cpu_run)

CONTENDERS = ("export_fp32", "export_bf16", "export_bf16_frozen", "export_bf16_ids", "hf_torch_fp32", "hf_torch_bf16",
              "onnxruntime", "openvino")
SST2_DEV = os.path.join(os.path.dirname(ROOT), "shared", "data", "glue", "SST-2", "dev.tsv")
FALLBACK = "a gripping , funny and ultimately moving film that never lets its story go slack ."


def sentences(count):
    """`count` sentences: SST-2 dev's, in order and cycled, or the built-in one."""
    if os.path.isfile(SST2_DEV):
        with open(SST2_DEV, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t")[0] for line in f][1:]
    else:
        rows = [FALLBACK]
    return [rows[i % len(rows)] for i in range(count)]


def write_export(work_dir, preset, seq, precision):
    """The classifier SavedModel of `preset` computing in `precision`, written by
    `run_classifier.py` after one step of 32 (reused when already there)."""
    from families.bert.config import BertConfig
    export_dir = os.path.join(work_dir, f"export_{precision}")
    if os.path.isdir(export_dir):
        return export_dir
    os.makedirs(work_dir, exist_ok=True)
    config_file = os.path.join(work_dir, "bert_config.json")
    with open(config_file, "w", encoding="utf-8") as f:
        json.dump(BertConfig.from_preset(preset).to_dict(), f)
    data_dir = os.path.join(work_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    for split in ("train", "dev"):
        with open(os.path.join(data_dir, f"{split}.tsv"), "w", encoding="utf-8") as f:
            f.write("sentence\tlabel\n" + "".join(f"{s}\t{i % 2}\n" for i, s in enumerate(sentences(32))))
    done = subprocess.run([
        sys.executable, os.path.join(ROOT, "run_classifier.py"), "--task_name=SST-2", f"--data_dir={data_dir}",
        f"--bert_config_file={config_file}", f"--vocab_file={vocab_file()}", "--do_lower_case",
        f"--output_dir={os.path.join(work_dir, f'run_{precision}')}", "--do_train", f"--max_seq_length={seq}",
        "--train_batch_size=32", "--num_train_epochs=1", "--mixed_precision=none",
        f"--export_dir={export_dir}", f"--export_precision={precision}"], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"run_classifier.py failed:\n{done.stderr[-3000:]}")
    return export_dir


def vocab_file():
    """google-research's uncased vocabulary (30,522 pieces), as BERT-Base's presets count it."""
    return os.path.join(os.path.dirname(ROOT), "shared", "data", "vocab", "bert_uncased_vocab.txt")


def _export(export_dir):
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the in-graph tokenizer's ops, as a server's build does)
    serve = tf.saved_model.load(export_dir).signatures["serving_default"]
    return lambda texts: serve(text_a=tf.constant(texts))["probabilities"].numpy()


def _export_ids(export_dir, seq):
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (the SavedModel holds the tokenizer's ops, unused here)
    serve = tf.saved_model.load(export_dir).signatures["serve_ids"]
    dtypes = {name: spec.dtype for name, spec in serve.structured_input_signature[1].items()}
    tokenizer = _tokenizer()

    def run(texts):
        ids = _tokenized(tokenizer, texts, seq, "np")
        inputs = {"input_word_ids": ids["input_ids"], "input_mask": ids["attention_mask"],
                  "input_type_ids": ids["token_type_ids"]}
        return serve(**{name: tf.constant(value, dtypes[name]) for name, value in inputs.items()})[
            "probabilities"].numpy()
    return run


def _tokenizer():
    import transformers
    return transformers.BertTokenizerFast(vocab_file(), do_lower_case=True)


def _hf_model(preset):
    import torch
    import transformers
    from families.bert.config import BertConfig
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(
        transformers.BertConfig(**BertConfig.from_preset(preset).to_dict(), num_labels=2))
    return model.eval(), _tokenizer()


def _tokenized(tokenizer, texts, seq, framework):
    return tokenizer(texts, padding="max_length", truncation=True, max_length=seq, return_tensors=framework)


def _hf_torch(preset, seq, bf16):
    import torch
    torch.set_grad_enabled(False)
    model, tokenizer = _hf_model(preset)

    def run(texts):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(**_tokenized(tokenizer, texts, seq, "pt")).logits
        return torch.softmax(logits.float(), -1).numpy()
    return run


def _onnx_file(preset, seq, work_dir):
    """The Hugging Face model exported by torch's ONNX exporter (dynamic batch)."""
    import torch
    path = os.path.join(work_dir, "hf_model.onnx")
    if not os.path.isfile(path):
        model, tokenizer = _hf_model(preset)
        example = _tokenized(tokenizer, sentences(2), seq, "pt")
        names = ["input_ids", "attention_mask", "token_type_ids"]
        torch.onnx.export(model, tuple(example[n] for n in names), path + ".partial", input_names=names,
                          output_names=["logits"], dynamic_axes={n: {0: "batch"} for n in [*names, "logits"]},
                          opset_version=17, dynamo=False)
        os.replace(path + ".partial", path)
    return path


def _softmax(logits):
    exp = np.exp(logits - logits.max(-1, keepdims=True))
    return exp / exp.sum(-1, keepdims=True)


def _onnxruntime(preset, seq, work_dir):
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(_onnx_file(preset, seq, work_dir), options,
                                           providers=["CPUExecutionProvider"])
    tokenizer = _tokenizer()
    return lambda texts: _softmax(session.run(["logits"], dict(_tokenized(tokenizer, texts, seq, "np")))[0])


def _openvino(preset, seq):
    import openvino
    model, tokenizer = _hf_model(preset)
    example = dict(_tokenized(tokenizer, sentences(2), seq, "pt"))
    compiled = openvino.compile_model(openvino.convert_model(model, example_input=example), "CPU")
    return lambda texts: _softmax(next(iter(compiled(dict(_tokenized(tokenizer, texts, seq, "np"))).values())))


def _export_precision(name):
    """The `--export_precision` of an `export_*` contender."""
    return "bfloat16" if "bf16" in name else "float32"


def worker(args):
    name = args.worker
    started = time.perf_counter()
    if name.endswith("_frozen"):
        os.environ["TF_ONEDNN_ASSUME_FROZEN_WEIGHTS"] = "1"
    export_dir = os.path.join(args.work_dir, f"export_{_export_precision(name)}")
    if name.endswith("_ids"):
        run = _export_ids(export_dir, args.seq)
    elif name.startswith("export"):
        run = _export(export_dir)
    elif name.startswith("hf_torch"):
        run = _hf_torch(args.preset, args.seq, bf16=name.endswith("bf16"))
    elif name == "onnxruntime":
        run = _onnxruntime(args.preset, args.seq, args.work_dir)
    else:
        run = _openvino(args.preset, args.seq)
    texts = sentences(max(args.requests, args.batch * args.steps))
    run(texts[:args.batch])  # traces / warms up
    ready = time.perf_counter() - started
    latencies = []
    for text in texts[:args.requests]:
        start = time.perf_counter()
        run([text])
        latencies.append(time.perf_counter() - start)
    batch_times = []
    for i in range(args.steps):
        start = time.perf_counter()
        run(texts[i * args.batch:(i + 1) * args.batch])
        batch_times.append(time.perf_counter() - start)
    print(json.dumps({"p50_ms": 1e3 * float(np.percentile(latencies, 50)),
                      "p99_ms": 1e3 * float(np.percentile(latencies, 99)),
                      "seq_per_s": args.batch / median(batch_times), "ready_s": ready,
                      "peak_rss_mb": peak_rss_mb()}))


def main():
    parser = contender_parser(__doc__, (), batch=32, steps=5, repeats=3)
    add_cpu_isa_flag(parser)
    parser.add_argument("--requests", type=int, default=50, help="Single-sentence requests timed per process.")
    parser.add_argument("--work_dir", default=os.path.join(ROOT, "runs", "serving_benchmark"),
                        help="Where the exports and the ONNX file are written once (reused by later runs).")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    contenders = start_cpu_run(parser, args, CONTENDERS, CONTENDERS)
    work_dir = os.path.join(args.work_dir, f"{args.preset}_seq{args.seq}")
    for name in contenders:
        if name.startswith("export"):
            write_export(work_dir, args.preset, args.seq, _export_precision(name))
    results = run_contenders(__file__, contenders, args.repeats, [
        f"--preset={args.preset}", f"--batch={args.batch}", f"--seq={args.seq}", f"--steps={args.steps}",
        f"--requests={args.requests}", f"--work_dir={work_dir}"])
    print(f"{args.preset}, seq {args.seq}: latency over {args.requests} single-sentence requests, throughput "
          f"over {args.steps} batches of {args.batch}; median of {args.repeats} processes per contender")
    print_table(rows(results), ["contender", "p50 ms", "p99 ms", "seq/s", "min-max", "vs hf_torch_fp32",
                                "vs hf_torch_bf16", "ready s", "peak RSS MB"])


def rows(results):
    """`speed_rows`' throughput columns with each contender's median latencies and start-up time."""
    table = speed_rows(results, ("hf_torch_fp32", "hf_torch_bf16"))
    for row in table:
        runs = results[row["contender"]]
        row.update({column: f"{median(r[key] for r in runs):.1f}"
                    for column, key in (("p50 ms", "p50_ms"), ("p99 ms", "p99_ms"), ("ready s", "ready_s"))})
    return table


if __name__ == "__main__":
    main()
