"""Recall of the watched-theme matching on the 80 papers pool.py drew at random (no embedding, no keyword):
an unbiased, if small, check of the recall evaluate.py reports on the whole pool.

    python benchmarks/watched/random_recall.py
"""
import sys, json, tomllib
from pathlib import Path
import numpy as np, pandas as pd
sys.path.insert(0, str(Path(__file__).resolve().parents[1])); sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from pathlib import Path
from trends_stream import corpus_papers
from pipeline import config
from pipeline.report.watched import match
from pipeline.topics.embedding.embed import EmbeddingCache, make_embedder, paper_texts
from pool import BROAD
watch=tomllib.loads(Path('benchmarks/watched/csdc.toml').read_text())['report']['watch']
p=corpus_papers('csdc',Path('/tmp/pt-bench-trends')).reset_index(drop=True)
cfg=config.load(Path('/tmp/pt-bench-trends/stream-csdc')); e=make_embedder(cfg.topics); cache=EmbeddingCache(cfg.paths.embeddings,e.identity)
V,_=cache.embed(paper_texts(p),e)
text=p['title']+' '+p['abstract']
rng=np.random.default_rng(0)
for name,sent in watch.items():
    hits=np.flatnonzero(text.str.contains(BROAD[name],case=False,regex=True).to_numpy())
    rng.choice(hits,size=min(60,len(hits)),replace=False)
rand=set(rng.choice(len(p),size=80,replace=False).tolist())
S,_=cache.embed(list(watch.values()),e)
m=match(text,V,watch,S)
lab=pd.DataFrame([json.loads(l) for l in open('benchmarks/watched/labels_csdc.jsonl')]).set_index('id')
keys={"MoE serving":"moe_serving","Edge offloading":"edge_offloading","Federated learning":"federated_learning","Collective communication":"collective_communication"}
ids=set(p.loc[sorted(rand),'paper_id'])
pos=found=0
for name,k in keys.items():
    for r in rand:
        pid=p.at[r,'paper_id']
        if pid in lab.index and lab.at[pid,k]==1:
            pos+=1; found+=bool(m.on.at[r,name])
print('random papers', len(rand), 'labelled', len(ids & set(lab.index)), 'positives', pos, 'found', found)
