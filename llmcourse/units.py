"""Formatting numbers the way the course prints them: exact, with the unit named.

``GB`` is 10**9 bytes and ``GiB`` is 2**30 bytes; the course says which one it uses.
"""

from __future__ import annotations

__all__ = ["human_count", "human_bytes", "count_of", "GB", "GiB", "MB", "MiB"]

GB, GiB, MB, MiB = 10**9, 2**30, 10**6, 2**20


def human_count(n, digits=2):
    """1234567890 -> '1.23B'; 5_000_000 -> '5.00M'; 999 -> '999'; past 10^15, powers
    of ten (a what-if with a billion layers): 2.18e+17."""
    if abs(n) >= 10**15:
        return f"{n:.{digits}e}"
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if abs(n) >= size:
            return f"{n / size:.{digits}f}{suffix}"
    return f"{n:,}"


def human_bytes(n, unit="GiB", digits=2):
    """Bytes in the named unit: ``human_bytes(16_060_522_496) == '14.96 GiB'``."""
    sizes = {"B": 1, "KiB": 2**10, "MiB": MiB, "GiB": GiB, "TiB": 2**40,
             "KB": 10**3, "MB": MB, "GB": GB, "TB": 10**12}
    if unit not in sizes:
        raise ValueError(f"unit: must be one of {', '.join(sizes)} (got {unit!r})")
    if unit == "B":
        return f"{n:,} B"
    return f"{n / sizes[unit]:,.{digits}f} {unit}"


def count_of(n, noun, plural=None):
    """'1 KV head', '8 KV heads', '1,024 layers': a count with its noun in the right number."""
    word = noun if n == 1 else (plural or noun + "s")
    return f"{n:,} {word}"
