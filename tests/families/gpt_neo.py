"""How the exactness test checks gpt_neo.

Real config: gpt-neo-125M.json (EleutherAI/gpt-neo-125M), a copy in a loader's parameters
(index file id 5795215158); 125,198,592 parameters, global and local layers in turn, window
256.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row


def _neo(d):
    L = d["num_layers"]
    kinds = st.lists(st.sampled_from(["global", "local"]), min_size=L, max_size=L)
    return {"attention_types": kinds.map(lambda ks: [[[k], 1] for k in ks]),
            # saved configs also list the expansion, which GPTNeoConfig keeps (it wins)
            "attention_layers": st.one_of(st.none(), kinds),
            "window_size": st.integers(1, 64)}


# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="gpt_neo", hidden_size=32, num_layers=2, num_heads=4, vocab_size=64,
             attention_types=[[["global", "local"], 1]], window_size=8),)



def _local_scores_masked(d, n):
    """transformers' eager local layer scores all n keys and masks those beyond the window:
    q.k and the V sum over n - window_size keys more than the engine counts, per head
    (4 heads of 8), in the one local layer."""
    return 2 * 4 * 2 * 8 * (n - d["window_size"])


ROW = Row(real=("configs/gpt-neo-125M.json",), small=dict(fields=_neo), tiny=TINY,
          flops=(FlopsCase(TINY[0], gap=_local_scores_masked),), **OLD)
