"""The what-if lab: edit any field of a real config and compare it with the original.

Pick a zoo model (or type a Hub id, or load, upload or paste a ``config.json``), change
its architecture fields
(Hugging Face names), and see parameters, memory by dtype, KV cache and FLOPs of
the original and the edited config side by side, with the layer shapes and a
figure. The edited config can be saved as a ``config.json`` that
:func:`llmcourse.from_hf_config` and transformers both read back.
"""

from __future__ import annotations

import html
import os
import time

from ..architectures import global_tensors, layer_groups
from ..compare import SUMMARY_KEYS, change_percent, config_diff, size_summary
from ..config import ConfigError, as_moe, config_from_json, from_hf_config
from ..limits import MAX_LIST
from ..counts import param_count
from ..families import family_of
from ..units import human_bytes, human_count
from ..zoo import list_models, load_model
from .base import Explorer, Row, dropdown, int_text, register, selection

__all__ = ["whatif_lab", "WhatIfLab", "CompareRow", "whatif_rows", "edited_config",
           "EDITABLE_FIELDS"]

SEQ_LENS = [2**k for k in range(9, 18)]      # 512 .. 131072 tokens
BATCHES = [1, 2, 4, 8, 16, 32, 64]

# every field the lab can edit, in the order the boxes appear; which of them a
# model shows depends on its architecture (see _fields_for)
EDITABLE_FIELDS = (
    "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
    "head_dim", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
    "v_head_dim", "intermediate_size", "vocab_size", "num_experts", "num_experts_per_tok",
    "moe_intermediate_size", "n_shared_experts", "first_k_dense_replace", "sliding_window",
    "tie_word_embeddings",
)
# fields where 0 in the box means null in config.json (none at all)
ZERO_MEANS_NONE = {
    "q_lora_rank": "0 = full-rank q_proj",
    "sliding_window": "0 = no window",
}
_MLA_FIELDS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
               "v_head_dim")


def _zero_means_none(cfg, field):
    """Whether 0 in ``field``'s box means null (none) for this model: not where its family
    refuses a null there (DeepSeek-V4 keeps a window in every layer; Gemma 4's config class
    refuses a null sliding_window)."""
    if field not in ZERO_MEANS_NONE:
        return False
    try:   # (no window: an explicit layer list then becomes all full attention)
        cfg.replace(**{field: None}, **({"layer_types": None} if field == "sliding_window" else {}))
    except ValueError:
        return False
    return True
_DENSE_TOP_K = 2  # the top-k offered when a dense model is given experts


class CompareRow(Row):
    """A summary :class:`Row` (the edited config's exact value) that also carries
    the original config's value, for the side-by-side table."""

    def __new__(cls, label, key, value, text, original=None, original_text=""):
        self = super().__new__(cls, label, key, value, text)
        self.original = original
        self.original_text = original_text
        return self


# --- pure parts -------------------------------------------------------------------

def _can_be_moe(cfg):
    """Whether ``lc.as_moe`` has a mixture-of-experts variant of this dense model."""
    if cfg.is_moe:
        return True
    try:
        as_moe(cfg, 2, 1)
    except ConfigError:
        return False
    return True


def _moe_field_of(cfg):
    """The config.json name of the routed-expert count (for a dense model: after as_moe)."""
    if cfg.is_moe:
        return cfg.moe_field
    return as_moe(cfg, 2, 1).moe_field


def _changes_count(cfg, field):
    """Whether ``field`` sizes anything in this model: one more changes its total (not so
    for intermediate_size where every layer is MoE, as in Qwen3-MoE)."""
    value = cfg.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    try:
        bumped = cfg.replace(**{field: value + 1})
    except ValueError:
        return False
    return param_count(bumped).total != param_count(cfg).total


def _intermediate_matters(cfg):
    """False when every layer is MoE and intermediate_size sizes nothing (Qwen3-MoE)."""
    return _changes_count(cfg, "intermediate_size")


