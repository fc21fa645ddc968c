"""exercises for lesson topic: whatif."""

__all__ = []
