"""Mixture-of-experts decoders of their own lineages (OLMoE and FlexOlmo, Granite-MoE, Phi-MoE,
JetMoE, DBRX, Aria, Command A MoE, ERNIE 4.5, EXAONE MoE, Solar Open, Trinity, dots.llm1,
Hunyuan) and MiniCPM3 (dense, multi-head latent attention).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a family").
How each family stores its routed experts is an experts builder registered here
(``architectures.register_experts``), named by the storage; the layers whose shape is not
attention-plus-MLP (JetMoE's attention experts, Trinity's gated attention between four norms)
are layer builders registered here too. The names are the ones a real checkpoint of the type
holds; transformers' conversion_mapping.py renames and fuses them on load. Standard library
only.
"""

from .. import architectures as A
from .. import family_rules as rules
from ..architectures import Layout, Tensor, register_block, register_experts
from ..layers import Axis
from ..limits import MAX_LIST, _fail, _is_int
from .base import _COMMON, Family


# --- how each family stores its routed experts ----------------------------------------------

def _routed(prefix, H, inter, E):
    """Each expert's own gate, up and down projections, stored one by one."""
    return A._swiglu(prefix + "experts.{e}", H, inter, "experts", routed=True, per_expert=E)


@register_experts("separate_full_width")
def _experts_full_width(c):
    """A router (mlp.gate) and each expert's gate, up and down of intermediate_size, one by
    one (OLMoE, FlexOlmo, Command A MoE); Command A's num_shared_experts shared experts beside
    them, one MLP of num_shared_experts x intermediate_size (none when 0)."""
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    t = A._linear("mlp.gate", E, H, "router") + _routed("mlp.", H, inter, E)
    shared = c.get("num_shared_experts", 0)
    if shared:
        t += A._swiglu("mlp.shared_experts", H, inter * shared, "shared_experts")
    return t


@register_experts("separate_full_width_shared_mlp")
def _experts_hunyuan(c):
    """Hunyuan: a router (mlp.gate.wg, kept in fp32 by transformers), each expert's gate, up
    and down of intermediate_size, and one shared MLP of intermediate_size (mlp.shared_mlp)."""
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    return (A._linear("mlp.gate.wg", E, H, "router") + _routed("mlp.", H, inter, E)
            + A._swiglu("mlp.shared_mlp", H, inter, "shared_experts"))


@register_experts("separate_statics_bias")
def _experts_ernie(c):
    """ERNIE 4.5: a router (mlp.gate) and its load-balancing bias, one row of
    moe_num_experts (mlp.moe_statics.e_score_correction_bias: a parameter transformers
    keeps frozen, so counted), the experts of moe_intermediate_size one by one, and
    moe_num_shared_experts x that width of shared experts (biases by use_bias; none when 0)."""
    H, E, inter = c.hidden_size, c.num_experts, c.moe_intermediate_size
    t = (A._linear("mlp.gate", E, H, "router")
         + [Tensor("mlp.moe_statics.e_score_correction_bias", (1, E), "router")]
         + _routed("mlp.", H, inter, E))
    shared = c.moe_num_shared_experts
    if shared:
        t += A._swiglu("mlp.shared_experts", H, inter * shared, "shared_experts",
                       bool(c.get("use_bias")))
    return t


@register_experts("separate_bias_beside_gate")
def _experts_exaone(c):
    """EXAONE MoE: a router (mlp.gate), its load-balancing bias stored beside it
    (mlp.e_score_correction_bias, a buffer; transformers moves it under the gate), the
    experts of moe_intermediate_size one by one and num_shared_experts x that width of
    shared experts (built even when 0: then it holds nothing)."""
    H, E, inter = c.hidden_size, c.num_experts, c.moe_intermediate_size
    return (A._linear("mlp.gate", E, H, "router")
            + [Tensor("mlp.e_score_correction_bias", (E,), "router", buffer=True)]
            + _routed("mlp.", H, inter, E)
            + A._swiglu("mlp.shared_experts", H, inter * c.num_shared_experts,
                        "shared_experts"))


@register_experts("separate_expert_bias")
def _experts_trinity(c):
    """Trinity (AFMoE): a router (mlp.router.gate), its load-balancing bias (mlp.expert_bias,
    a parameter transformers keeps frozen, so counted), num_shared_experts x
    moe_intermediate_size of shared experts (built even when 0) and the experts of
    moe_intermediate_size one by one."""
    H, E, inter = c.hidden_size, c.num_experts, c.moe_intermediate_size
    return (A._linear("mlp.router.gate", E, H, "router")
            + [Tensor("mlp.expert_bias", (E,), "router")]
            + A._swiglu("mlp.shared_experts", H, inter * c.num_shared_experts, "shared_experts")
            + _routed("mlp.", H, inter, E))


