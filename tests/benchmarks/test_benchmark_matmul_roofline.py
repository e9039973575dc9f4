"""benchmarks/matmul_roofline.py: an encoder layer's dense products timed alone in both dtypes, and the
ceiling they put on a forward pass's throughput."""

from tests.benchmarks.run_script import run_benchmark


def test_each_dense_product_and_the_layers_total_are_timed_in_both_dtypes(tmp_path):
    stdout = run_benchmark(tmp_path, "matmul_roofline.py", "--preset=bert_tiny_uncased", "--batch=2", "--seq=8",
                           "--repeats=2")
    assert "Model name" in stdout and "Flags" in stdout, stdout
    rows = [line.split() for line in stdout.splitlines() if line.split()[:1] in (["float32"], ["bfloat16"])]
    assert [row[0] for row in rows] == ["float32"] * 4 + ["bfloat16"] * 4, stdout
    for dtype in ("float32", "bfloat16"):
        products = [row for row in rows if row[0] == dtype]
        assert any("[16x128]x[128x512]" in row for row in products), stdout  # bert_tiny: H 128, I 512
        total = products[-1]
        assert total[1:3] == ["all", "2"] and float(total[-1]) > 0, stdout  # seq/s at most
