"""widgets for lesson topic: moe."""

__all__ = []