@register_experts("fused_fc_in_out")
def _experts_aria(c):
    """Aria: a router (mlp.router), all experts in two tensors stored (experts, in, out):
    fc1 (gate and up, intermediate_size each) and fc2 (down); and moe_num_shared_experts x
    intermediate_size of shared experts (biases by mlp_bias)."""
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    fz = dict(routed=True, fused=E)
    return (A._linear("mlp.router", E, H, "router")
            + [Tensor("mlp.experts.fc1.weight", (E, H, 2 * inter), "experts", True, **fz),
               Tensor("mlp.experts.fc2.weight", (E, inter, H), "experts", True, **fz)]
            + A._swiglu("mlp.shared_experts", H, inter * c.moe_num_shared_experts,
                        "shared_experts", bool(c.get("mlp_bias"))))


def _granite_experts(c, names):
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    router, gate_up, down = names
    fz = dict(routed=True, fused=E, out_in=True)
    t = (A._linear(router, E, H, "router")
         + [Tensor(gate_up, (E, 2 * inter, H), "experts", True, **fz),
            Tensor(down, (E, H, inter), "experts", True, **fz)])
    shared = c.get("shared_intermediate_size", 0)
    if shared:  # the shared MLP: gate and up fused, down
        t += (A._linear("shared_mlp.input_linear", 2 * shared, H, "shared_experts")
              + A._linear("shared_mlp.output_linear", H, shared, "shared_experts"))
    return t


@register_experts("input_output_linear")
def _experts_granite(c):
    """Granite-MoE: a router (block_sparse_moe.router.layer) and all experts in two tensors
    stored (experts, out, in): input_linear (gate and up, intermediate_size each) and
    output_linear (down); with shared_intermediate_size, a shared MLP beside them (gate and
    up fused in shared_mlp.input_linear)."""
    return _granite_experts(c, ("block_sparse_moe.router.layer",
                                "block_sparse_moe.input_linear.weight",
                                "block_sparse_moe.output_linear.weight"))


@register_experts("gate_up_down_fused")
def _experts_granite_swa(c):
    """Granite-MoE with sliding windows: Granite-MoE's experts under transformers' own names
    (its checkpoints load without renaming): block_sparse_moe.router, experts.gate_up_proj
    (experts, 2 x intermediate_size, hidden), experts.down_proj."""
    return _granite_experts(c, ("block_sparse_moe.router",
                                "block_sparse_moe.experts.gate_up_proj",
                                "block_sparse_moe.experts.down_proj"))


@register_experts("glu_rows_stacked")
def _experts_dbrx(c):
    """DBRX: a router (ffn.router.layer) and all experts' w1 (gate), v1 (up) and w2 (down)
    stacked by rows, each (experts x ffn_hidden_size, d_model): w2 is stored transposed."""
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    fz = dict(routed=True, fused=E)
    return (A._linear("ffn.router.layer", E, H, "router")
            + [Tensor(f"ffn.experts.mlp.{w}", (E * inter, H), "experts", True, **fz)
               for w in ("w1", "v1", "w2")])


# --- layers of their own shape --------------------------------------------------------------

@register_block("attention_experts_and_mlp_experts")
def _jetmoe_layer(c, kind):
    """JetMoE: a mixture of attention heads (MoA) and a mixture of MLP experts, routed to the
    same top-k of num_local_experts. One key-value projection (kv_proj: K and V of
    num_key_value_heads heads of kv_channels) is shared; each attention expert has its own
    query projection (input_linear) and output projection (output_linear), so a token's k
    experts give it k x num_key_value_heads query heads (num_attention_heads); a bias is
    added after the experts. The MLP experts are gated (input_linear: gate and up),
    (experts, out, in), with a bias after them. Each set has its own router."""
    H, E = c.hidden_size, c.num_experts
    a, inter = c.num_key_value_heads * c.head_dim, c.intermediate_size
    fz = dict(routed=True, fused=E, out_in=True)
    p, m = "self_attention.", "mlp."
    return ([Tensor(p + "experts.bias", (H,), "attention"),
             Tensor(p + "experts.input_linear.weight", (E, a, H), "attention", True, **fz),
             Tensor(p + "experts.output_linear.weight", (E, H, a), "attention", True, **fz)]
            + A._linear(p + "experts.router.layer", E, H, "router")
            + A._linear(p + "kv_proj", 2 * a, H, "attention")
            + [Tensor(m + "bias", (H,), "mlp"),
               Tensor(m + "input_linear.weight", (E, 2 * inter, H), "experts", True, **fz),
               Tensor(m + "output_linear.weight", (E, H, inter), "experts", True, **fz)]
            + A._linear(m + "router.layer", E, H, "router")
            + A._layer_norms(c))


