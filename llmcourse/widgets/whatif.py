"""widgets for lesson topic: whatif."""

__all__ = []