def _fields_for(cfg):
    """The editable fields this model's architecture uses, in display order: not those
    transformers ignores for its family (GPT-2 and Pythia have no KV heads and no head_dim
    of their own, DeepSeek-V4 no KV-head count), so every edit the lab offers builds in
    transformers with the count the lab shows (tests/test_topic_whatif.py builds them)."""
    from .depth import engine_only_fields
    fields = ["hidden_size", "num_hidden_layers", "num_attention_heads"]
    if cfg.uses_mla:
        fields += list(_MLA_FIELDS)
    else:
        fields += ["num_key_value_heads", "head_dim"]
    if _intermediate_matters(cfg):
        fields.append("intermediate_size")
    fields.append("vocab_size")
    if _can_be_moe(cfg):
        fields += ["num_experts", "num_experts_per_tok"]
    if cfg.is_moe and _changes_count(cfg, "moe_intermediate_size"):
        fields.append("moe_intermediate_size")
    if cfg.uses_mla:
        fields += ["n_shared_experts", "first_k_dense_replace"]
    if "sliding_attention" in cfg.layer_types:
        fields.append("sliding_window")
    fields.append("tie_word_embeddings")
    skip = engine_only_fields(cfg)
    return [f for f in EDITABLE_FIELDS if f in fields and f not in skip]


def _field_value(cfg, field):
    """What a box shows for ``field`` of ``cfg`` (resolved; 0 when the model has none)."""
    if field == "num_experts":
        return cfg.num_experts
    if field == "num_experts_per_tok":
        return cfg.num_experts_per_tok if cfg.is_moe else _DENSE_TOP_K
    if field == "tie_word_embeddings":
        return bool(cfg.tie_word_embeddings)
    if field in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                 "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size"):
        return getattr(cfg, field)
    if field == "sliding_window" and "sliding_attention" not in cfg.layer_types:
        return 0
    return cfg.get(field, 0)


def _field_change(base, field, value):
    """``{config.json field: value}`` for a box's value (0 means null where the box
    says so; no window also makes an explicit layer_types list all full attention; a
    new width re-derives Granite 4.0's Mamba-2 head size, as the depth explorer does)."""
    if field == "hidden_size":   # fields the family re-derives with the width (Granite 4.0)
        return {field: value, **family_of(base.model_type).on_width}
    if _zero_means_none(base, field) and value == 0:
        value = None
    if field == "sliding_window" and value is None:
        lt = base.to_hf_config().get("layer_types")
        if isinstance(lt, list):
            if base.num_hidden_layers > MAX_LIST:
                raise ConfigError(f"sliding_window: dropping the window rewrites layer_types, "
                                  f"one entry per layer, for at most {MAX_LIST:,} layers")
            return {"sliding_window": None,
                    "layer_types": ["full_attention"] * base.num_hidden_layers}
    return {field: value}


def edited_config(base, values, fields=None, typed=()):
    """The edited config: ``base`` with every field in ``values`` that differs from
    the base's own value, and every field in ``typed`` (the reader typed it: an
    explicit choice, even when it equals the base's value). For a dense model,
    ``num_experts > 0`` applies :func:`llmcourse.as_moe` (Llama -> Mixtral layout,
    Qwen3 -> Qwen3-MoE) after the other edits. A field neither changed nor typed is
    not written, so an unset ``head_dim`` keeps following ``hidden_size /
    num_attention_heads``. Raises the engine's one-line ``ValueError`` for an
    impossible setting."""
    fields = _fields_for(base) if fields is None else fields
    changes = {}
    for f in fields:
        if f not in values or f in ("num_experts", "num_experts_per_tok"):
            continue
        if f in typed or values[f] != _field_value(base, f):
            changes.update(_field_change(base, f, values[f]))
    if base.is_moe:
        if values.get("num_experts", base.num_experts) != base.num_experts:
            changes[base.moe_field] = values["num_experts"]
        if values.get("num_experts_per_tok", base.num_experts_per_tok) != base.num_experts_per_tok:
            changes["num_experts_per_tok"] = values["num_experts_per_tok"]
    cfg = base.replace(**changes) if changes else base
    if not base.is_moe and values.get("num_experts", 0) != 0 and "num_experts" in fields:
        cfg = as_moe(cfg, values["num_experts"], values.get("num_experts_per_tok", _DENSE_TOP_K))
    return cfg


