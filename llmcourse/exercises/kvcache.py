"""exercises for lesson topic: kvcache."""

__all__ = []