@register_block("gated_attention_four_norms")
def _trinity_layer(c, kind):
    """Trinity (AFMoE): attention with QK-norm and a sigmoid output gate of its own
    (self_attn.gate_proj, one value per head dimension), a norm before and after the
    attention and before and after the MLP; the first num_dense_layers MLPs dense, then
    routed experts."""
    gate = A._linear("self_attn.gate_proj", c.num_attention_heads * c.head_dim,
                     c.hidden_size, "attention")
    mlp = A._dense_mlp(c) if kind.mlp == "dense" else A._moe(c)
    return A._attention(c) + gate + mlp + A._layer_norms(c)


# --- layer schedules ----------------------------------------------------------------------

def _per_layer_list(r, field, values, layers):
    """A per-layer list of a config (mlp_layer_types): one of ``values`` for each layer."""
    lst = r.get(field)
    if not isinstance(lst, list) or len(lst) != layers or not all(v in values for v in lst):
        _fail(field, f"must list one of {', '.join(values)} for each of the {layers:,} layers",
              lst)
    return lst


def _window_pattern(n, field):
    """pattern - 1 sliding layers, then a full one (layer i is full when (i + 1) % n == 0)."""
    if not _is_int(n) or n < 1:
        _fail(field, "must be a positive whole number (a full-attention layer every n)", n)
    return Axis.cycle(("sliding_attention", n - 1), ("full_attention", 1), field=field)


def _trinity_layers(r):
    """Trinity: a full-attention layer every global_attn_every_n_layers, the others sliding;
    the first num_dense_layers MLPs dense."""
    dense = r["num_dense_layers"]
    if not _is_int(dense) or dense < 0:
        _fail("num_dense_layers", "must be a whole number, zero or more", dense)
    return dict(attention=_window_pattern(r["global_attn_every_n_layers"],
                                          "global_attn_every_n_layers"),
                mlp=Axis.cycle(("moe", 1), prefix=[("dense", dense)], field="num_dense_layers"))


def _cohere2_moe_layers(r):
    """Command A MoE: mlp_layer_types ("dense" or "sparse" per layer), by default the first
    first_k_dense_replace layers dense (a key transformers reads once and does not keep);
    layer_types by default a full layer every prefix_dense_sliding_window_pattern in the dense
    prefix, then every sliding_window_pattern."""
    L, fk = r["num_hidden_layers"], r.get("first_k_dense_replace") or 0
    if not _is_int(fk) or fk < 0 or (_is_int(L) and fk > L):
        _fail("first_k_dense_replace", f"must be a whole number from 0 to num_hidden_layers={L}",
              fk)
    if r.get("mlp_layer_types") is None:
        mlp = Axis.cycle(("moe", 1), prefix=[("dense", fk)], field="first_k_dense_replace")
    else:
        lst = _per_layer_list(r, "mlp_layer_types", ("dense", "sparse"), L)
        mlp = Axis.from_list(["dense" if v == "dense" else "moe" for v in lst],
                             field="mlp_layer_types")
    p, q = r["prefix_dense_sliding_window_pattern"], r["sliding_window_pattern"]
    rest = _window_pattern(q, "sliding_window_pattern")
    if fk:
        pre = _window_pattern(p, "prefix_dense_sliding_window_pattern")
        prefix = [(pre.value_at(i), 1) for i in range(min(fk, MAX_LIST))]
        if fk > MAX_LIST:
            _fail("first_k_dense_replace", f"at most {MAX_LIST:,} dense layers here", fk)
        rest = Axis.cycle(*rest.period, prefix=prefix, field="sliding_window_pattern")
    return dict(attention=rest, mlp=mlp)


