"""Where and how precisely the embedding model runs: the device (a CUDA GPU when torch sees one), the
precision ("auto": bfloat16 where the hardware multiplies it natively, float32 elsewhere) and the
batch size for each, decided without importing torch where it can be."""

from __future__ import annotations

import contextlib
import re
from functools import cache
from pathlib import Path


PRECISIONS = ("auto", "float32", "bfloat16")


@cache
def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX-BF16 in ``/proc/cpuinfo``;
    False where that cannot be read). Elsewhere bfloat16 is emulated and slower than float32."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r"\b(avx512_bf16|amx_bf16)\b", info) is not None


# NVIDIA GPUs from Ampere on, which have bfloat16 units (their names as the driver writes them):
# A100, A10, A30, A40, H100, H200, GH200, B200, GB200, L4, L40, RTX A6000, RTX 6000 Ada, GeForce RTX 30xx-50xx
_BF16_GPU = re.compile(r"\b(A\d{1,3}|H\d{2,3}|GH\d{3}|B\d{2,3}|GB\d{3}|L\d{1,2}S?|RTX A\d{4}|RTX \d{4} Ada|"
                       r"RTX PRO|GeForce RTX [345]\d{3})\b", re.IGNORECASE)


def gpu_models() -> list[str]:
    """The NVIDIA GPUs' model names as the driver lists them (``/proc/driver/nvidia/gpus``), without
    importing torch; empty where there is no driver."""
    names = []
    for info in sorted(Path("/proc/driver/nvidia/gpus").glob("*/information")):
        with contextlib.suppress(OSError):
            found = re.search(r"^Model:\s*(.+)$", info.read_text(encoding="utf-8", errors="replace"), re.MULTILINE)
            names += [found.group(1).strip()] if found else []
    return names


def gpu_has_bf16() -> bool:
    """Whether the GPUs compute bfloat16 natively (Ampere and later: A100, H100, L4, RTX 30xx ...).
    A name not known to be one, or no name at all, counts as a GPU without: float32 is never slow."""
    names = gpu_models()
    return bool(names) and all(_BF16_GPU.search(name) for name in names)


def resolve_precision(precision: str, device: str) -> str:
    """``"auto"``: ``"bfloat16"`` where the papers are embedded on a GPU or a CPU that computes it
    natively, else ``"float32"``; decided without importing torch (a machine with an NVIDIA driver
    is taken to embed on its GPU). Anything else as given."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}")
    if precision != "auto":
        return precision
    gpu = device == "cuda" or (device == "auto" and Path("/proc/driver/nvidia/version").exists())
    return "bfloat16" if (gpu_has_bf16() if gpu else cpu_has_bf16()) else "float32"


GPU_BATCH = 256  # texts per batch on a GPU (an H200 in bfloat16: 12,200-13,700 papers/s, 9,700 at 64, 11,100 at 1,024)
CPU_BATCH = 64  # a CPU gains nothing past 64 and pads more


def pick_device(device: str) -> str:
    """``"auto"``: the first CUDA GPU when torch sees one, else the CPU; anything else as given."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
