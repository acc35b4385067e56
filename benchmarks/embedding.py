"""Benchmark: embedding throughput of the plain-torch encoder, by precision, batch size, the
feed-forward block in chunks of token rows (``pipeline.topics.embedding.bert.FF_ROWS``, a CPU's concern) and
texts cut before tokenising (``bert.CHARS_PER_TOKEN``), on a CPU or a GPU.

One process, the model loaded once per precision, the same papers each time; every setting is
warmed up once, then the settings alternate ``--repeat`` times. Reported: medians, papers a second,
the ratio to the first setting, the largest difference to the first setting of the same precision,
the lowest cosine to the first setting's vectors; and the rate of tokenising alone (what a GPU waits
for), with and without the cut.

    python benchmarks/embedding.py [--papers 1000] [--precisions float32,bfloat16] [--rows 256,512,1024]
                                   [--batches 64,256] [--cut both] [--repeat 3] [--device cpu]

The papers are the 2025 daily corpus's (``benchmarks/topics.py``'s project in ``--work``). For a
machine without ``../shared`` (a lent GPU machine, which takes 64 MiB of files), ``--export DIR``
writes the sampled papers' texts and the model with its weights in float16 there (45 MB instead of
91 MB) and says how far float16 weights move the vectors; ``--from DIR`` then runs on that folder,
the weights turned back into float32 as they load.

bfloat16 is fast only on a GPU or a CPU that computes it natively (``pipeline.topics.embedding.hardware``).
Results: benchmarks/results/embedding.json, or ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "embedding.json"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def sampled_texts(work: Path, papers: int) -> list[str]:
    from pipeline.io import read_table
    from pipeline.schemas import Papers
    from pipeline.topics.embedding.embed import paper_texts
    from topics import prepare

    return paper_texts(read_table(prepare(work), Papers).sample(papers, random_state=1))


def export(folder: Path, texts: list[str]) -> None:
    """The texts and the model, its weights in float16, into ``folder``; prints how far the float16
    weights move the vectors (float32 arithmetic, the first 256 texts)."""
    import numpy as np
    from safetensors.torch import load_file, save_file

    from pipeline.topics.embedding.embed import TransformerEmbedder, minilm_path

    model = folder / "model"
    model.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(minilm_path() / name, model / name)
    weights = load_file(minilm_path() / "model.safetensors")
    save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, model / "model.safetensors")
    with gzip.open(folder / "texts.json.gz", "wt", encoding="utf-8") as fh:
        json.dump(texts, fh)
    reference = TransformerEmbedder(device="cpu", precision="float32").encode(texts[:256])
    halved = loaded(folder, "cpu", "float32", None).encode(texts[:256])
    cosine = (reference * halved).sum(axis=1)
    print(f"exported {len(texts)} texts and the model to {folder}; float16 weights against float32's: "
          f"cosine min {cosine.min():.6f}, median {np.median(cosine):.6f}")


def loaded(folder: Path | None, device: str, precision: str, batch: int | None):  # noqa: ANN201
    """An embedder of the installed model, or of an exported folder's (its weights back in float32)."""
    from pipeline.topics.embedding.embed import TransformerEmbedder

    embedder = TransformerEmbedder(folder / "model" if folder else None, device=device, precision=precision,
                                   batch_size=batch)
    model = embedder._load()
    if folder is not None:
        model.weights = {k: v.float() if v.is_floating_point() else v for k, v in model.weights.items()}
    return embedder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--precisions", default="float32", help="float32, bfloat16 or both, comma-separated")
    parser.add_argument("--rows", default="256,512,1024", help="feed-forward chunk sizes to compare with the whole batch (a CPU's)")
    parser.add_argument("--batches", default="", help="batch sizes to compare (empty: the device's default)")
    parser.add_argument("--cut", choices=["on", "both"], default="on", help="both: also every setting with texts tokenised whole")
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-topics"))
    parser.add_argument("--export", type=Path, help="write the texts and a float16 copy of the model here, and stop")
    parser.add_argument("--from", dest="source", type=Path, help="a folder written by --export")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.export:
        export(args.export, sampled_texts(args.work, args.papers))
        return
    import numpy as np

    from pipeline.topics.embedding import bert, hardware

    if args.source:
        with gzip.open(args.source / "texts.json.gz", "rt", encoding="utf-8") as fh:
            texts = json.load(fh)[: args.papers]
    else:
        texts = sampled_texts(args.work, args.papers)
    default_precision = hardware.resolve_precision("auto", args.device)
    batches = [int(b) for b in args.batches.split(",") if b] or [None]
    settings: dict[str, dict] = {}
    for precision in args.precisions.split(","):
        for batch in batches:
            for rows in ["whole batch", *[int(n) for n in args.rows.split(",") if n]]:
                for cut in ([True, False] if args.cut == "both" else [True]):
                    name = ", ".join([precision] + ([f"batch {batch}"] if batch else [])
                                     + ([f"{rows} rows"] if args.rows else []) + ([] if cut else ["texts whole"]))
                    settings[name] = {"precision": precision, "batch": batch, "rows": rows, "cut": cut}
    settings[f"defaults ({default_precision})"] = {"precision": "auto", "batch": None, "rows": "default", "cut": True}
    embedders = {}
    for spec in settings.values():
        key = (spec["precision"], spec["batch"])
        if key not in embedders:
            embedders[key] = loaded(args.source, args.device, spec["precision"], spec["batch"])
    device = next(iter(embedders.values())).device_
    chars_per_token, ff_rows = bert.CHARS_PER_TOKEN, bert.FF_ROWS

    def run(spec: dict) -> np.ndarray:
        bert.FF_ROWS = {"whole batch": 1 << 30, "default": ff_rows}.get(spec["rows"], spec["rows"])
        bert.CHARS_PER_TOKEN = chars_per_token if spec["cut"] else 1 << 30
        return embedders[spec["precision"], spec["batch"]].encode(texts)

    def sync() -> None:
        if device != "cpu":
            import torch

            torch.cuda.synchronize()

    for spec in settings.values():  # warm-up: each setting's shapes seen once
        embedders[spec["precision"], spec["batch"]].encode(texts[: min(len(texts), 2048)])
    tokenizer = next(iter(embedders.values()))._model
    seconds: dict[str, list[float]] = {name: [] for name in settings}
    tokenising: dict[str, list[float]] = {"texts cut": [], "texts whole": []}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeat):
        for name, spec in settings.items():
            sync()
            start = time.perf_counter()
            vectors[name] = run(spec)
            sync()
            seconds[name].append(time.perf_counter() - start)
            print(name, round(seconds[name][-1], 2), f"{len(texts) / seconds[name][-1]:.0f} papers/s", flush=True)
        for name in tokenising:
            bert.CHARS_PER_TOKEN = chars_per_token if name == "texts cut" else 1 << 30
            start = time.perf_counter()
            for at in range(0, len(texts), 256):
                tokenizer.tokenize(texts[at : at + 256], 128, "cpu")
            tokenising[name].append(time.perf_counter() - start)
    bert.CHARS_PER_TOKEN = chars_per_token
    first = next(iter(settings))
    base = statistics.median(seconds[first])
    same_first = {}
    for name, spec in settings.items():
        same_first.setdefault(embedders[spec["precision"], spec["batch"]].precision, name)
    result = {"papers": len(texts), "repeat": args.repeat, "device": device, "gpus": hardware.gpu_models(),
              "cpu_has_bf16": hardware.cpu_has_bf16(), "cpu_count": os.cpu_count(),
              "default_precision": default_precision, "baseline": first,
              "tokenising_papers_per_s": {name: round(len(texts) / statistics.median(s)) for name, s in tokenising.items()},
              "settings": {
        name: {"seconds_median": round(statistics.median(s), 3), "seconds_all": [round(x, 3) for x in s],
               "papers_per_s": round(len(texts) / statistics.median(s), 1),
               "ratio_to_baseline": round(statistics.median(s) / base, 3),
               "max_abs_diff_to_same_precision": float(np.abs(
                   vectors[name] - vectors[same_first[embedders[settings[name]["precision"], settings[name]["batch"]].precision]]).max()),
               "min_cosine_to_baseline": float((vectors[name] * vectors[first]).sum(axis=1).min())}
        for name, s in seconds.items()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
