"""Embedding and placement on a Dask cluster (a local one with two worker processes) give what the
local path gives."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline import clean, config, ingest, topics
from pipeline.io import read_table
from pipeline.schemas import DocTopics
from pipeline.topics.embedding.distributed import Cluster, ClusterEmbedder
from pipeline.topics.embedding.embed import TransformerEmbedder
from pipeline.topics.clustering.placement import nearest

distributed = pytest.importorskip("distributed", reason="the cluster extra is part of the dev install")


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_workers_embed_the_same_vectors(scheduler):
    texts = [f"Paper {i}: expert parallelism for MoE serving, take {i}. " + "All-to-all routing. " * (i % 7)
             for i in range(120)]
    local = TransformerEmbedder(max_tokens=64).encode(texts)
    with Cluster(scheduler) as cluster:
        remote = ClusterEmbedder(TransformerEmbedder(max_tokens=64), cluster, partition=25).encode(texts)
        assert len(cluster.client.scheduler_info()["workers"]) == 2
    np.testing.assert_allclose(remote, local, atol=1e-5)


def test_workers_place_papers_as_the_local_path_does(scheduler):
    rng = np.random.default_rng(0)
    papers = rng.normal(size=(1000, 16)).astype(np.float32)
    papers /= np.linalg.norm(papers, axis=1, keepdims=True)
    centroids, ids = papers[:7], np.array([3, 5, 8, 13, 21, 34, 55])
    with Cluster(scheduler) as cluster:
        topic, similarity = cluster.nearest(papers, centroids, ids, partition=150)
    expected_topic, expected_similarity = nearest(papers, centroids, ids)
    assert topic.tolist() == expected_topic.tolist()
    np.testing.assert_allclose(similarity, expected_similarity, rtol=1e-6)


def test_a_sampled_fit_on_the_cluster_gives_the_local_themes(project, tmp_path, hash_embedder, scheduler):
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    sampled = dataclasses.replace(cfg, topics=dataclasses.replace(cfg.topics, fit_sample_size=60))
    topics.run(sampled, embedder=hash_embedder)
    local = read_table(cfg.paths.doc_topics, DocTopics).set_index("paper_id")["topic"]

    import shutil

    other = tmp_path / "other"
    shutil.copytree(project / "data" / "processed", other / "data" / "processed")
    remote_cfg = config.load(other)
    remote_cfg = dataclasses.replace(remote_cfg, topics=dataclasses.replace(
        remote_cfg.topics, fit_sample_size=60, cluster=scheduler))
    result = topics.run(remote_cfg, embedder=hash_embedder)
    remote = read_table(remote_cfg.paths.doc_topics, DocTopics).set_index("paper_id")["topic"]
    assert result.counts["embedded now"] == len(local)  # embedded afresh, by the workers
    assert remote.to_dict() == local.to_dict()


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path):
    from pipeline.topics.embedding.distributed import ClusterError

    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        Cluster("tcp://127.0.0.1:9", timeout="1s").client  # noqa: B018 (the default waits 20 s)


def test_a_worker_with_another_model_refuses_to_embed(hash_embedder):
    from pipeline.topics.embedding.distributed import ClusterError, encode_on_worker

    assert encode_on_worker(hash_embedder, ["a text"], hash_embedder.identity).shape == (1, 64)
    with pytest.raises(ClusterError, match="is not the client's"):
        encode_on_worker(hash_embedder, ["a text"], "all-MiniLM-L6-v2-0123456789ab-max128")
