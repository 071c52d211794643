"""read_samples / SamplesWriter on real files."""

import struct
import warnings

import numpy as np
import pytest

from channel_server import sample_blob
from fanout_client import (SamplesFormatError, SamplesReader, SamplesTruncatedWarning, SamplesWriter, encode,
                           read_samples, samples_files)


def write_records(path, blobs):
    path.write_bytes(b"".join(struct.pack("<Q", len(b)) + b for b in blobs))


def test_reads_every_record_of_a_file_in_order(tmp_path):
    path = tmp_path / "a.samples"
    write_records(path, [sample_blob(1, b) for b in range(5)])
    messages = list(read_samples(path))
    assert [m.batch_id for m in messages] == [0, 1, 2, 3, 4]
    assert all(m.epoch == 1 for m in messages)
    assert messages[3]["ids"].tolist() == [30, 31, 32, 33, 34]
    assert bytes(messages[3].blob) == sample_blob(1, 3)


def test_arrays_are_writable_views_of_the_mapped_file(tmp_path):
    path = tmp_path / "a.samples"
    # An odd-sized first record leaves the next one unaligned in the file: still correct, aligned arrays.
    blobs = [encode({"u": np.arange(3, dtype=np.uint8)}), encode({"ids": np.arange(4, dtype=np.int64)})]
    write_records(path, blobs)
    first, second = read_samples(path)
    assert first["u"].tolist() == [0, 1, 2] and second["ids"].tolist() == [0, 1, 2, 3]
    assert second["ids"].flags.aligned and second["ids"].flags.writeable
    assert first["u"].flags.writeable and not first["u"].flags.owndata  # a view of the mapping
    first["u"][0] = 7  # copy-on-write mapping: the file is untouched
    second["ids"][0] = 42
    again = list(read_samples(path))
    assert again[0]["u"].tolist() == [0, 1, 2] and again[1]["ids"].tolist() == [0, 1, 2, 3]


def test_directory_is_read_recursively_in_sorted_order_skipping_partial_files(tmp_path):
    write_records(tmp_path / "b.samples", [sample_blob(0, 2)])
    write_records(tmp_path / "a.samples", [sample_blob(0, 0), sample_blob(0, 1)])
    (tmp_path / "sub").mkdir()
    write_records(tmp_path / "sub" / "c.samples", [sample_blob(0, 3)])
    write_records(tmp_path / ".d.samples.partial", [sample_blob(0, 90)])
    write_records(tmp_path / ".e.samples", [sample_blob(0, 91)])
    write_records(tmp_path / "_f.samples", [sample_blob(0, 92)])
    (tmp_path / "_tmp").mkdir()
    write_records(tmp_path / "_tmp" / "g.samples", [sample_blob(0, 93)])
    write_records(tmp_path / "notes.txt", [sample_blob(0, 94)])
    (tmp_path / "empty.samples").write_bytes(b"")

    assert [p.relative_to(tmp_path).as_posix() for p in samples_files(tmp_path)] == [
        "a.samples", "b.samples", "empty.samples", "sub/c.samples"]
    assert [m.batch_id for m in read_samples(tmp_path)] == [0, 1, 2, 3]


def test_truncated_record_body_names_file_and_offset(tmp_path):
    path = tmp_path / "t.samples"
    good = sample_blob(0, 0)
    write_records(path, [good, sample_blob(0, 1)])
    path.write_bytes(path.read_bytes()[:-5])
    # The reader indexes every record before it yields one, so a damaged file fails before training starts.
    with pytest.raises(SamplesFormatError) as err:
        read_samples(path)
    offset = 8 + len(good)
    assert err.value.path == str(path) and err.value.offset == offset
    assert f"{path}: at byte offset {offset}: truncated record" in str(err.value)


def test_truncated_record_length_names_file_and_offset(tmp_path):
    path = tmp_path / "t.samples"
    good = sample_blob(0, 0)
    write_records(path, [good])
    path.write_bytes(path.read_bytes() + b"\x05\x00\x00")
    with pytest.raises(SamplesFormatError, match=f"at byte offset {8 + len(good)}: truncated record: 3 bytes left"):
        list(read_samples(path))


