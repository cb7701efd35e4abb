# SPDX-License-Identifier: MIT
"""zoo_generate: Hugging Face generate() on a small randomly initialised Llama, greedy, batch 1.

    python3 kernels/torch/zoo_generate.py [static|static_eager|dynamic] [CALLS]      (default: static 3)
    python3 kernels/torch/zoo_generate.py bench [CALLS]                               (default: 4)
    python3 kernels/torch/zoo_generate.py static_user [CALLS]                         (default: 3)

The model is built from a LlamaConfig (8 layers, hidden 512, 8 attention
heads, 4 key-value heads, vocabulary 32000, intermediate size 1024) with
torch.manual_seed(0), nothing downloaded, in bfloat16 on the GPU.  The
prompt is 16 fixed random token ids (no tokenizer).  Each of CALLS calls in
a row is

    model.generate(prompt, attention_mask=ones, max_new_tokens=96, min_new_tokens=96, do_sample=False,
                   pad_token_id=0, return_dict_in_generate=True, output_logits=True, ...)

with, by the mode:

    static         cache_implementation="static": generate compiles the model's forward by itself
                   (its automatic torch.compile, CompileConfig's default mode "reduce-overhead": CUDA
                   graphs of PyTorch's own) and decodes into a static KV cache
    static_eager   cache_implementation="static", disable_compile=True: the static cache, eager
    dynamic        the default dynamic cache, eager

    bench          issue 25's benchmark mode (tools/dev/bench-issue25 --hf): the dynamic cache and the
                   static cache with disable_compile=True, one untimed call of each (the warm-up:
                   the shim learns and graphs there), then CALLS rounds of one call of each,
                   alternating; stderr: "ms_per_token dynamic X" and "ms_per_token static_eager X",
                   the medians over the timed calls of each (run it without the shim, under auto,
                   and under observe for the ceiling)

    static_user    the static cache and its automatic compile as issue 40's user ran it (it crashed
                   there): torch.backends.cuda.matmul.allow_tf32 = False, a 12-token prompt, and only

                       model.generate(prompt, max_new_tokens=96, min_new_tokens=96, do_sample=False,
                                      cache_implementation="static")

                   (no attention mask, generate's default outputs: the token ids), each call under
                   torch.inference_mode() and followed by torch.cuda.synchronize(); CALLS calls to
                   warm up, then CALLS timed; prints every call's token ids and a checksum of them

min_new_tokens=96 keeps the end-of-sequence token from being chosen, so
every call generates all 96 tokens (checked).  A member of the zoo
(tests/gpu/zoo.sh).

stdout: the prompt, each call's 96 token ids and a SHA-256 of its logits (all
96 steps' float32 scores; static_user: none), and a checksum of everything: byte-comparable
with and without the shim.  stderr: versions, how many graphs Dynamo
compiled, each call's time ("zoo-time: call N: X ms, Y ms a token") and
"median_us X", the median over calls of the time per token in
microseconds, and "zoo-host: calibration X ms", the time of a fixed
pure-Python loop, which tells which of a bimodal host's speeds the process
ran at.  Exit status: 0; 1 fewer tokens than asked; 77 without torch,
transformers or a CUDA device.
"""
import hashlib
import os
import sys
import time

