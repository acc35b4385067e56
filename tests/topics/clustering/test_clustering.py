"""The clustering components: sizes for a corpus, UMAP's small-data path, numba's cache, cuML on a
GPU, the Leiden graph's layouts."""

from __future__ import annotations

import dataclasses
import importlib.machinery

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics.clustering.components import LAYOUTS, layout_seeds, scaled, umap_class
from pipeline.topics.clustering.model import ThemeModel
from tests.topics.three_themes import corpus

CFG = TopicsConfig()


def test_sizes_scale_with_the_corpus():
    small, year = scaled(100, CFG), scaled(40_000, CFG)
    assert scaled(2000, CFG).min_cluster_size == 10 and scaled(8000, CFG).min_cluster_size == 20
    assert small.min_cluster_size == 5 and year.min_cluster_size > small.min_cluster_size
    assert 5 <= small.n_neighbors < year.n_neighbors <= 30
    assert scaled(4000, dataclasses.replace(CFG, min_cluster_size=7)).min_cluster_size == 7


@pytest.mark.filterwarnings("ignore:n_jobs value 1 overridden")  # umap itself, the yardstick, warns
def test_small_data_umap_builds_the_same_neighbour_graph_as_umap_itself():
    from umap import UMAP

    rng = np.random.default_rng(3)
    points = rng.normal(size=(300, 16)).astype(np.float32)
    kwargs = dict(n_neighbors=10, n_components=2, min_dist=0.0, random_state=7, metric="euclidean")
    ours = umap_class()(**kwargs)
    layout = ours.fit_transform(points)
    reference = UMAP(**kwargs).fit(points)
    assert ours.precomputed_ and ours.metric == "euclidean"
    assert abs(ours.graph_ - reference.graph_).max() < 1e-4
    assert np.array_equal(layout, umap_class()(**kwargs).fit_transform(points))
    with pytest.raises(NotImplementedError, match="only the papers it was fitted on"):
        ours.transform(points[:5])


def test_numba_caching_never_shares_code_between_a_serial_and_a_parallel_twin():
    from umap import layouts

    umap_class()
    serial = layouts._nb_optimize_layout_euclidean_single_epoch
    parallel = layouts._nb_optimize_layout_euclidean_single_epoch_parallel
    assert serial.py_func is parallel.py_func and parallel.targetoptions.get("parallel")
    assert type(parallel._cache).__name__ == "NullCache"


@pytest.fixture
def stand_in_cuml(monkeypatch):
    """A ``cuml`` package whose UMAP and HDBSCAN record how they were built and run umap-learn's and
    hdbscan's: it checks which classes the model picks and what it passes them (cuML's keyword
    names), not cuML itself, which needs a CUDA GPU this machine lacks."""
    import sys
    import types

    import hdbscan
    import umap

    built: list[tuple[str, dict]] = []

    class StandIn:
        cpu: type

        def __init__(self, *, output_type=None, **kwargs):
            built.append((type(self).__name__, {"output_type": output_type, **kwargs}))
            self._cpu = self.cpu(**kwargs)

        def __getattr__(self, name):  # fit, fit_transform, labels_, condensed_tree_: the CPU library's
            return getattr(self.__dict__["_cpu"], name)

    UMAP = type("UMAP", (StandIn,), {"cpu": umap.UMAP})
    HDBSCAN = type("HDBSCAN", (StandIn,), {"cpu": hdbscan.HDBSCAN})

    package = types.ModuleType("cuml")
    package.__spec__ = importlib.machinery.ModuleSpec("cuml", None)
    modules = {"cuml": package, "cuml.manifold": types.ModuleType("cuml.manifold"),
               "cuml.cluster": types.ModuleType("cuml.cluster"), "cuml.cluster.hdbscan": types.ModuleType("cuml.cluster.hdbscan")}
    modules["cuml.manifold"].UMAP = UMAP
    modules["cuml.cluster.hdbscan"].HDBSCAN = HDBSCAN
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return built


@pytest.mark.filterwarnings("ignore:n_jobs value 1 overridden")  # umap itself, the yardstick, warns
@pytest.mark.parametrize("clustering", ["leiden", "hdbscan"])
def test_with_cuml_and_a_gpu_umap_and_hdbscan_are_cumls(stand_in_cuml, monkeypatch, clustering):
    from pipeline.topics.clustering import components as model_module

    monkeypatch.setattr(model_module, "cuda_visible", lambda: True)
    docs, vectors, truth = corpus()
    fitted = ThemeModel.from_config(CFG).set_params(clustering=clustering).fit(docs, vectors)
    names = sorted(name for name, _ in stand_in_cuml)
    assert names == (["UMAP"] * LAYOUTS if clustering == "leiden" else ["HDBSCAN", "UMAP"])
    assert all(kwargs["output_type"] == "numpy" and "core_dist_n_jobs" not in kwargs for _, kwargs in stand_in_cuml)
    umap_kwargs = next(kwargs for name, kwargs in stand_in_cuml if name == "UMAP")
    assert umap_kwargs["random_state"] == CFG.seed and umap_kwargs["n_components"] == CFG.n_components
    assert len(fitted.topic_ids_) == 3 and all(len(set(truth[fitted.topics_ == t])) == 1 for t in fitted.topic_ids_)