def test_not_strict_yields_the_whole_messages_before_a_cut_record_then_warns(tmp_path):
    path = tmp_path / "t.samples"
    blobs = [sample_blob(0, b) for b in range(3)]
    write_records(path, blobs)
    path.write_bytes(path.read_bytes()[:-5])  # the third record loses its last bytes
    cut_at = 2 * 8 + len(blobs[0]) + len(blobs[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        it = read_samples(path, strict=False)
        first, second = next(it), next(it)
        assert caught == []  # nothing reported while whole messages are still coming
        with pytest.raises(StopIteration):
            next(it)
    assert [first.batch_id, second.batch_id] == [0, 1]
    assert bytes(second.blob) == blobs[1] and second["ids"].tolist() == [10, 11, 12, 13, 14]
    [warning] = caught
    assert warning.category is SamplesTruncatedWarning
    assert (warning.message.path, warning.message.offset) == (str(path), cut_at)
    assert (f"{path}: at byte offset {cut_at}: truncated record: length says {len(blobs[2])} bytes"
            in str(warning.message))


def test_not_strict_reads_every_file_of_a_directory_and_names_each_cut_one(tmp_path):
    write_records(tmp_path / "a.samples", [sample_blob(0, 0), sample_blob(0, 2)])
    write_records(tmp_path / "b.samples", [sample_blob(0, 1)])
    (tmp_path / "b.samples").write_bytes((tmp_path / "b.samples").read_bytes() + b"\x05\x00\x00")  # length cut
    write_records(tmp_path / "c.samples", [sample_blob(0, 3)])
    (tmp_path / "c.samples").write_bytes((tmp_path / "c.samples").read_bytes()[:-1])  # the only record cut
    reader = SamplesReader(tmp_path, strict=False)
    assert [(e.path, e.offset) for e in reader.truncated] == [
        (str(tmp_path / "b.samples"), 8 + len(sample_blob(0, 1))), (str(tmp_path / "c.samples"), 0)]
    with pytest.warns(SamplesTruncatedWarning) as caught:
        assert [m.batch_id for m in reader] == [0, 1, 2]
    assert [w.message.path for w in caught] == [str(tmp_path / "b.samples"), str(tmp_path / "c.samples")]
    assert "3 bytes left, the record length needs 8" in str(caught[0].message)


def test_not_strict_truncation_as_an_error_comes_after_the_messages(tmp_path):
    path = tmp_path / "t.samples"
    write_records(path, [sample_blob(0, 0), sample_blob(0, 1)])
    path.write_bytes(path.read_bytes()[:-1])
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplesTruncatedWarning)  # a trainer that wants every batch
        with pytest.raises(SamplesTruncatedWarning, match="truncated record"):
            for msg in read_samples(path, strict=False):
                seen.append(msg.batch_id)
    assert seen == [0]


def test_not_strict_still_refuses_a_malformed_record(tmp_path):
    path = tmp_path / "m.samples"
    write_records(path, [sample_blob(0, 0), b"\x02\x00\x00\x00\x00\x00\x00\x00[]"])
    with pytest.raises(SamplesFormatError, match="malformed safetensors blob"):
        read_samples(path, strict=False)


def test_malformed_blob_in_a_file_names_file_and_offset(tmp_path):
    path = tmp_path / "m.samples"
    write_records(path, [sample_blob(0, 0), b"\x02\x00\x00\x00\x00\x00\x00\x00[]"])
    with pytest.raises(SamplesFormatError, match=r"m\.samples: at byte offset \d+: malformed safetensors blob"):
        list(read_samples(path))
    assert issubclass(SamplesFormatError, ValueError)


def test_missing_path_is_reported(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope"):
        list(read_samples(tmp_path / "nope"))


def test_writer_renames_only_when_complete(tmp_path):
    path = tmp_path / "out.samples"
    with SamplesWriter(path) as writer:
        writer.write(sample_blob(0, 0))
        writer.write(memoryview(sample_blob(0, 1)))
        assert not path.exists() and writer.temp_path.name == ".out.samples.partial"
        assert list(read_samples(tmp_path)) == []  # readers skip the partial file
    assert not writer.temp_path.exists()
    assert [m.batch_id for m in read_samples(path)] == [0, 1]
    with pytest.raises(FileExistsError, match="out.samples"):
        SamplesWriter(path)


def test_writer_aborts_on_error(tmp_path):
    with pytest.raises(RuntimeError):
        with SamplesWriter(tmp_path / "x.samples") as writer:
            writer.write(sample_blob(0, 0))
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