def _count_text(v):
    return human_count(v)


def _bytes_text(v):
    return human_bytes(v, "GiB")


def _flops_text(v):
    return f"{v / 1e9:,.2f} GFLOP"


def _ctx(n):
    return f"{n // 1024}K" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def towers_note(cfg):
    """'' for a text model; for a multimodal wrapper, one line saying what its figures
    hold: the boxes edit its language model (``text_config``), the total and the
    weights include its vision and audio towers, active parameters and FLOPs do not."""
    if not cfg.is_multimodal:
        return ""
    from ..counts import param_count
    comp = param_count(cfg).components
    towers = [f"{k} {comp[k] / 1e9:,.2f}B" for k in ("vision", "audio") if comp.get(k)]
    return (f"{cfg.name} is a multimodal model: the boxes edit its language model "
            f"(text_config); its total and weights include its towers ({', '.join(towers)}), "
            "which a text token does not run, so active parameters and FLOPs leave them out.")


def whatif_rows(original, edited, seq_len=8192, batch=1, original_summary=None):
    """The lab's summary rows: one :class:`CompareRow` per
    :data:`~llmcourse.compare.SUMMARY_KEYS` entry, ``value`` = the edited config's
    exact integer, ``original`` = the original's (pure; the lab and tests call it)."""
    a = original_summary or size_summary(original, seq_len, batch)
    b = size_summary(edited, seq_len, batch)
    labels = dict(SUMMARY_KEYS)
    labels.update({
        "weights_bf16": "weights, bf16", "weights_fp8": "weights, fp8",
        "weights_int4": "weights, int4 idealised (½ byte per parameter)",
        "weights_int4_g128": "weights, int4 as AWQ stores them (GPTQ adds an index per input)",
        "kv_cache_bytes": f"KV cache, bf16, {_ctx(seq_len)} tokens × batch {batch}",
        "flops_prefill": f"FLOPs per token, prefill of {_ctx(seq_len)}",
        "flops_decode": f"FLOPs per token, decoding at {_ctx(seq_len)}",
    })
    fmt = {"total_params": _count_text, "active_params": _count_text,
           "embedding_params": _count_text, "flops_prefill": _flops_text,
           "flops_decode": _flops_text}
    rows = []
    for key in SUMMARY_KEYS:
        f = fmt.get(key, _bytes_text)
        rows.append(CompareRow(labels[key], key, b[key], f(b[key]), a[key], f(a[key])))
    return rows


def _shape_text(t):
    s = " × ".join(f"{d:,}" for d in t.shape)
    if t.per_expert > 1:
        s += f" (× {t.per_expert} experts)"
    if t.fused > 1:
        s += " (all experts in one tensor: experts × in × out)"
    if t.tied:
        s = "tied to the embedding"
    return s


def _layer_ranges(n, first, last):
    """'1 layer (3)', '58 layers (3–60)' or '13 layers' (not contiguous): arithmetic."""
    if n == 1:
        return f"1 layer ({first:,})"
    span = f" ({first:,}–{last:,})" if last - first == n - 1 else ""
    return f"{n:,} layers{span}"