def _exaone_moe_layers(r):
    """EXAONE MoE: mlp_layer_types ("sparse" for experts, anything else dense), by default
    the first first_k_dense_replace dense; layer_types by default a full layer every
    sliding_window_pattern (which transformers cannot derive without a sliding_window)."""
    L, fk = r["num_hidden_layers"], r["first_k_dense_replace"]
    if r.get("mlp_layer_types") is None:
        if not _is_int(fk) or fk < 0:
            _fail("first_k_dense_replace", "must be a whole number, zero or more", fk)
        mlp = Axis.cycle(("moe", 1), prefix=[("dense", fk)], field="first_k_dense_replace")
    else:
        lst = _per_layer_list(r, "mlp_layer_types", ("dense", "sparse"), L)
        mlp = Axis.from_list(["moe" if v == "sparse" else "dense" for v in lst],
                             field="mlp_layer_types")
    axes = dict(mlp=mlp)
    if r.get("layer_types") is None:
        if r.get("sliding_window") is None:
            _fail("sliding_window", "required to derive layer_types (transformers divides by "
                  "a sliding_window_pattern of 0 without it); or give layer_types", None)
        axes["attention"] = _window_pattern(r["sliding_window_pattern"], "sliding_window_pattern")
    return axes


def _ernie_layers(r):
    """ERNIE 4.5: experts in layer i when (i + 1) % moe_layer_interval == 0 and
    moe_layer_start_index <= i <= moe_layer_end_index (-1: the last layer); else dense."""
    L = r["num_hidden_layers"]
    step, start, end = (r["moe_layer_interval"], r["moe_layer_start_index"],
                        r["moe_layer_end_index"])
    for f, v in (("moe_layer_start_index", start), ("moe_layer_end_index", end)):
        if not _is_int(v):
            _fail(f, "must be a whole number", v)
    end = L - 1 if end == -1 else end
    first = max(start, 0)
    mlp = Axis.every(step, "moe", "dense", start=first, phase=step - 1,
                     field="moe_layer_interval")
    if end < L - 1:  # no experts after moe_layer_end_index: the layers up to it, listed
        if end + 1 > MAX_LIST:
            _fail("moe_layer_end_index", f"the course lists at most {MAX_LIST:,} layers before "
                  "the last expert layer", end)
        mlp = Axis(prefix=[(mlp.value_at(i), 1) for i in range(max(end + 1, 0))],
                   period=[("dense", 1)], field="moe_layer_end_index")
    return dict(attention=Axis.constant("full_attention"), mlp=mlp)


def _dots1_layers(r):
    """dots.llm1: with a sliding_window, the layers from max_window_layers on slide; the
    first first_k_dense_replace MLPs dense."""
    fk = r["first_k_dense_replace"]
    mlp = Axis.cycle(("moe", 1), prefix=[("dense", fk)], field="first_k_dense_replace")
    if r.get("sliding_window") is None:
        return dict(attention=Axis.constant("full_attention"), mlp=mlp)
    return dict(mlp=mlp, attention=Axis.cycle(("sliding_attention", 1), prefix=[
        ("full_attention", r["max_window_layers"])], field="max_window_layers"))


def _granite_swa_layers(r):
    """Granite-MoE with sliding windows: layer i attends fully when i % 4 == 0, else slides."""
    return dict(attention=Axis.every(4, "full_attention", "sliding_attention", phase=0,
                                     field="layer_types"))


# --- rules of their own --------------------------------------------------------------------

def _jetmoe_heads(r, raw):
    """JetMoE's query heads are not a field: each of a token's num_experts_per_tok attention
    experts gives num_key_value_heads of them (transformers sets num_attention_heads so,
    whatever a config says)."""
    kv, k = r.get("num_key_value_heads"), r.get("num_experts_per_tok")
    if _is_int(kv) and _is_int(k):
        r["num_attention_heads"] = kv * k


def _own_names_only(pairs, defaults):
    """A family whose config class has no attribute_map for these standard names reads only
    its own: a config's standard name (num_experts_per_tok) is ignored, as transformers
    ignores it."""
    def prepare(r, raw):
        for std, own in pairs:
            r[own] = raw[own] if own in raw else defaults[own]
            r[std] = r[own]
    return prepare


def _olmoe_head_dim(r, head_dim):
    """OLMoE's q_norm is hidden_size wide, whatever head_dim is: only
    hidden_size / num_attention_heads builds a model that runs."""
    if head_dim * r["num_attention_heads"] != r["hidden_size"]:
        _fail("head_dim", f"must be hidden_size / num_attention_heads = "
              f"{r['hidden_size'] / r['num_attention_heads']:g} (OLMoE's q_norm is "
              "hidden_size wide)", head_dim)


def _minicpm3_v_head_dim(r, raw):
    """MiniCPM3: v_head_dim, when not given, is hidden_size // num_attention_heads."""
    hidden, heads = r.get("hidden_size"), r.get("num_attention_heads")
    if r.get("v_head_dim") is None and _is_int(hidden) and _is_int(heads) and heads > 0:
        r["v_head_dim"] = hidden // heads


