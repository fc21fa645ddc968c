"""widgets for lesson topic: ffn."""

__all__ = []