def layer_shapes(cfg):
    """``{(section, tensor): shape text}``: the embedding and lm_head, the attention
    weights of layer 0, and the MLP weights of one layer of each kind (dense, MoE),
    in stored order. A section's ``(section, "")`` entry says which layers it covers."""
    out = {}
    for t in global_tensors(cfg):
        if t.name.endswith(".weight") and len(t.shape) == 2:
            out[("embedding and output", t.name.removesuffix(".weight"))] = _shape_text(t)
    groups = layer_groups(cfg)
    L = cfg.num_hidden_layers
    out[("attention", "")] = _layer_ranges(L, 0, L - 1)
    for t in groups[0].tensors:
        if t.matmul and t.component == "attention":
            out[("attention", t.name.removesuffix(".weight"))] = _shape_text(t)
    for mlp, kind in (("dense", "dense MLP"), ("moe", "MoE MLP")):
        these = [g for g in groups if g.kind.mlp == mlp]
        if not these:
            continue
        out[(kind, "")] = _layer_ranges(sum(g.count for g in these),
                                        min(g.indices[0] for g in these),
                                        max(g.indices[-1] for g in these))
        for t in these[0].tensors:
            if t.matmul and t.component != "attention":
                out[(kind, t.name.removesuffix(".weight"))] = _shape_text(t)
    return out


def shapes_table_html(original, edited):
    """An HTML table of weight shapes (out × in) per layer kind, original vs edited."""
    a, b = layer_shapes(original), layer_shapes(edited)
    keys = list(b) + [k for k in a if k not in b]
    order = ("embedding and output", "attention", "dense MLP", "MoE MLP")
    sections = [sec for sec in order if any(k[0] == sec for k in keys)]
    body = []
    for sec in sections:
        sec_th = f"<th style='text-align:left;padding-top:6px'>{sec}</th>"
        if sec == "embedding and output":
            body.append(f"<tr>{sec_th}<th></th><th></th></tr>")
        else:
            layers = [html.escape(x.get((sec, ""), "—")) for x in (a, b)]
            body.append(f"<tr>{sec_th}" + "".join(
                f"<th style='text-align:right;font-weight:normal'>{t}</th>" for t in layers)
                + "</tr>")
        for s, name in keys:
            if s != sec or not name:
                continue
            va, vb = a.get((s, name), "—"), b.get((s, name), "—")
            mark = "font-weight:bold;" if va != vb else ""
            body.append(f"<tr><td style='padding-right:1em'><code>{html.escape(name)}</code></td>"
                        f"<td style='text-align:right;padding-right:1em'>{html.escape(va)}</td>"
                        f"<td data-tensor='{html.escape(s)}:{html.escape(name)}' "
                        f"style='text-align:right;{mark}'>{html.escape(vb)}</td></tr>")
    return ("<table style='font-size:13px'><caption style='text-align:left;font-weight:bold'>"
            "weight shapes (out × in) of one layer of each kind</caption>"
            "<tr><th></th><th style='text-align:right;padding-right:1em'>original</th>"
            "<th style='text-align:right'>edited</th></tr>" + "".join(body) + "</table>")


def _json(v):
    import json
    if v is None:
        return "(absent)"
    if isinstance(v, list) and len(v) > 4:
        return f"[{len(v)} entries]"
    return json.dumps(v)


def diff_text(original, edited, limit=8):
    """A short, one-line description of the config.json fields that differ."""
    d = config_diff(original, edited)
    if not d:
        return "no field changed"
    parts = [f"{k}: {_json(a)} → {_json(b)}" for k, a, b in d[:limit]]
    more = f", and {len(d) - limit} more" if len(d) > limit else ""
    return f"{len(d)} field{'s' if len(d) != 1 else ''} changed: " + "; ".join(parts) + more


# --- the lab ----------------------------------------------------------------------

