"""Write docs/model-types.md: every model type transformers registers for causal language
modelling, and what the course does with it.

    python tools/model_types.py            # rewrite docs/model-types.md
    python tools/model_types.py --check    # exit 1 if the page is not what this writes

For each type, at its config class's defaults: whether transformers builds it (on the meta
device), and whether the engine counts it exactly (total parameters and every tensor's name
and shape, as tests/test_exact_vs_transformers.py checks) or refuses it in one line (and
why); for a supported type, the real published configs its test file checks it on and
where they were read (the docstring of tests/families/<type>.py). A different number is
never an outcome: the test of the same name fails on one.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "model-types.md"
sys.path.insert(0, str(ROOT / "tests"))


def causal_lm_types():
    """transformers' causal-LM types and the course's multimodal wrapper types."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    import llmcourse as lc
    return sorted(set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES) | set(lc.families.WRAPPERS))


def at_defaults(mt):
    """(built, outcome, detail): transformers' build at the class defaults and the engine's
    answer: "exact", "refused" (its one line) or "DIFFERENT" (never expected)."""
    import transformers
    import transformers_ref
    import llmcourse as lc
    try:
        d = transformers.AutoConfig.for_model(mt).to_dict()
    except Exception as e:   # the config class itself refuses its defaults
        d, built, model = {"model_type": mt}, f"no ({type(e).__name__})", None
    else:
        try:
            model = transformers_ref.model_of(d)
        except Exception as e:   # the modules refuse the defaults
            built, model = f"no ({type(e).__name__})", None
        else:
            built = f"{sum(p.numel() for p in model.parameters()):,}"
    try:
        cfg = lc.from_hf_config(d)
    except ValueError as e:
        return built, "refused", str(e)
    if model is None:
        return built, "counted", "transformers cannot build the defaults; see the real configs"
    try:
        transformers_ref.counts_as_built(d, row=_row(mt))
    except AssertionError as e:
        return built, "DIFFERENT", " ".join(str(e).split())[:160]
    return built, "exact", f"{lc.param_count(cfg).total:,}"


def _row(mt):
    from families import ROWS
    return ROWS.get(mt)


def sources(mt):
    """The real configs a type's test file checks, and its docstring (their sources)."""
    path = ROOT / "tests" / "families" / f"{mt}.py"
    if not path.exists():
        return (), ""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    row = _row(mt)
    return (row.real if row else ()), " ".join(doc.split())


def page():
    import llmcourse as lc
    warnings.filterwarnings("ignore")
    import transformers
    transformers.logging.set_verbosity_error()
    rows, tally = [], {}
    for mt in causal_lm_types():
        built, outcome, detail = at_defaults(mt)
        tally[outcome] = tally.get(outcome, 0) + 1
        real, doc = sources(mt)
        try:   # the type its config class writes (gpt-sw3's is GPT2Config: "gpt2")
            written = transformers.AutoConfig.for_model(mt).model_type
        except Exception:
            written = mt
        status = ("supported" if mt in lc.SUPPORTED_MODEL_TYPES else
                  "not a decoder" if mt in lc.families.NOT_DECODERS else
                  f"supported as `{written}` (its config class writes that type)"
                  if written in lc.SUPPORTED_MODEL_TYPES else "not supported")
        configs = ", ".join(f"`{r}`" for r in real) or "-"
        rows.append(f"| `{mt}` | {status} | {built} | {outcome}: {detail.replace('|', '/')} "
                    f"| {configs} | {doc.replace('|', '/') or '-'} |")
    head = (
        "# Model types: what the course sizes\n\n"
        "Every model type transformers "
        f"{transformers.__version__} registers for causal language modelling (and the "
        "course's multimodal wrappers), at its config class's defaults: what transformers "
        "builds on the meta device, and the engine's answer. *exact*: the same total and "
        "every tensor's name and shape (`tests/test_exact_vs_transformers.py`); *refused*: "
        "a one-line `ValueError` saying why. A different number is never an answer. Real "
        "published configs each supported type is also checked on, with where they were "
        "read, come from its test file (`tests/families/<type>.py`).\n\n"
        "Written by `python tools/model_types.py`; `--check` fails when it is out of date.\n\n"
        f"Of {sum(tally.values())} types: " + ", ".join(f"{n} {k}" for k, n in
                                                          sorted(tally.items())) + ".\n\n"
        "| type | status | transformers builds (parameters) | the engine at the defaults "
        "| real configs checked | their sources |\n|---|---|---|---|---|---|\n")
    return head + "\n".join(rows) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    text = page()
    if args.check:
        same = PAGE.exists() and PAGE.read_text(encoding="utf-8") == text
        print("docs/model-types.md is " + ("up to date" if same else "OUT OF DATE"))
        return 0 if same else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