def test_without_a_gpu_or_when_told_cpu_umap_and_hdbscan_stay_on_the_cpu(stand_in_cuml, monkeypatch):
    from pipeline.topics.clustering import components as model_module

    monkeypatch.setattr(model_module, "cuda_visible", lambda: False)  # cuML installed, no device: "auto" is the CPU
    docs, vectors, _ = corpus()
    ThemeModel.from_config(CFG).set_params(clustering="hdbscan").fit(docs, vectors)
    monkeypatch.setattr(model_module, "cuda_visible", lambda: True)
    ThemeModel.from_config(CFG).set_params(clustering="hdbscan", clustering_device="cpu").fit(docs, vectors)
    assert stand_in_cuml == []
    assert model_module.on_gpu("cuda") and not model_module.on_gpu("cpu")


def test_clustering_on_cuda_without_cuml_is_a_clear_error(monkeypatch):
    import importlib.util

    from pipeline.config import ConfigError
    from pipeline.topics.clustering.components import on_gpu

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "cuml" else real(name, *a))
    assert on_gpu("auto") is False
    with pytest.raises(RuntimeError, match="needs cuML"):
        on_gpu("cuda")
    with pytest.raises(ConfigError, match="clustering_device"):
        TopicsConfig(clustering_device="gpu")


def test_the_layouts_have_seeds_of_their_own_that_the_next_seed_does_not_share():
    from pipeline.topics.clustering.components import LAYOUTS

    seeds, after = layout_seeds(42), layout_seeds(43)
    assert LAYOUTS == 3 and seeds[0] == 42 and len(set(seeds)) == 3 and not set(seeds) & set(after)


def test_the_layouts_neighbour_graphs_are_averaged_into_the_graph():
    from pipeline.topics.clustering.graph import LeidenThemes, neighbour_graph

    class Fixed:  # a "layout" that returns given coordinates
        def __init__(self, coordinates):
            self.coordinates = coordinates

        def fit_transform(self, x):
            return self.coordinates

    _, vectors, _ = corpus(per_theme=10)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(len(vectors), 2)), rng.normal(size=(len(vectors), 2))
    fitted = LeidenThemes(n_neighbors=5, runs=1, layout=[Fixed(a), Fixed(b)]).fit(vectors)
    expected = neighbour_graph(vectors, 5) + (neighbour_graph(a, 5, "euclidean") + neighbour_graph(b, 5, "euclidean")) / 2
    np.testing.assert_allclose(fitted.graph_.toarray(), expected.toarray(), rtol=1e-6)


def test_a_cuml_that_cannot_be_imported_leaves_auto_on_the_cpu(monkeypatch):
    import importlib.util
    import sys

    from pipeline.topics.clustering import components as model_module

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",  # found on disk, but its import fails
                        lambda name, *a: importlib.machinery.ModuleSpec("cuml", None) if name == "cuml" else real(name, *a))
    monkeypatch.setitem(sys.modules, "cuml", None)
    monkeypatch.setattr(model_module, "cuda_visible", lambda: True)
    assert model_module.on_gpu("auto") is False and model_module.on_gpu("cuda") is True


def test_a_seeded_fit_shows_no_umap_thread_warning():
    """umap-learn warns that a seed sets n_jobs to 1 at every layout: our choice, no news to the user."""
    import warnings

    docs, vectors, _ = corpus()
    for clustering in ("leiden", "hdbscan"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ThemeModel.from_config(CFG).set_params(clustering=clustering).fit(docs, vectors)
        assert not [w for w in caught if "n_jobs" in str(w.message)], clustering


def test_the_first_run_after_installing_says_umap_is_being_compiled(monkeypatch, caplog, tmp_path):
    import importlib.util
    import logging
    import shutil
    from types import SimpleNamespace

    from pipeline.topics.clustering import components as clustering

    package = tmp_path / "umap"
    (package / "__pycache__").mkdir(parents=True)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: SimpleNamespace(origin=str(package / "__init__.py")))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "numba" / "site-packages" / "pynndescent").mkdir(parents=True)
    (tmp_path / "numba" / "site-packages" / "pynndescent" / "utils.f-12.py311.nbi").write_bytes(b"")
    assert not clustering.compiled_before()  # another package's cache says nothing of UMAP's
    (tmp_path / "home" / ".cache" / "numba" / "umap_1a2b").mkdir(parents=True)
    (tmp_path / "home" / ".cache" / "numba" / "umap_1a2b" / "layouts.f-9.py311.nbi").write_bytes(b"")
    assert clustering.compiled_before()  # where site-packages is not writable
    shutil.rmtree(tmp_path / "home")
    assert not clustering.compiled_before()
    (package / "__pycache__" / "umap_.nndescent-12.py311.nbi").write_bytes(b"")
    assert clustering.compiled_before()
    monkeypatch.undo()

    monkeypatch.setattr(clustering, "compiled_before", lambda: False)
    caplog.set_level(logging.INFO, logger="pipeline.topics.clustering.components")
    clustering.umap_class.cache_clear()
    try:
        clustering.umap_class()
    finally:
        clustering.umap_class.cache_clear()
    assert any("compiling UMAP's code once after installing" in r.getMessage() for r in caplog.records)


def test_a_large_corpus_is_laid_out_once_a_smaller_one_three_times():
    from pipeline.topics.clustering import components as clustering

    cfg = TopicsConfig()
    layouts = {n: clustering.leiden_model(n, scaled(n, cfg), n, cfg).layout for n in (4_000, 39_999, 40_000, 50_000)}
    assert [len(v) for v in layouts.values()] == [3, 3, 1, 1]
    assert layouts[50_000][0].random_state == cfg.seed  # the first of the three seeds