class WhatIfLab(Explorer):
    """The what-if lab (an :class:`Explorer` with a side-by-side table, a shapes
    table, loading and saving). Build it with :func:`whatif_lab`."""

    def __init__(self, model="Meta-Llama-3-8B", seq_len=8192, batch=1, save_path=None):
        import ipywidgets as W
        self.loaded = {}                        # dropdown label -> loaded ModelConfig
        self._switching = False
        self.base = load_model(model)
        self.fields = _fields_for(self.base)
        self.edited = self.base
        self._orig_cache = {}
        self.typed = set()            # fields the reader typed: explicit choices
        self._programmatic = False    # True while the lab itself sets a box
        names = list_models()
        if self.base.name not in names:  # a lab started on a Hub id
            names.append(self.base.name)
        controls = {
            "model": dropdown("model", names, self.base.name, width="330px"),
            "seq_len": selection("context (tokens)", SEQ_LENS, seq_len, width="360px"),
            "batch": selection("batch", BATCHES, batch, width="260px"),
        }
        for f in EDITABLE_FIELDS:
            if f == "tie_word_embeddings":
                controls[f] = W.Checkbox(value=False, description=f, indent=False,
                                         layout=W.Layout(width="220px"))
            else:
                controls[f] = int_text(f, 0, width="270px")
        self._reset_fields(controls)  # values and visibility for the first model
        for f in EDITABLE_FIELDS:     # before the explorer's own observer: typed first
            controls[f].observe(lambda ch, f=f: self._on_typed(f), names="value")

        # loading and saving (not inputs of compute: kept out of ``controls``)
        self.path_box = W.Text(placeholder="path/to/config.json (or a folder holding one)",
                               description="load", style={"description_width": "initial"},
                               layout=W.Layout(width="420px"))
        self.path_box.add_class("lc-load-path")
        self.load_button = W.Button(description="Load", icon="folder-open",
                                    layout=W.Layout(width="90px"))
        self.load_button.add_class("lc-load-button")
        self.upload = W.FileUpload(accept=".json", multiple=False,
                                   description="Upload config.json", layout=W.Layout(width="200px"))
        self.upload.add_class("lc-upload")
        self.paste_box = W.Textarea(placeholder="or paste the text of a config.json here",
                                    layout=W.Layout(width="420px", height="60px"))
        self.paste_box.add_class("lc-paste")
        self.paste_button = W.Button(description="Read pasted", icon="paste",
                                     layout=W.Layout(width="120px"))
        self.paste_button.add_class("lc-paste-button")
        self.hub_box = W.Text(placeholder="or a Hub id: owner/name, Enter",
                              continuous_update=False, description="Hub",
                              style={"description_width": "initial"},
                              layout=W.Layout(width="300px"))
        self.hub_box.add_class("lc-hub-box")
        self.save_box = W.Text(value=save_path or os.path.join("whatif-model", "config.json"),
                               description="save to", style={"description_width": "initial"},
                               layout=W.Layout(width="420px"))
        self.save_box.add_class("lc-save-path")
        self.save_button = W.Button(description="Save config.json", icon="save",
                                    layout=W.Layout(width="170px"))
        self.save_button.add_class("lc-save-button")
        self.save_status = W.HTML("")
        self.save_status.add_class("lc-save-status")
        self.changes = W.HTML("")
        self.changes.add_class("lc-changes")
        self.shapes = W.HTML("")
        self.shapes.add_class("lc-shapes")
        self.saved_path = None

        super().__init__(
            "whatif", controls, self._compute, self._draw, title="What-if lab",
            figsize=(11, 4.1),
            note="Type a value and press Enter. Boxes are the model's config.json fields. "
                 "A value you type is an explicit choice; a box you leave follows the edited "
                 "model (an unset head_dim follows hidden_size / num_attention_heads). For a "
                 "dense model, a number of experts above 0 turns its MLP into routed experts "
                 "(lc.as_moe).")
        self.on_change("model", self._on_model)  # a new model resets the fields: one redraw
        self.load_button.on_click(lambda _b: self.load_path(self.path_box.value))
        self.upload.observe(self._on_upload, names="value")
        self.paste_button.on_click(lambda _b: self.load_text(self.paste_box.value))
        self.hub_box.observe(self._on_hub_id, names="value")
        self.save_button.on_click(lambda _b: self.save(self.save_box.value))
        load_row = W.HBox([self.hub_box, self.path_box, self.load_button, self.upload,
                           self.paste_box, self.paste_button],
                          layout=W.Layout(flex_flow="row wrap"))
        save_row = W.HBox([self.save_box, self.save_button], layout=W.Layout(flex_flow="row wrap"))
        tables = W.HBox([self.summary, self.shapes],
                        layout=W.Layout(flex_flow="row wrap", align_items="flex-start",
                                        grid_gap="24px"))
        setting = W.HBox([controls[k] for k in ("model", "seq_len", "batch")],
                         layout=W.Layout(flex_flow="row wrap"))
        fields = W.HBox([W.HTML("<b style='margin-right:8px'>config.json fields:</b>")]
                        + [controls[f] for f in EDITABLE_FIELDS],
                        layout=W.Layout(flex_flow="row wrap", align_items="center"))
        # on a projector (1280 x 720) the fields and the figure show together: the figure
        # right after them, the note and the tables of exact values below it
        self.widget.children = [self.title, load_row, setting, fields, self.changes,
                                self.error_line, self.image, self.note, tables, save_row,
                                self.save_status]

    # --- model and fields -----------------------------------------------------
    def _on_typed(self, field):
        if not self._programmatic:
            self.typed.add(field)

    def _set_quietly(self, control, value):
        """Set a box without it counting as typed and without a redraw."""
        self._programmatic = True
        self._held += 1
        try:
            control.value = value
        finally:
            self._held -= 1
            self._programmatic = False

    def _reset_fields(self, controls=None):
        controls = controls or self.controls
        self.fields = _fields_for(self.base)
        self.typed = set()
        moe_field = _moe_field_of(self.base) if "num_experts" in self.fields else None
        self._programmatic = True
        try:
            for f in EDITABLE_FIELDS:
                c = controls[f]
                shown = f in self.fields
                c.layout.display = "" if shown else "none"
                if shown:
                    c.value = _field_value(self.base, f)
        finally:
            self._programmatic = False
        for f in EDITABLE_FIELDS:
            c = controls[f]
            if f in ZERO_MEANS_NONE:
                c.description = (f"{f} ({ZERO_MEANS_NONE[f]})" if _zero_means_none(self.base, f)
                                 else f)
            if f == "num_experts":
                c.description = (moe_field if self.base.is_moe
                                 else f"{moe_field} (0 = dense)") if moe_field else f
            if f != "tie_word_embeddings":  # room for the label and a 9-digit number
                c.layout.width = f"{round(len(c.description) * 7.6) + 110}px"

    def _on_model(self, change):
        if self._switching:
            return
        name = change["new"]
        self.base = self.loaded[name] if name in self.loaded else load_model(name)
        self._reset_fields()

    # --- compute and draw -----------------------------------------------------
    def edited_config(self, values=None):
        """The edited config for the current (or given) control values."""
        return edited_config(self.base, values or self.values, self.fields, self.typed)

    def _refresh_derived(self):
        """Boxes the reader did not type show the edited model's own values (e.g.
        head_dim = hidden_size / heads after the heads change)."""
        for f in self.fields:
            if f in self.typed or f in ("num_experts", "num_experts_per_tok"):
                continue
            value = _field_value(self.edited, f)
            if self.controls[f].value != value:
                self._set_quietly(self.controls[f], value)

    def _compute(self, v):
        edited = self.edited_config(v)
        c = self._orig_cache  # the original's numbers change only with model, context, batch
        if c.get("base") is not self.base or c.get("at") != (v["seq_len"], v["batch"]):
            c.update(base=self.base, at=(v["seq_len"], v["batch"]),
                     summary=size_summary(self.base, v["seq_len"], v["batch"]))
        rows = whatif_rows(self.base, edited, v["seq_len"], v["batch"],
                           original_summary=c["summary"])
        self.edited = edited
        return rows

    def _draw(self, fig, v, rows):
        from ..plots.whatif import draw_whatif_bars, whatif_title
        a = {r.key: r.original for r in rows}
        b = {r.key: r.value for r in rows}
        draw_whatif_bars(fig, a, b, v["seq_len"], v["batch"],
                         title=whatif_title(self.base.name, a, b),
                         labels=(f"original: {self.base.name}", "edited"))

    def update(self):
        t0 = time.perf_counter()
        super().update()
        if not self.error:
            self._refresh_derived()
            self.shapes.value = shapes_table_html(self.base, self.edited)
            self.changes.value = ("<div style='color:#333'>config.json: "
                                  f"{html.escape(diff_text(self.base, self.edited))}</div>"
                                  + self._left_out_html() + self._towers_html())
        self.last_seconds = time.perf_counter() - t0

    def _left_out_html(self):
        """Why a field this family carries has no box (transformers would not build it)."""
        from .depth import engine_only_fields
        why = engine_only_fields(self.base)
        if not why:
            return ""
        text = "; ".join(f"no {f} box: {reason}" for f, reason in why.items())
        return f"<div style='color:#555'>{html.escape(self.base.name)}: {html.escape(text)}.</div>"

    def _towers_html(self):
        """A multimodal wrapper: its boxes edit the language model; its total includes the
        towers, which a text token does not run."""
        text = towers_note(self.base)
        return f"<div style='color:#555'>{html.escape(text)}</div>" if text else ""

    def table_html(self, rows, stale=False):
        style = "opacity:0.4;" if stale else ""
        cap = ("<caption style='text-align:left;color:#b00020'>last valid setting</caption>"
               if stale else "")
        name = html.escape(self.base.name)
        head = ("<tr><th></th><th style='text-align:right;padding-right:1em'>original<br>"
                f"<small>{name}</small></th><th style='text-align:right;padding-right:1em'>"
                "edited</th><th style='text-align:right'>change</th></tr>")
        body = []
        for r in rows:
            orig = getattr(r, "original", None)
            otext = getattr(r, "original_text", "")
            unit = " B" if r.key.startswith(("weights", "kv_")) else ""
            ch = change_percent(orig, r.value) if orig is not None else 0.0
            ch_text = "0 %" if ch == 0 else f"{ch:+,.2f} %"
            body.append(
                f"<tr><th style='text-align:left;padding-right:1.5em'>{html.escape(r.label)}</th>"
                f"<td class='lc-original' data-original='{orig}' "
                f"style='text-align:right;padding-right:1em'>{html.escape(otext)}<br>"
                f"<small style='color:#666'>{orig:,}{unit}</small></td>"
                f"<td data-key='{r.key}' data-value='{r.value}' "
                f"style='text-align:right;padding-right:1em'><b>{html.escape(r.text)}</b><br>"
                f"<small style='color:#666'>{r.value:,}{unit}</small></td>"
                f"<td class='lc-change' style='text-align:right'>{ch_text}</td></tr>")
        return f"<table style='{style}font-size:15px'>{cap}{head}{''.join(body)}</table>"

    # --- loading ----------------------------------------------------------------
    def load_config(self, cfg, label=None):
        """Add a config to the model list and select it."""
        label = label or f"{cfg.name} (loaded)"
        base_label, n = label, 2
        while label in self.loaded or label in list_models():
            label, n = f"{base_label} {n}", n + 1
        self.loaded[label] = cfg
        dd = self.controls["model"]
        self._switching = True  # ipywidgets resets the value when options change: ignore that
        try:
            dd.options = list(dd.options) + [label]
        finally:
            self._switching = False
        dd.value = label  # _on_model: new base, fields reset, one redraw
        return label

    def load_path(self, path):
        """Load a config.json (or a folder holding one); a bad file shows the
        engine's one-line message and the lab keeps its current model."""
        path = (path or "").strip()
        try:
            if not path:
                raise ConfigError("load: type the path of a config.json "
                                  "(or of a folder holding one)")
            cfg = from_hf_config(os.path.expanduser(path))
        except ValueError as e:
            self.show_error(str(e))
            return None
        return self.load_config(cfg)

    def _on_hub_id(self, change):
        if change["new"]:  # Enter: load it, then empty the box for the next id
            try:
                self.load_hub(change["new"])
            finally:
                self.hub_box.value = ""

    def load_hub(self, model_id):
        """Load a Hub model by its id (``owner/name``, optionally ``@revision``), as typing
        it in the Hub box and pressing Enter does; it joins the model list under its id.
        A model that cannot be read shows the one-line message; the lab keeps its model."""
        text = (model_id or "").strip()
        if not text:
            return None
        try:
            cfg = load_model(text)
        except ValueError as e:
            self.show_error(str(e))
            return None
        if self.loaded.get(cfg.name) is cfg:  # typed again: select it
            self.controls["model"].value = cfg.name
            return cfg.name
        return self.load_config(cfg, label=cfg.name)

    def _on_upload(self, change):
        files = change["new"]
        if not files:
            return
        f = files[0]
        try:
            self.load_upload(f["name"], bytes(f["content"]))
        except Exception as e:  # never a traceback in the reader's face
            self.show_error(f"upload {f.get('name', '')}: {type(e).__name__}: {e}")
        self.upload.value = ()  # so the same file can be uploaded again

    def load_upload(self, filename, content):
        """Load an uploaded file's bytes (read by the engine, so the messages are its own)."""
        safe = os.path.basename(str(filename)) or "config.json"
        stem = os.path.splitext(safe)[0]
        try:
            cfg = config_from_json(content, name="uploaded config" if stem == "config" else stem,
                                   source=safe)
        except ValueError as e:
            self.show_error(str(e))
            return None
        return self.load_config(cfg)

    def load_text(self, text):
        """Load the pasted text of a config.json (a bad paste shows the one-line message)."""
        try:
            cfg = config_from_json(text or "", name="pasted config", source="pasted config")
        except ValueError as e:
            self.show_error(str(e))
            return None
        return self.load_config(cfg)

    # --- saving ------------------------------------------------------------------
    def save(self, path):
        """Write the edited config as a config.json; return the path written (or
        None, with the reason in the save status line)."""
        path = (path or "").strip()
        try:
            if not path:
                raise ConfigError("save: type where to write the config.json")
            cfg = self.edited_config()
            path = os.path.expanduser(path)
            # a path not ending in .json is a folder (the Hugging Face layout: folder/config.json)
            folder = os.path.isdir(path) or not path.lower().endswith(".json")
            os.makedirs(path if folder else os.path.dirname(os.path.abspath(path)), exist_ok=True)
            written = os.path.abspath(cfg.save(path))
        except ValueError as e:
            self._save_message(f"not saved: {e}", error=True)
            return None
        except OSError as e:
            self._save_message(f"not saved: {path}: {e.strerror or e}", error=True)
            return None
        self.saved_path = written
        self._save_message(f"saved {written} ({diff_text(self.base, cfg)})")
        return written

    def _save_message(self, msg, error=False):
        color = "#b00020" if error else "#1b5e20"
        mark = "&#9888; " if error else "&#10003; "
        self.save_status.value = (f"<div style='color:{color};padding:4px 0'>{mark}"
                                  f"{html.escape(msg)}</div>")


@register("whatif")
def whatif_lab(model="Meta-Llama-3-8B", seq_len=8192, batch=1, save_path=None):
    """The what-if lab: any zoo model (or a loaded config.json), any field changed,
    original vs edited side by side; the edited config saves as a config.json."""
    return WhatIfLab(model, seq_len, batch, save_path)
