"""widgets for lesson topic: anatomy."""

__all__ = []
