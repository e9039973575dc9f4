"""A table computed once is read back, from the same code and libraries only;
a cache that cannot be written or read never stops the table being computed."""

import os

import pytest

from utils import table_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BERT_GARDEN_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "source"
    source.mkdir()
    (source / "tables.py").write_text("TABLE = 1\n")
    table_cache._sources_digest.cache_clear()  # pylint: disable=protected-access
    yield tmp_path / "cache", source
    table_cache._sources_digest.cache_clear()  # pylint: disable=protected-access


def counting_table(folder, packages=()):
    calls = []

    @table_cache.disk_cached((str(folder),), packages)
    def squares():
        calls.append(1)
        return {"squares": [i * i for i in range(5)]}
    return squares, calls


def test_a_table_is_computed_once_then_read(cache):
    folder, source = cache
    squares, calls = counting_table(source)
    assert squares() == squares() == {"squares": [0, 1, 4, 9, 16]}
    assert len(calls) == 1
    assert len(os.listdir(folder)) == 1


def test_an_edited_source_or_another_package_version_computes_it_afresh(cache):
    folder, source = cache
    squares, calls = counting_table(source)
    first = squares()
    (source / "tables.py").write_text("TABLE = 2\n")
    table_cache._sources_digest.cache_clear()  # pylint: disable=protected-access
    assert squares() == first and len(calls) == 2
    assert len(os.listdir(folder)) == 1  # the older file removed
    with_pytest_version, _ = counting_table(source, packages=("pytest",))
    assert table_cache.table_path(squares, (str(source),), ()) != table_cache.table_path(
        with_pytest_version, (str(source),), ("pytest",))


def test_an_unreadable_file_is_computed_and_written_again(cache):
    folder, source = cache
    squares, calls = counting_table(source)
    squares()
    (path,) = folder.iterdir()
    path.write_bytes(b"not a pickle")
    assert squares() == {"squares": [0, 1, 4, 9, 16]} and len(calls) == 2
    assert squares() and len(calls) == 2


def test_a_cache_that_cannot_be_written_only_costs_the_computation(cache):
    folder, source = cache
    folder.write_text("a file where the folder would be")
    squares, calls = counting_table(source)
    assert squares() == squares() == {"squares": [0, 1, 4, 9, 16]}
    assert len(calls) == 2
    assert folder.read_text() == "a file where the folder would be"
