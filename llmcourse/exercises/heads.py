"""exercises for lesson topic: heads."""

__all__ = []
