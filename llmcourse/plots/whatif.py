"""plots for lesson topic: whatif."""

__all__ = []