from bench_common import import_torch

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
NEW_TOKENS, PROMPT_LEN = 96, 16
USER_PROMPT_LEN = 12  # static_user: issue 40's prompt


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "static"
    if mode not in ("static", "static_eager", "dynamic", "bench", "static_user"):
        print("usage: zoo_generate.py [static|static_eager|dynamic|bench|static_user] [CALLS]", file=sys.stderr)
        return 1
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else (4 if mode == "bench" else 3)
    torch = import_torch("zoo_generate")
    if torch is None:
        return 77
    try:
        import transformers
        from transformers import LlamaConfig, LlamaForCausalLM
    except ImportError as err:
        print(f"zoo_generate: no transformers ({err}); skipping", file=sys.stderr)
        return 77
    print(f"zoo-note: torch {torch.__version__}, transformers {transformers.__version__}, "
          f"{torch.cuda.get_device_name(0)}, mode {mode}", file=sys.stderr)
    if mode == "static_user":
        torch.backends.cuda.matmul.allow_tf32 = False

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32000, hidden_size=512, intermediate_size=1024, num_hidden_layers=8,
                         num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=512,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0)
    model = LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
    gen = torch.Generator().manual_seed(1234)
    if mode == "static_user":
        return user_calls(torch, model, torch.randint(3, config.vocab_size, (1, USER_PROMPT_LEN), generator=gen),
                          calls)
    prompt = torch.randint(3, config.vocab_size, (1, PROMPT_LEN), generator=gen).to("cuda")
    mask = torch.ones_like(prompt)
    print("prompt " + " ".join(str(t) for t in prompt[0].tolist()))

    # The calls: (label, cache mode, timed); bench: one untimed call of each cache, then CALLS rounds of both.
    if mode == "bench":
        caches = ("dynamic", "static_eager")
        plan = [(f"warm-up {c}", c, False) for c in caches]
        plan += [(f"call {i} {c}", c, True) for i in range(calls) for c in caches]
    else:
        plan = [(f"call {i}", mode, True) for i in range(calls)]
    digest = hashlib.sha256()
    per_token_us = {}
    for label, cache, timed in plan:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = model.generate(prompt, **generate_kwargs(mask, cache))
        torch.cuda.synchronize()
        took = time.perf_counter() - t0
        ids = out.sequences[0, PROMPT_LEN:].tolist()
        logits = torch.stack([step.float() for step in out.logits]).cpu().numpy().tobytes()
        if len(ids) != NEW_TOKENS:
            print(f"{label} generated {len(ids)} tokens, not {NEW_TOKENS}")
            return 1
        print(f"{label} tokens " + " ".join(str(t) for t in ids))
        print(f"{label} logits {hashlib.sha256(logits).hexdigest()[:16]}")
        digest.update(repr(ids).encode())
        digest.update(logits)
        if timed:
            per_token_us.setdefault(cache, []).append(took * 1e6 / NEW_TOKENS)
        print(f"zoo-time: {label}: {took * 1e3:.1f} ms, {took * 1e3 / NEW_TOKENS:.3f} ms a token", file=sys.stderr)
    print(f"checksum {digest.hexdigest()[:16]}")
    print_notes()
    for cache, times in per_token_us.items():
        ordered = sorted(times)
        if mode == "bench":
            print(f"ms_per_token {cache} {ordered[len(ordered) // 2] / 1e3:.4f}", file=sys.stderr)
        else:
            print(f"median_us {ordered[len(ordered) // 2]:.1f}", file=sys.stderr)
    return 0


def user_calls(torch, model, prompt, calls):
    """static_user: issue 40's calls, CALLS to warm up and CALLS timed; prints each call's token ids."""
    print("prompt " + " ".join(str(t) for t in prompt[0].tolist()))
    prompt = prompt.to("cuda")
    digest = hashlib.sha256()
    per_token_us = []
    for label, timed in [(f"warm-up {i}", False) for i in range(calls)] + [(f"call {i}", True) for i in range(calls)]:
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(prompt, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False,
                                 cache_implementation="static")
        torch.cuda.synchronize()
        took = time.perf_counter() - t0
        ids = out[0, USER_PROMPT_LEN:].tolist()
        if len(ids) != NEW_TOKENS:
            print(f"{label} generated {len(ids)} tokens, not {NEW_TOKENS}")
            return 1
        print(f"{label} tokens " + " ".join(str(t) for t in ids))
        digest.update(repr(ids).encode())
        if timed:
            per_token_us.append(took * 1e6 / NEW_TOKENS)
        print(f"zoo-time: {label}: {took * 1e3:.1f} ms, {took * 1e3 / NEW_TOKENS:.3f} ms a token", file=sys.stderr)
    print(f"checksum {digest.hexdigest()[:16]}")
    print_notes()
    print(f"median_us {sorted(per_token_us)[len(per_token_us) // 2]:.1f}", file=sys.stderr)
    return 0


def print_notes():
    """stderr: the host's calibration and how many graphs Dynamo compiled."""
    print(f"zoo-host: calibration {host_calibration_ms():.2f} ms", file=sys.stderr)
    try:
        from torch._dynamo.utils import counters
        graphs = counters["stats"]["unique_graphs"]
    except Exception:  # a torch without these counters: not needed for the result
        graphs = "?"
    print(f"zoo-note: Dynamo graphs compiled: {graphs} (static and static_user: generate's automatic compile; "
          "else 0)", file=sys.stderr)


def host_calibration_ms():
    """The fastest of 5 timings of a fixed pure-Python loop: tells which of the host's speeds this process ran at."""
    best = None
    for _ in range(5):
        t0 = time.perf_counter()
        total = 0
        for i in range(200000):
            total += i & 7
        took = (time.perf_counter() - t0) * 1e3
        best = took if best is None or took < best else best
    return best


def generate_kwargs(mask, cache):
    """generate()'s arguments for a cache mode: static (its automatic compile), static_eager or dynamic."""
    kwargs = dict(attention_mask=mask, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False,
                  pad_token_id=0, return_dict_in_generate=True, output_logits=True)
    if cache in ("static", "static_eager"):
        kwargs["cache_implementation"] = "static"
    if cache == "static_eager":
        kwargs["disable_compile"] = True
    return kwargs


if __name__ == "__main__":
    sys.exit(main())