def _hunyuan_topk(r, raw):
    """Hunyuan's moe_topk may list one top-k per layer: the course reads one that is the same
    in every layer. (Its configs also list a moe_intermediate_size per layer, which
    transformers does not read: its experts are intermediate_size wide.)"""
    if isinstance(r.get("moe_intermediate_size"), list):
        r["moe_intermediate_size"] = None
    k = r.get("moe_topk")
    if isinstance(k, list):
        if not k or not all(_is_int(v) and v == k[0] for v in k):
            _fail("moe_topk", "lists a top-k per layer; the course reads one top-k for every "
                  "layer", k)
        r["moe_topk"] = r["num_experts_per_tok"] = k[0]


def _cohere2_moe_dense_width(r, raw):
    """Command A MoE's dense layers are prefix_dense_intermediate_size wide, or
    intermediate_size when it is null."""
    if r.get("prefix_dense_intermediate_size") is None:
        r["prefix_dense_intermediate_size"] = r.get("intermediate_size")


_DBRX_ATTN = dict(attn_pdrop=0.0, clip_qkv=None, kv_n_heads=1)
_DBRX_FFN = dict(ffn_act_fn=None, ffn_hidden_size=3584, moe_num_experts=4, moe_top_k=1,
                 moe_jitter_eps=None, moe_loss_weight=0.01, moe_normalize_expert_weights=1.0)


def _dbrx_prepare(r, raw):
    """DBRX keeps its attention and feed-forward sizes in attn_config and ffn_config (their
    classes' defaults where a key is missing): kv_n_heads, ffn_hidden_size, moe_num_experts,
    moe_top_k; head_dim is always d_model / n_heads."""
    for f in ("attn_config", "ffn_config"):
        if r.get(f) is not None and not isinstance(r[f], dict):
            _fail(f, "must be a JSON object or null", r[f])
    attn = dict(_DBRX_ATTN, **(r.get("attn_config") or {}))
    ffn = dict(_DBRX_FFN, **(r.get("ffn_config") or {}))
    if "rope_theta" not in attn:
        _fail("attn_config.rope_theta", "required (transformers' DBRX attention reads it there)",
              None)
    # transformers 5.23 types these strictly: the integer 1 older versions wrote is refused
    for f, nullable in (("moe_normalize_expert_weights", True), ("moe_loss_weight", False)):
        v = ffn[f]
        if not (isinstance(v, float) or (nullable and v is None)):
            _fail(f"ffn_config.{f}", "must be a float (write 1.0, not 1: transformers 5.23's "
                  "DbrxFFNConfig refuses an integer)", v)
    r["num_key_value_heads"] = attn["kv_n_heads"]
    r["intermediate_size"] = ffn["ffn_hidden_size"]
    r["moe_num_experts"] = ffn["moe_num_experts"]
    r["num_experts_per_tok"] = ffn["moe_top_k"]
    r["head_dim"] = None
    if r.get("tie_word_embeddings"):
        _fail("tie_word_embeddings", "DBRX does not tie its embeddings (transformers refuses "
              "true)", True)


# --- the entries ---------------------------------------------------------------------------

# Granite-MoE's fields, shared by its three types
_GRANITE = dict(_COMMON, vocab_size=32000, hidden_size=4096, intermediate_size=11008,
                num_hidden_layers=32, num_attention_heads=32, max_position_embeddings=2048,
                num_local_experts=8, num_experts_per_tok=2)
_ARIA = dict(_COMMON, vocab_size=32000, hidden_size=4096, intermediate_size=4096,
             num_hidden_layers=32, num_attention_heads=32, max_position_embeddings=2048,
             pad_token_id=2, mlp_bias=False, moe_num_experts=8, moe_topk=2,
             moe_num_shared_experts=2)
_HUNYUAN = dict(_COMMON, vocab_size=290943, hidden_size=4096, intermediate_size=11008,
                num_hidden_layers=32, num_attention_heads=32, max_position_embeddings=2048,
                pad_token_id=0)

