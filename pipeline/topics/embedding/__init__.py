"""Embedding: each paper's vector, once in its life.

``embed`` (the pluggable embedder, ``make_embedder``, and ``EmbeddingCache``, vectors by text hash),
``bert`` (the model's forward pass in plain torch, read from its safetensors), ``hardware`` (the
device and precision it runs at), ``distributed`` (embedding and placement on a Dask cluster the user
already runs). Nothing here knows about themes.
"""
