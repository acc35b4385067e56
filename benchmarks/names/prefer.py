"""Which name a reader prefers for a theme whose label only part of its papers write (issue #50, item 3).

For the themes of a reader's-pass sheet (``draw.py``) whose label fewer than half of their papers
write, three names are shown side by side, in an order shuffled per theme, over the same 8 papers
the sheet drew:

- **shown**: the name as the reports show it now (the label, and its next phrase where the label's
  support is under 0.25, ``report.data.shown_labels``);
- **complement**: the label and the phrase that covers most of the papers the label does not
  (share of the theme's papers that write the phrase's words and not the label's, times the
  phrase's distinctiveness, the share of the store's papers writing it that lie in the theme: a
  phrase of two words or an acronym at 0.15 or more, a single word at 0.25 or more; at least 8 % of
  the theme; no other form of the label's words), as the reports now choose it
  (``pipeline.topics.naming.complement.strongest``; offered here whatever it covers);
- **coverage**: the phrase of two or more words (or an acronym) that the most papers of the theme
  write, at a distinctiveness of 0.15 or more ("a label that covers more").

A reader who does not see the rules judges each name FIT / PART / MISLEAD (``guide.md``) and says
which they prefer.

    python benchmarks/names/prefer.py --field cs.CL --store /tmp/pt-bench-names-after2/cs.CL \
        --sheet /tmp/pt-bench-names-after2/cs.CL/sheet-after.json --out /tmp/pt-prefer
    python benchmarks/names/prefer.py --score --out /tmp/pt-prefer --fields cs.CL,cs.AI,cs.CV

Writes ``<out>/<field>/prefer.md`` (for the reader) and ``prefer.json`` (which option is which);
the reader fills ``<out>/<field>/prefer-verdicts.jsonl``; ``--score`` counts the verdicts per kind
of name, and for the rule "the complement where it covers ``--min-gain`` of the theme or more, else
the shown name", and copies the sheets' keys and verdicts (no paper text) into ``verdicts/``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
BELOW = 0.5  # themes whose label fewer than this share of their papers write
KINDS = ("shown", "complement", "coverage")


def acronym(phrase: str) -> bool:
    return any(len(w) >= 2 and sum(c.isupper() for c in w) >= 2 for w in phrase.split())


def alternatives(store: Path) -> dict[int, dict]:
    """Per theme whose label support is under ``BELOW``: its label, support, and the complement and
    coverage names."""
    import pandas as pd

    from pipeline.report.data import shown_labels
    from pipeline.topics.naming.candidates import candidates_of
    from pipeline.topics.naming.complement import strongest
    from pipeline.topics.naming.vocabulary import stop_words
    from pipeline.topics.naming.words import LabelCorpus, written_case

    processed = store / "data" / "processed"
    papers = pd.read_parquet(processed / "papers.parquet", columns=["paper_id", "title", "abstract"])
    docs = pd.read_parquet(processed / "doc_topics.parquet")
    info = pd.read_parquet(processed / "topic_info.parquet").set_index("topic")
    shown = shown_labels(info.assign(topic=info.index))
    table = papers.merge(docs[["paper_id", "topic"]], on="paper_id", how="left")
    texts = (table["title"] + ". " + table["abstract"]).tolist()
    corpus = LabelCorpus(texts, table["title"].tolist(), stop_words())
    index = corpus.doc_index
    out = {}
    for t, row in info.iterrows():
        if not row["label_support"] < BELOW:
            continue
        rows = np.flatnonzero(table["topic"].to_numpy() == t)
        sample = [texts[i] for i in rows[:400]]
        said = index.words(str(row["label"]).lower(), corpus.stop)
        candidates = candidates_of(rows, corpus)
        best, gain_of = strongest(str(row["label"]), rows, candidates, corpus, sample)  # the shipped rule's phrase
        wide = [c for c in candidates if (len(c.words) >= 2 or acronym(written_case(c.phrase, sample)))
                and c.precision >= 0.15 and c.words != said]
        cover = max(wide, key=lambda c: (c.support, c.phrase), default=None)
        out[int(t)] = {"label": str(row["label"]), "support": round(float(row["label_support"]), 3),
                       "shown": shown[int(t)],
                       "complement": f"{row['label']} · {written_case(best.phrase, sample)}" if best else None,
                       "complement_gain": round(gain_of, 3) if best else None,
                       "complement_precision": round(best.precision, 3) if best else None,
                       "coverage": written_case(cover.phrase, sample)[:1].upper() + written_case(cover.phrase, sample)[1:]
                       if cover else None}
    return out


def build(args: argparse.Namespace) -> None:
    units = json.loads(args.sheet.read_text())
    found = alternatives(args.store)
    folder = args.out / args.field
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"# Names of {args.field}: which name fits these papers", "",
             "For each group: read its 8 papers, then judge every name offered (see the guide).", ""]
    keys = []
    rng = random.Random(0)
    for u in units:
        if not u["unit"].startswith("theme:") or int(u["unit"].split(":")[1]) not in found:
            continue
        alt = found[int(u["unit"].split(":")[1])]
        names = {}
        for kind in KINDS:  # one option per distinct name
            if alt[kind] and alt[kind] not in names.values():
                names[kind] = alt[kind]
        options = list(names.items())
        rng.shuffle(options)
        letters = {chr(65 + i): kind for i, (kind, _) in enumerate(options)}
        keys.append({"unit": u["unit"], "support": alt["support"], "complement_gain": alt["complement_gain"],
                     "complement_precision": alt["complement_precision"], "options": letters,
                     "names": {chr(65 + i): name for i, (_, name) in enumerate(options)},
                     "papers": [p["id"] for p in u["papers"]]})
        lines += [f"## {u['unit']} ({u['size']} papers)", ""]
        lines += [f"- **{chr(65 + i)}**: \"{name}\"" for i, (_, name) in enumerate(options)] + [""]
        for i, p in enumerate(u["papers"], 1):
            lines.append(f"{i}. **{p['title']}** — {p['abstract']}…")
        lines.append("")
    (folder / "prefer.md").write_text("\n".join(lines))
    (folder / "prefer.json").write_text(json.dumps(keys, indent=1))
    print(f"{folder / 'prefer.md'}: {len(keys)} themes")


def score(args: argparse.Namespace) -> None:
    out = HERE / "verdicts"
    lines = ["| field | themes | name | FIT / PART / MISLEAD | preferred |", "|---|---:|---|---|---:|"]
    for field in args.fields.split(","):
        keys = json.loads((args.out / field / "prefer.json").read_text())
        said = {v["unit"]: v for v in (json.loads(line) for line in
                (args.out / field / "prefer-verdicts.jsonl").read_text().splitlines() if line.strip())}
        counts = {k: Counter() for k in (*KINDS, "gain")}
        liked = Counter()
        for key in keys:
            verdict = said[key["unit"]]
            by_kind = {kind: letter for letter, kind in key["options"].items()}
            for kind in KINDS:  # a kind that offered the same name as another is judged as that one
                letter = by_kind.get(kind) or next(x for x, n in key["names"].items()
                                                   if n == key["names"][by_kind["shown"]])
                counts[kind][verdict["verdicts"][letter]] += 1
            wide = key.get("complement_gain") is not None and key["complement_gain"] >= args.min_gain
            counts["gain"][verdict["verdicts"][by_kind.get("complement" if wide else "shown", by_kind["shown"])]] += 1
            for letter in verdict["prefer"] if isinstance(verdict["prefer"], list) else [verdict["prefer"]]:
                liked[key["options"][letter]] += 1
        for kind in (*KINDS, "gain"):
            c = counts[kind]
            name = f"complement where it covers {args.min_gain:.2f} or more, else shown" if kind == "gain" else kind
            lines.append(f"| {field} | {len(keys)} | {name} | {c['FIT']} / {c['PART']} / {c['MISLEAD']} | "
                         f"{liked[kind] if kind != 'gain' else ''} |")
        (out / f"{field}-prefer.jsonl").write_text("".join(
            json.dumps({**k, **{f: said[k["unit"]][f] for f in ("verdicts", "prefer", "better", "why") if f in said[k["unit"]]}})
            + "\n" for k in keys))
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--field", default="cs.CL")
    ap.add_argument("--fields", default="cs.CL,cs.AI,cs.CV")
    ap.add_argument("--store", type=Path, help="the field's project (draw.py made it)")
    ap.add_argument("--sheet", type=Path, help="the field's sheet-<tag>.json (draw.py)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/pt-prefer"))
    ap.add_argument("--score", action="store_true")
    ap.add_argument("--min-gain", type=float, default=0.18,
                    help="--score: also count the complement only where it covers this share of the theme beyond the label")
    args = ap.parse_args()
    score(args) if args.score else build(args)


if __name__ == "__main__":
    main()
