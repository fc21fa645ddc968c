"""The CPU measurements behind the training lesson's numbers, and one entry point to run them.

Each module measures one thing with PyTorch on CPU (small random-weight models built with
``transformers``) and stores what it found, so the tests can hold the engine
(``llmcourse.training``, ``llmcourse.finetune``) against it::

    python -m measurements                       # lists what can be measured
    python -m measurements <what> [args...]      # measures it and rewrites its stored file

The files the package itself reads at run time ship inside it (``llmcourse/data/``); the
rest stay here, beside the script that wrote them. Not part of the installed package.
"""
