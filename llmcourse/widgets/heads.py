"""widgets for lesson topic: heads."""

__all__ = []
