"""The command line, as a reader runs it: ``python -m llmcourse MODEL ...`` in a fresh
process (a zoo name, and a Hub id fetched from tests/hub_server.py), its lines, its
``--json``, its one-line errors and its exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

import llmcourse as lc
from hub_server import HubServer, client_env


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "llmcourse", *args], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def hub():
    with HubServer() as server:
        yield server


def test_a_zoo_model_in_lines_a_reader_reads():
    p = run("Qwen3-8B", "--gpu", "H100", "--tp", "2", "--context", "32768")
    assert p.returncode == 0 and p.stderr == ""
    lines = p.stdout.splitlines()
    cfg = lc.load_model("Qwen3-8B")
    pc = lc.param_count(cfg)
    assert lines[0] == "Qwen3-8B (qwen3; 36 layers, hidden 4,096)"
    assert f"({pc.total:,})" in lines[1]
    assert lines[2].split()[2] == f"{lc.kv_cache_bytes(cfg, 1):,}"
    labels = [ln.split()[0] for ln in lines[1:]]
    assert labels == ["parameters", "KV", "weights", "fit", "vLLM", "decode", "training"]
    plan = lc.vllm_plan(cfg, "H100", tensor_parallel_size=2, max_model_len=32768)
    assert f"= {plan.kv_tokens:,} tokens" in lines[5] and "TP=2" in lines[5]
    assert plan.release.label in lines[5]            # the release the plan follows, named
    speed = lc.expected_decode_speed(cfg, "H100", tensor_parallel_size=2)
    assert speed.label in lines[6] and "bound" in lines[6]
    assert f"{speed.low_tokens_per_s:,.0f}-{speed.high_tokens_per_s:,.0f}" in lines[6]
    # one bound, the one the estimate uses: per GPU, TP's all-reduces included
    assert f"bound {speed.bound_tokens_per_s:,.0f} tokens/s (per GPU" in lines[6]
    # units: the datasheet side in GB, vLLM's figures in GiB as it logs them, each said
    assert "GB" in lines[4] and "(GiB, as vLLM logs)" in lines[5]


def test_json_has_the_engine_numbers():
    p = run("Meta-Llama-3-8B", "--gpu", "H100", "--context", "8192", "--batch", "4",
            "--train-seq", "2048", "--zero", "2", "--train-gpus", "4", "--json")
    assert p.returncode == 0 and p.stderr == ""
    r = json.loads(p.stdout)
    cfg = lc.load_model("Meta-Llama-3-8B")
    assert r["params"] == {"total": lc.param_count(cfg).total, "active": lc.param_count(cfg).active,
                           "embedding": lc.param_count(cfg).embedding}
    assert r["kv_cache"]["bytes_at_context"] == lc.kv_cache_bytes(cfg, 8192, 4)
    assert r["weights"]["bytes"] == lc.stored_weights(cfg).total
    plan = lc.memory_plan(cfg, "H100", 1, seq_len=8192, batch=4)
    assert r["fit"]["fits"] == plan.fits and r["fit"]["cache_bytes"] == plan.cache_bytes
    assert r["vllm"]["kv_tokens"] == lc.vllm_plan(cfg, "H100", max_model_len=8192).kv_tokens
    speed = lc.expected_decode_speed(cfg, "H100", seq_len=4096)
    assert r["decode"]["bound_tokens_per_s"] == pytest.approx(speed.bound_tokens_per_s)
    # the default setup, the Trainer with FSDP, with its sharding stage overridden
    mem = lc.training_memory(cfg, 2048, 1, setup="hf-trainer-fsdp", zero_stage=2, dp=4)
    assert r["training"]["peak_bytes"] == mem.peak and r["training"]["gpus"] == 4
    assert r["training"]["setup"] == "hf-trainer-fsdp"
    assert r["training"]["sharding"] == "FSDP SHARD_GRAD_OP"


def test_would_not_start_is_status_1_with_vllms_reason():
    p = run("Meta-Llama-3-70B", "--gpu", "L4", "--context", "8192")
    assert p.returncode == 1 and p.stderr == ""
    reason = lc.vllm_plan("Meta-Llama-3-70B", "L4", max_model_len=8192).reason
    assert f"would not start: {reason}" in p.stdout


@pytest.mark.parametrize("args, message", [
    (["no-such-model"], "llmcourse: name: no zoo model 'no-such-model' and not a Hub id"),
    (["Qwen3-8B", "--gpu", "X100"], "llmcourse: gpu: no accelerator 'X100' in the table"),
    (["Qwen3-8B", "--tp", "two"], "llmcourse: argument --tp: invalid int value: 'two'"),
    (["Meta-Llama-3-70B", "--context", "32768"], "llmcourse: max_model_len: User-specified"),
    (["Qwen3-8B", "--weights", "int3"], "llmcourse: weights: unknown scheme 'int3'"),
])
def test_bad_input_is_one_line_on_stderr_and_status_2(args, message):
    p = run(*args)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(message) and p.stderr.count("\n") == 1, p.stderr


def test_a_hub_id_with_its_checkpoint(hub, tmp_path):
    env = client_env(hub.url, tmp_path)
    p = run("Qwen/Qwen3.5-0.8B-Base", "--checkpoint", "--json", env=env)
    assert p.returncode == 0 and p.stderr == ""
    r = json.loads(p.stdout)
    zoo = lc.load_model("Qwen3.5-0.8B-Base")
    assert r["model"] == "Qwen/Qwen3.5-0.8B-Base" and r["multimodal_wrapper"] == "qwen3_5"
    assert r["params"]["total"] == lc.param_count(zoo).total
    assert r["checkpoint"]["explained"] is True
    assert r["checkpoint"]["parts"]["mtp"]["tensors"] == 15
    text = run("Qwen/Qwen3.5-0.8B-Base", "--checkpoint", env=env)
    assert text.returncode == 0
    assert "checkpoint       488 tensors" in text.stdout
    assert "bytes, multi-token prediction" in text.stdout
    gated = run("meta-llama/Llama-3.2-1B", env=env)
    assert gated.returncode == 2 and gated.stderr.count("\n") == 1
    assert gated.stderr.startswith("llmcourse: model: meta-llama/Llama-3.2-1B is gated: "
                                   f"accept its licence at {hub.url}/meta-llama/Llama-3.2-1B")
    rev = run("Qwen/Qwen3-0.6B", "--revision", "main", "--json", env=env)
    assert json.loads(rev.stdout)["model"] == "Qwen/Qwen3-0.6B@main"


def test_the_release_is_todays_unless_named(capsys):
    """By default the plan follows the newest vLLM the course models, at that release's own
    gpu_memory_utilization; --vllm-version 0.11 gives 0.11's budget; an unmodelled release
    is one line on stderr and exit 2."""
    from llmcourse import cli
    cfg = lc.load_model("Llama-3.1-8B")
    for extra, release in (((), None), (("--vllm-version", "0.11"), "0.11")):
        assert cli.main(["Llama-3.1-8B", "--context", "16000", "--json", *extra]) == 0
        r = json.loads(capsys.readouterr().out)
        plan = lc.vllm_plan(cfg, "H100", max_model_len=16000, vllm_version=release)
        assert r["vllm"]["kv_tokens"] == plan.kv_tokens
        assert r["vllm"]["release"] == plan.release.label
        assert r["vllm"]["utilization"] == plan.release.default_utilization
    assert r["vllm"]["kv_tokens"] == 421_200          # 0.11's budget, as its log shows
    assert cli.main(["Llama-3.1-8B", "--vllm-version", "0.9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "vllm_version" in err


def test_no_speed_for_what_cannot_load_and_vllms_cache_dtypes(capsys):
    from llmcourse import cli
    assert cli.main(["Meta-Llama-3-70B", "--gpu", "H100", "--context", "8192", "--json"]) == 1
    r = json.loads(capsys.readouterr().out)
    assert r["decode"]["expected_tokens_per_s"] is None
    assert r["decode"]["withheld"].startswith("no speed: the weights")
    assert cli.main(["DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--context", "32768"]) == 0
    out = capsys.readouterr().out
    assert "no estimate with vLLM: outside the data: no MLA row" in out
    assert cli.main(["Llama-3.1-8B", "--kv-dtype", "int8_per_token_head", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    plan = lc.vllm_plan("Llama-3.1-8B", "H100", kv_cache_dtype="int8_per_token_head")
    assert r["vllm"]["kv_tokens"] == plan.kv_tokens and r["kv_cache"]["dtype"] == "int8"
    assert cli.main(["Llama-3.1-8B", "--kv-dtype", "int4_per_token_head",
                     "--vllm-version", "0.21"]) == 2
    assert "came in 0.24" in capsys.readouterr().err


def test_a_named_training_setup(capsys):
    from llmcourse import cli
    assert cli.main(["Llama-3.1-8B", "--setup", "hf-trainer-fsdp", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    mem = lc.training_memory("Llama-3.1-8B", 4096, 1,
                             **lc.setup_settings("hf-trainer-fsdp", dp=8))
    assert r["training"]["setup"] == "hf-trainer-fsdp" and r["training"]["peak_bytes"] == mem.peak


def test_the_console_script_is_the_same_command():
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "llmcourse"]
    assert script.value == "llmcourse.cli:main"


def test_docs_hub_states_no_count_of_the_shipped_configs_that_is_wrong():
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "hub.md").read_text(encoding="utf-8")
    for n in re.findall(r"ships (\d+) real `config\.json`", text):
        assert int(n) == len(lc.list_models())
    assert "lc.list_models()" in text


def test_the_hybrid_manager_flag_charges_sliding_layers_in_full():
    base = ("gemma-3-1b-it", "--gpu", "H100", "--context", "32768", "--json")
    on, off = (json.loads(run(*base, *extra).stdout)
               for extra in ((), ("--disable-hybrid-kv-cache-manager",)))
    cfg = lc.load_model("gemma-3-1b-it")
    assert off["vllm"]["kv_tokens"] == lc.vllm_plan(
        cfg, "H100", max_model_len=32768, hybrid_kv_cache_manager=False).kv_tokens
    # five layers in six slide (a window of 512 of 32,768): charged in full, the same budget
    # holds under half the tokens
    assert off["vllm"]["kv_tokens"] * 2 < on["vllm"]["kv_tokens"]
