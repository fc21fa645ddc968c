"""A family's behaviour is data in its entry, read the same way by every module.

How one family differs from another (its norms, blocks, biases, rotary, router, cache,
experts) is a field of its entry in llmcourse/families.py or of its Layout, so a new family
cannot silently inherit another's rules. Outside the entries (families.py, family_rules.py)
no module compares a ``model_type`` with a name, looks a rule up by it, or lists model
types: these tests read every module's syntax tree and fail on each such place.
"""

import ast
import pathlib

import llmcourse as lc

PACKAGE = pathlib.Path(lc.__file__).parent
# where the family entries and their rules live
ENTRY_FILES = {"families.py", "family_rules.py"}
TYPES = set(lc.SUPPORTED_MODEL_TYPES)


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "families" or rel.name in ENTRY_FILES and len(rel.parts) == 1:
            continue
        yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _names_type(node):
    """``x.model_type``, ``model_type``, ``x.get("model_type")``, ``x.family`` (the retired
    block-shape label)."""
    return (isinstance(node, ast.Attribute) and node.attr in ("model_type", "family")
            or isinstance(node, ast.Name) and node.id == "model_type"
            or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "model_type")


# zoo models whose name is also a model type (gpt2): a set of names is not a rule
NAMES = set(lc.list_models())


def _type_strings(node):
    return [e.value for e in getattr(node, "elts", []) + getattr(node, "keys", [])
            if isinstance(e, ast.Constant) and e.value in TYPES - NAMES]


def _named(node):
    """A family named in the code: a string, or a literal collection of them (comparing a
    config's type with a data record's, e.g. which measurements are of this type, names
    no family)."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            or isinstance(node, (ast.Tuple, ast.List, ast.Set)))


def test_no_module_compares_model_types():
    found = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            if any(map(_names_type, operands)) and any(map(_named, operands)):
                found.append(f"{rel}:{node.lineno}")
    assert not found, ("a model_type compared outside the family entries (make it a field of "
                       f"the entry or its Layout): {found}")


def test_no_module_looks_rules_up_by_model_type():
    """A table keyed by model_type outside the entries is a rule in the wrong place; the
    entry itself is the one lookup (family_of, ENTRIES[...])."""
    found = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and _names_type(node.slice) and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("ENTRIES", "WRAPPERS")):
                found.append(f"{rel}:{node.lineno}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "get" and node.args and _names_type(node.args[0])):
                found.append(f"{rel}:{node.lineno}")
    assert not found, f"a rule looked up by model_type outside the family entries: {found}"


def test_no_module_lists_model_types():
    """A tuple, list, set or dict of model-type names outside the entries; a config built
    as a dict with a "model_type" key (a baseline of another type) is not a list of rules."""
    found = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                continue
            if isinstance(node, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == "model_type" for k in node.keys):
                continue
            names = _type_strings(node)
            if names:
                found.append(f"{rel}:{node.lineno} {names}")
    assert not found, f"model types listed outside the family entries: {found}"


def test_the_tests_catch_a_planted_comparison():
    """The walk finds what it looks for (a planted line of each kind)."""
    planted = ast.parse("if cfg.model_type == 'llama':\n    pass\nx = RULES[cfg.model_type]\n"
                        "y = ('gemma2', 'gemma3_text')\n")
    kinds = [type(n).__name__ for n in ast.walk(planted)
             if isinstance(n, ast.Compare) and _names_type(n.left) and _named(n.comparators[0])
             or isinstance(n, ast.Subscript) and _names_type(n.slice)
             or isinstance(n, ast.Tuple) and _type_strings(n)]
    assert kinds == ["Compare", "Subscript", "Tuple"]


def test_types_that_are_not_decoders_are_refused_in_one_line():
    """An encoder, an encoder-decoder, a speech or music model transformers registers for
    causal language modelling: refused, saying what it is."""
    import pytest
    for mt, what in lc.families.NOT_DECODERS.items():
        with pytest.raises(ValueError) as e:
            lc.from_hf_config({"model_type": mt})
        assert str(e.value) == f"model_type: {mt} is {what}; the course sizes decoder LLMs"
    assert not set(lc.families.NOT_DECODERS) & TYPES
