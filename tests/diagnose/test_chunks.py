"""diagnosis.chunks: row-sized work a chunk at a time gives what the whole-array numpy call gives."""
import numpy as np

from nccl_forensics.diagnosis import chunks


def test_row_chunks_cover_every_row_once(monkeypatch):
    monkeypatch.setattr(chunks, "ROWS", 4)
    assert [(s.start, s.stop) for s in chunks.row_chunks(10)] == [(0, 4), (4, 8), (8, 12)]
    assert list(chunks.row_chunks(0)) == []


def test_bincount_is_numpys(monkeypatch):
    monkeypatch.setattr(chunks, "ROWS", 3)
    ids = np.array([2, 0, 2, 5, 2, 0, 1], dtype=np.int32)
    assert chunks.bincount(ids).tolist() == np.bincount(ids).tolist()
    assert chunks.bincount(ids, 8).tolist() == np.bincount(ids, minlength=8).tolist()
    assert chunks.bincount(np.array([], dtype=np.int32)).tolist() == []
