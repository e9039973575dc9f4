"""GPT's checkpoint layouts with random weights: the original release's shards
and Hugging Face directories read into our model, and the round trips
original -> ours -> original and ours -> Hugging Face -> ours bit for bit,
special rows and the multiple-choice head where the layout has a place.

The shared loader finds a family's layouts through the registry, which GPT
is not in yet: the layouts' `CheckpointFormat.read` functions are tested
here with the loader's `load_tensors`, and `convert` finds GPT's layouts itself."""

import json
import os

import numpy as np
import pytest

from checkpoints import ours
from checkpoints.loader import CheckpointMismatchError, load_tensors
from families.gpt.checkpoints import huggingface, release
from families.gpt.checkpoints.convert import convert, gpt_format
from families.gpt.checkpoints.formats import FORMATS, foreign_config
from families.gpt.checkpoints.names import from_ours, release_order
from families.gpt.encoder import GPTEncoder
from tests.families.gpt.checkpoint_models import assert_same_weights, random_model, weights_of
from tests.families.gpt.model_reference import TINY

PRETRAINED = TINY.replace(n_special=0)


def read_with_format(path, model):
    """`load_into` of the shared loader, but for GPT's layouts unregistered."""
    fmt = next(f for f in FORMATS if f.detect(path, None))
    return fmt.name, load_tensors(model, *fmt.read(path, model), path, fmt.name)


def release_files(path):
    return {name: open(os.path.join(path, name), "rb").read() for name in sorted(os.listdir(path))}


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    """A pretrained release of the tiny config: shards only, no config file."""
    path = str(tmp_path_factory.mktemp("gpt") / "model")
    release.write_dir(from_ours(weights_of(random_model(PRETRAINED, heads=False)), PRETRAINED.n_layer), path)
    return path


def test_release_layout(release_dir):
    assert sorted(os.listdir(release_dir)) == sorted(
        ["params_shapes.json"] + [f"params_{n}.npy" for n in range(10)])
    with open(os.path.join(release_dir, "params_shapes.json")) as f:
        shapes = json.load(f)
    h = TINY.n_embd
    assert len(shapes) == 2 + 12 * TINY.n_layer == len(release_order(TINY.n_layer))
    assert shapes[:4] == [[TINY.n_ctx, h], [TINY.n_vocab, h], [1, h, 3 * h], [3 * h]]
    assert shapes[8] == [1, h, 4 * h]
    assert foreign_config(release_dir) == PRETRAINED.replace(n_head=1)  # heads: the release's n_embd / 64
    assert foreign_config(os.path.dirname(release_dir)) is None
    assert not [n for n in os.listdir(os.path.dirname(release_dir)) if n.endswith(".tmp")]


def test_release_into_ours_and_back_bit_for_bit(release_dir, tmp_path):
    encoder = GPTEncoder(TINY)  # with the special rows fine-tuning adds
    fmt, report = read_with_format(release_dir, encoder)
    assert fmt == "gpt_release"
    assert report.missing == [v.path for v in encoder.fine_tuning_weights] and not report.unused
    again = str(tmp_path / "again")
    convert(release_dir, again, "release", PRETRAINED)
    files = release_files(again)
    assert files.pop("gpt_config.json")
    assert files == release_files(release_dir)


def test_release_carries_the_special_rows_beside(tmp_path):
    model = random_model(heads=True)
    ours.save_weights(model, str(tmp_path / "ours"))
    convert(str(tmp_path / "ours"), str(tmp_path / "release"), "release", TINY)
    assert os.path.isfile(tmp_path / "release" / release.SPECIALS_FILE)
    convert(str(tmp_path / "release"), str(tmp_path / "back"), "ours", TINY)
    expected = {p: v for p, v in weights_of(model).items() if not p.startswith("choice_scorer/")}
    assert_same_weights(ours.read_weights(str(tmp_path / "back")), expected)  # no place for the classifier


def test_ours_to_hugging_face_and_back_bit_for_bit(tmp_path):
    model = random_model(heads=True)
    ours.save_weights(model, str(tmp_path / "ours"))
    report = convert(str(tmp_path / "ours"), str(tmp_path / "hf"), "hf", TINY)
    assert not report.missing and not report.unused
    assert gpt_format(str(tmp_path / "hf")) == "gpt_hf"
    assert huggingface.read_config(str(tmp_path / "hf")) == TINY
    convert(str(tmp_path / "hf"), str(tmp_path / "back"), "ours", TINY)
    assert_same_weights(ours.read_weights(str(tmp_path / "back")), weights_of(model))


def test_release_to_hugging_face_and_back_bit_for_bit(release_dir, tmp_path):
    convert(release_dir, str(tmp_path / "hf"), "hf", PRETRAINED)
    convert(str(tmp_path / "hf"), str(tmp_path / "release"), "release", PRETRAINED)
    files = release_files(str(tmp_path / "release"))
    files.pop("gpt_config.json")
    assert files == release_files(release_dir)


def test_rewriting_a_release_replaces_every_file(release_dir, tmp_path):
    path = str(tmp_path / "release")
    tensors = from_ours(weights_of(random_model(heads=False)), TINY.n_layer)
    release.write_dir(tensors, path)
    assert os.path.isfile(os.path.join(path, release.SPECIALS_FILE))
    pretrained = {k: v for k, v in tensors.items() if k != "model/specials"}
    release.write_dir(pretrained, path)
    assert not os.path.exists(os.path.join(path, release.SPECIALS_FILE))
    read = release.read_tensors(path)
    assert sorted(read) == sorted(pretrained) and all(np.array_equal(read[k], pretrained[k]) for k in read)
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def test_a_short_shard_is_named(release_dir, tmp_path):
    path = str(tmp_path / "release")
    convert(release_dir, path, "release", PRETRAINED)
    np.save(os.path.join(path, "params_9.npy"), np.load(os.path.join(path, "params_9.npy"))[:-1])
    with pytest.raises(ValueError, match="shards hold .* values, params_shapes.json says"):
        release.read_tensors(path)


def test_a_release_of_another_size_is_refused_by_shape(release_dir):
    encoder = GPTEncoder(TINY.replace(n_vocab=TINY.n_vocab + 1))
    expected = r"word_embeddings/embeddings: checkpoint has shape \[97, 32\], model expects \[98, 32\] \(n_vo"
    with pytest.raises(CheckpointMismatchError, match=expected):
        read_with_format(release_dir, encoder)


def test_unknown_output_format(tmp_path, release_dir):
    with pytest.raises(ValueError, match="not one of"):
        convert(release_dir, str(tmp_path / "x"), "tf1", PRETRAINED)


def test_our_weights_load_through_the_shared_loader(tmp_path):
    """Our own layout needs no registration: `load_into` reads it by variable path."""
    from checkpoints.loader import load_into
    model = random_model(heads=False)
    ours.save_weights(model, str(tmp_path))
    encoder = GPTEncoder(TINY)
    report = load_into(encoder, str(tmp_path), strict=True)
    assert report.format == "ours"
    assert_same_weights(weights_of(encoder), weights_of(model))
