"""widgets for lesson topic: depth."""

__all__ = []