ENTRIES = {
    # OLMoE: RMSNorm over all of q and all of k (q_norm hidden_size wide), 64 experts top-8 of
    # intermediate_size in every layer
    "olmoe": Family(
        group="OLMo",
        layout=Layout(qk_norm="all", experts="separate_full_width"),
        moe="num_experts",
        layers=rules.full_attention_layers,
        attribute_map=dict(num_local_experts="num_experts"),
        derive=(rules.head_dim_floored,),
        check=(_olmoe_head_dim,),
        # (OlmoeConfig declares no head_dim: a config's is read, and refused unless it is
        # hidden / heads, but it is not one of the family's fields)
        defaults={**{k: v for k, v in _COMMON.items() if k != "head_dim"},
                  **dict(vocab_size=50304, hidden_size=2048, intermediate_size=2048,
                         num_hidden_layers=16, num_attention_heads=16,
                         max_position_embeddings=4096, pad_token_id=1, num_experts_per_tok=8,
                         num_experts=64)}),
    # FlexOlmo: OLMoE's experts with OLMo 2's norms after each sublayer
    "flex_olmo": Family(
        group="OLMo",
        layout=Layout(qk_norm="all", experts="separate_full_width",
                      layer_norms=("post_attention_layernorm", "post_feedforward_layernorm")),
        moe="num_experts",
        layers=rules.full_attention_layers,
        attribute_map=dict(num_local_experts="num_experts"),
        derive=(rules.head_dim_floored,),
        defaults=dict(_COMMON, vocab_size=100352, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32, max_position_embeddings=4096,
                      pad_token_id=100277, num_experts_per_tok=5, num_experts=7)),
    # Phi-3.5-MoE: LayerNorms with biases, attention biases by attention_bias, Mixtral's
    # expert names; a bias on the head by lm_head_bias; every layer slides with a window
    "phimoe": Family(
        group="Phi",
        layout=Layout(norm="layer", experts="block_sparse", lm_head_bias="lm_head_bias"),
        moe="num_local_experts",
        derive=(rules.head_dim_floored,),
        defaults=dict(_COMMON, vocab_size=32064, hidden_size=4096, intermediate_size=6400,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=131072, num_experts_per_tok=2,
                      num_local_experts=16, lm_head_bias=False)),
    # Granite 3.0 MoE: Llama's attention, experts fused (input_linear, output_linear)
    "granitemoe": Family(
        group="Granite",
        layout=Layout(experts="input_output_linear"),
        moe="num_local_experts",
        layers=rules.full_attention_layers,
        derive=(rules.head_dim_floored,),
        defaults=_GRANITE),
    # Granite-MoE with a shared MLP of shared_intermediate_size beside the experts (none at 0)
    "granitemoeshared": Family(
        group="Granite",
        layout=Layout(experts="input_output_linear"),
        moe="num_local_experts",
        layers=rules.full_attention_layers,
        non_negative=("shared_intermediate_size",),
        derive=(rules.head_dim_floored,),
        defaults=dict(_GRANITE, shared_intermediate_size=0)),
    # Granite-MoE with sliding windows (three in four layers) and a learned sink per head
    "granitemoe_swa": Family(
        group="Granite",
        layout=Layout(experts="gate_up_down_fused", sinks=True),
        moe="num_local_experts",
        layers=_granite_swa_layers,
        non_negative=("shared_intermediate_size",),
        derive=(rules.head_dim_floored,),
        defaults=dict(_GRANITE, shared_intermediate_size=0, sliding_window=128)),
    # JetMoE: attention experts and MLP experts (its own layer)
    "jetmoe": Family(
        layout=Layout(block="attention_experts_and_mlp_experts",
                      attention_prefix="self_attention.",
                      activation_field=("activation_function",)),
        moe="num_local_experts",
        attribute_map=dict(head_dim="kv_channels"),
        derive=(_jetmoe_heads,),
        engine_only=dict(num_attention_heads="JetMoE's query heads are num_key_value_heads x "
                         "num_experts_per_tok; transformers sets them so"),
        defaults=dict(_COMMON, vocab_size=32000, hidden_size=2048, num_hidden_layers=12,
                      num_key_value_heads=16, kv_channels=128, intermediate_size=5632,
                      max_position_embeddings=4096, num_local_experts=8,
                      num_experts_per_tok=2, tie_word_embeddings=True)),
    # DBRX: LayerNorms without biases, one fused Wqkv, 16 experts top-4 stacked by rows; its
    # sizes in attn_config and ffn_config
    "dbrx": Family(
        layout=Layout(attention="fused_qkv", attention_prefix="norm_attn_norm.attn.",
                      attention_names=("Wqkv", "out_proj"), qkv_bias=False, o_bias=False,
                      norm="layer_no_bias",
                      layer_norms=("norm_attn_norm.norm_1", "norm_attn_norm.norm_2"),
                      experts="glu_rows_stacked", layer_prefix="transformer.blocks.{i}.",
                      embedding="transformer.wte", final_norm="transformer.norm_f"),
        moe="moe_num_experts",
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="d_model", num_attention_heads="n_heads",
                           num_hidden_layers="n_layers", max_position_embeddings="max_seq_len"),
        prepare=(_dbrx_prepare,),
        engine_only=dict(num_key_value_heads="DBRX reads attn_config.kv_n_heads",
                         head_dim="DBRX's heads are d_model / n_heads wide"),
        defaults=dict(_COMMON, d_model=2048, n_heads=16, n_layers=24, max_seq_len=2048,
                      vocab_size=32000, attn_config=None, ffn_config=None)),
    # Aria's language model: experts fused (fc1, fc2) and shared experts beside them
    "aria_text": Family(
        layout=Layout(experts="fused_fc_in_out"),
        moe="moe_num_experts",
        layers=rules.full_attention_layers,
        attribute_map=dict(num_experts_per_tok="moe_topk"),
        prepare=(_own_names_only((("num_experts_per_tok", "moe_topk"),), _ARIA),),
        divisible_heads=True,
        defaults=_ARIA),
    # Command A MoE: Cohere's parallel block (one norm), dense prefix layers, experts of
    # intermediate_size, three sliding layers to one full
    "cohere2_moe": Family(
        layout=Layout(parallel=True, norm="layer_no_bias", layer_norms=("input_layernorm",),
                      experts="separate_full_width", mlp_width="prefix_dense_intermediate_size"),
        moe="num_experts",
        layers=_cohere2_moe_layers,
        non_negative=("num_shared_experts",),
        positive=("prefix_dense_intermediate_size",),
        derive=(_cohere2_moe_dense_width,),
        never_null=("head_dim",),
        defaults=dict(_COMMON, vocab_size=256000, hidden_size=8192, intermediate_size=22528,
                      num_hidden_layers=40, num_attention_heads=64, head_dim=128,
                      max_position_embeddings=8192, pad_token_id=0, tie_word_embeddings=True,
                      sliding_window=4096, num_experts_per_tok=2, num_experts=8,
                      num_shared_experts=0, mlp_layer_types=None,
                      prefix_dense_sliding_window_pattern=1, prefix_dense_intermediate_size=None,
                      sliding_window_pattern=4, first_k_dense_replace=0)),
    # ERNIE 4.5 MoE: biases everywhere by use_bias (the head's too), experts from
    # moe_layer_start_index, a frozen load-balancing bias per router, shared experts
    "ernie4_5_moe": Family(
        layout=Layout(qkv_bias="use_bias", o_bias="use_bias", mlp_bias="use_bias",
                      lm_head_bias="use_bias", experts="separate_statics_bias"),
        moe="moe_num_experts",
        layers=_ernie_layers,
        attribute_map=dict(num_experts="moe_num_experts", num_experts_per_tok="moe_k"),
        positive=("moe_layer_interval",),
        non_negative=("moe_num_shared_experts",),
        derive=(rules.head_dim_floored,),
        defaults=dict(_COMMON, vocab_size=103424, pad_token_id=0, hidden_size=2560,
                      intermediate_size=12288, num_hidden_layers=28, num_attention_heads=20,
                      num_key_value_heads=4, max_position_embeddings=131072,
                      tie_word_embeddings=True, use_bias=False, moe_intermediate_size=1536,
                      moe_k=6, moe_num_experts=64, moe_num_shared_experts=2,
                      moe_layer_start_index=1, moe_layer_end_index=-1, moe_layer_interval=1)),
    # EXAONE MoE (K-EXAONE): QK-norm per head, three sliding layers to one full, dense first
    # layers, experts with a load-balancing bias and shared experts
    "exaone_moe": Family(
        layout=Layout(qkv_bias=False, o_bias=False, qk_norm="shared",
                      experts="separate_bias_beside_gate"),
        moe="num_experts",
        layers=_exaone_moe_layers,
        non_negative=("num_shared_experts", "first_k_dense_replace"),
        derive=(rules.head_dim_floored,),
        defaults=dict(_COMMON, vocab_size=102400, hidden_size=4096, intermediate_size=16384,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32,
                      max_position_embeddings=2048, pad_token_id=0, sliding_window=4096,
                      sliding_window_pattern=4, mlp_layer_types=None, first_k_dense_replace=1,
                      moe_intermediate_size=1024, num_experts=64, num_experts_per_tok=8,
                      num_shared_experts=1)),
    # Solar Open: every layer experts (no dense MLP: intermediate_size is the experts' width),
    # a load-balancing bias and a shared expert; biases on q, k, v by attention_bias
    "solar_open": Family(
        layout=Layout(o_bias=False, router_buffer=True, shared_experts="n_shared"),
        moe="n_routed_experts",
        layers=rules.full_attention_layers,
        attribute_map=dict(num_local_experts="n_routed_experts"),
        derive=(rules.experts_only_derive,),
        never_null=("n_shared_experts", "head_dim"),
        defaults=dict(_COMMON, vocab_size=196608, hidden_size=4096, num_hidden_layers=48,
                      num_attention_heads=64, num_key_value_heads=8, head_dim=128,
                      max_position_embeddings=131072, moe_intermediate_size=1280,
                      num_experts_per_tok=8, n_shared_experts=1, n_routed_experts=128)),
    # Trinity (AFMoE): gated attention with QK-norm, four norms a layer, sliding windows
    # (three in four), dense first layers, experts with a frozen load-balancing bias
    "afmoe": Family(
        layout=Layout(block="gated_attention_four_norms", qk_norm="shared",
                      layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "pre_mlp_layernorm", "post_mlp_layernorm"),
                      experts="separate_expert_bias"),
        moe="num_experts",
        layers=_trinity_layers,
        non_negative=("num_shared_experts",),
        never_null=("head_dim",),
        defaults=dict(_COMMON, vocab_size=200192, hidden_size=2048, intermediate_size=6144,
                      moe_intermediate_size=1408, num_hidden_layers=32, num_dense_layers=1,
                      num_attention_heads=16, head_dim=128, max_position_embeddings=16384,
                      num_experts=64, num_experts_per_tok=6, num_shared_experts=2,
                      global_attn_every_n_layers=4, sliding_window=1024)),
    # dots.llm1: QK-norm per head, dense first layers, DeepSeek-style experts (a
    # load-balancing bias, n_shared_experts shared); its class gives no expert counts
    "dots1": Family(
        layout=Layout(qk_norm="shared", router_buffer=True, shared_experts="n_shared"),
        moe="n_routed_experts",
        layers=_dots1_layers,
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=("n_routed_experts", "num_experts_per_tok", "n_shared_experts"),
        non_negative=("first_k_dense_replace",),
        derive=(rules.head_dim_floored,),
        defaults=dict(_COMMON, vocab_size=152064, hidden_size=4608, intermediate_size=10944,
                      moe_intermediate_size=1408, num_hidden_layers=62, num_attention_heads=32,
                      num_key_value_heads=32, n_shared_experts=None, n_routed_experts=None,
                      num_experts_per_tok=None, first_k_dense_replace=0,
                      max_position_embeddings=2048, sliding_window=4096,
                      max_window_layers=62)),
    # Hunyuan dense (Hunyuan-7B): QK-norm per head (query_layernorm, key_layernorm); its
    # class gives no head_dim
    "hunyuan_v1_dense": Family(
        layout=Layout(qk_norm="shared", qk_norm_names=("query_layernorm", "key_layernorm")),
        layers=rules.full_attention_layers,
        required=("head_dim",),
        defaults=_HUNYUAN),
    # Hunyuan MoE (Hunyuan-A13B): the dense model's attention; experts of intermediate_size
    # beside a shared MLP of the same width
    "hunyuan_v1_moe": Family(
        layout=Layout(qk_norm="shared", qk_norm_names=("query_layernorm", "key_layernorm"),
                      experts="separate_full_width_shared_mlp"),
        moe="num_experts",
        layers=rules.full_attention_layers,
        attribute_map=dict(num_experts_per_tok="moe_topk", num_local_experts="num_experts"),
        required=("head_dim",),
        prepare=(_hunyuan_topk,),
        defaults=dict(_HUNYUAN, num_experts=1, moe_topk=1)),
    # MiniCPM3: DeepSeek's multi-head latent attention with a dense MLP
    "minicpm3": Family(
        layout=Layout(attention="mla"),
        layers=rules.full_attention_layers,
        attention_kinds=("full_attention",),
        divisible_heads=True,
        derive=(_minicpm3_v_head_dim,),
        defaults=dict(_COMMON, vocab_size=73448, hidden_size=2560, intermediate_size=6400,
                      num_hidden_layers=62, num_attention_heads=40, num_key_value_heads=40,
                      max_position_embeddings=32768, tie_word_embeddings=True, mlp_bias=False,
                      kv_lora_rank=256, q_lora_rank=768, qk_nope_head_dim=64,
                      qk_rope_head_dim=32, v_head_dim=None)),
}
