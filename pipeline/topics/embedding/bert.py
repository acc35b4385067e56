"""A BERT encoder's forward pass in plain torch, read from a model folder's ``model.safetensors`` and
tokenized by the ``tokenizers`` library from its ``tokenizer.json``.

This is what ``transformers``' ``BertModel`` computes for inference (absolute positions, GELU,
post-layer-norm, no dropout), without importing ``transformers``: that import and its model set-up
are seconds of a small run's wait, and a weekly update embeds a hundred papers. ``load`` returns
None for a folder this does not cover (another architecture or setting, no ``tokenizer.json``), and
the embedder then runs the model through ``transformers``. The vectors equal ``transformers``' and
sentence-transformers' (tested to 1e-5).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

FF_ROWS = 512  # token rows per feed-forward chunk (see Bert._feed_forward)
CHARS_PER_TOKEN = 8  # a text is cut to this many characters a token before it is tokenised (Bert.tokenize)
SUPPORTED = {"model_type": "bert", "position_embedding_type": "absolute", "hidden_act": "gelu"}


@dataclass
class Bert:
    weights: dict[str, torch.Tensor]
    heads: int
    layers: int
    eps: float
    hidden_size: int
    tokenizer: object  # tokenizers.Tokenizer
    cuts: bool = True  # texts may be cut before tokenising (BERT's pre-tokenizer; see tokenize)

    def tokenize(self, texts: list[str], max_tokens: int, device: str) -> dict[str, torch.Tensor]:
        """Token ids, token types and attention mask, cut to ``max_tokens`` and padded to the longest.

        With BERT's pre-tokenizer (words split at whitespace and punctuation), a text longer than
        ``max_tokens * CHARS_PER_TOKEN`` characters is first cut at its last space before that
        length: the words kept give the tokens they give in the whole text, and the first 128
        tokens of 2025 abstracts end within 830 characters (3,000 papers of the daily corpus). A
        cut text that does not fill ``max_tokens`` is tokenised again whole, so the tokens are
        always the whole text's (tested). Tokenising takes a quarter less time (1.31 x on 2 cores),
        which is what a GPU waits for (1.12 x the papers a second on an H200)."""
        import numpy as np
        import torch

        self.tokenizer.enable_truncation(max_length=max_tokens)
        pad = self.tokenizer.token_to_id("[PAD]")
        pad = 0 if pad is None else pad
        self.tokenizer.enable_padding(pad_id=pad, pad_token="[PAD]")
        limit = max_tokens * CHARS_PER_TOKEN if self.cuts else None
        cut = [_cut(text, limit) for text in texts] if limit else list(texts)
        encodings = self.tokenizer.encode_batch(cut)
        whole = [i for i, encoding in enumerate(encodings)
                 if cut[i] is not texts[i] and sum(encoding.attention_mask) < max_tokens]
        for i, encoding in zip(whole, self.tokenizer.encode_batch([texts[i] for i in whole]) if whole else []):
            encodings[i] = encoding  # padded to its own batch's longest: padded again below
        width = max((len(e.ids) for e in encodings), default=0)

        def as_tensor(name: str, fill: int) -> torch.Tensor:
            values = [getattr(e, name) for e in encodings]
            if all(len(v) == width for v in values):
                array = np.array(values, dtype=np.int64).reshape(len(values), width)
            else:
                array = np.full((len(values), width), fill, dtype=np.int64)
                for row, value in zip(array, values):
                    row[: len(value)] = value
            return torch.from_numpy(array).to(device)

        return {"input_ids": as_tensor("ids", pad), "token_type_ids": as_tensor("type_ids", 0),
                "attention_mask": as_tensor("attention_mask", 0)}

    def __call__(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor,
                 attention_mask: torch.Tensor) -> torch.Tensor:
        """The last hidden state, (batch, tokens, hidden)."""
        import torch
        from torch.nn import functional as F

        w = self.weights
        norm = lambda x, name: F.layer_norm(x, (self.hidden_size,), w[f"{name}.weight"], w[f"{name}.bias"], self.eps)  # noqa: E731
        dense = lambda x, name: F.linear(x, w[f"{name}.weight"], w[f"{name}.bias"])  # noqa: E731
        batch, length = input_ids.shape
        positions = torch.arange(length, device=input_ids.device)
        x = (w["embeddings.word_embeddings.weight"][input_ids] + w["embeddings.position_embeddings.weight"][positions]
             + w["embeddings.token_type_embeddings.weight"][token_type_ids])
        x = norm(x, "embeddings.LayerNorm")
        keep = attention_mask.bool()[:, None, None, :]  # padding is never attended to
        split = lambda t: t.view(batch, length, self.heads, -1).transpose(1, 2)  # noqa: E731
        for k in range(self.layers):
            at = f"encoder.layer.{k}"
            q, kk, v = (split(dense(x, f"{at}.attention.self.{p}")) for p in ("query", "key", "value"))
            context = F.scaled_dot_product_attention(q, kk, v, attn_mask=keep)
            context = context.transpose(1, 2).reshape(batch, length, self.hidden_size)
            x = norm(x + dense(context, f"{at}.attention.output.dense"), f"{at}.attention.output.LayerNorm")
            x = norm(x + self._feed_forward(x.view(batch * length, -1), at).view(batch, length, -1),
                     f"{at}.output.LayerNorm")
        return x

    def _feed_forward(self, x: torch.Tensor, at: str) -> torch.Tensor:
        """The layer's feed-forward block on the token rows ``x``, ``FF_ROWS`` rows at a time: the
        intermediate activations (four times the hidden size) of a chunk stay in the CPU's cache
        between the two matrix products and GELU, where those of a whole batch went through memory
        (a quarter less time for the block on 2 cores; the same numbers). On a GPU, and in bfloat16
        under autocast (whose products are fast enough that chunks only add overhead: whole batches
        embedded 5 % more papers a second), in one go."""
        import torch
        from torch.nn import functional as F

        w = self.weights
        w1, b1 = w[f"{at}.intermediate.dense.weight"], w[f"{at}.intermediate.dense.bias"]
        w2, b2 = w[f"{at}.output.dense.weight"], w[f"{at}.output.dense.bias"]
        if x.shape[0] <= FF_ROWS or x.device.type != "cpu" or torch.is_autocast_enabled("cpu"):
            return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)
        out = torch.empty((x.shape[0], w2.shape[0]), dtype=x.dtype, device=x.device)
        for start in range(0, x.shape[0], FF_ROWS):
            rows = slice(start, start + FF_ROWS)
            out[rows] = F.linear(F.gelu(F.linear(x[rows], w1, b1)), w2, b2)
        return out


def _cut(text: str, limit: int) -> str:
    """``text`` up to its last space before ``limit`` characters; itself when shorter or spaceless."""
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit)
    return text[:space] if space > 0 else text


def load(folder: Path, device: str) -> Bert | None:
    """The encoder of ``folder`` on ``device``, or None when this module does not cover it."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    settings = {"position_embedding_type": "absolute", "hidden_act": "gelu", **config}
    if any(settings.get(key) != value for key, value in SUPPORTED.items()) or config.get("is_decoder"):
        return None
    if not (folder / "model.safetensors").exists() or not (folder / "tokenizer.json").exists():
        return None
    from safetensors.torch import load_file
    from tokenizers import Tokenizer

    weights = {name.removeprefix("bert."): tensor for name, tensor in load_file(folder / "model.safetensors", device=device).items()}
    needed = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
              "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
              f"encoder.layer.{config['num_hidden_layers'] - 1}.output.LayerNorm.bias"]
    if any(name not in weights for name in needed):
        return None
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return Bert(weights, int(config["num_attention_heads"]), int(config["num_hidden_layers"]),
                float(config.get("layer_norm_eps", 1e-12)), int(config["hidden_size"]), tokenizer,
                cuts=type(tokenizer.pre_tokenizer).__name__ == "BertPreTokenizer")
