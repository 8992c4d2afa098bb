"""Test helper: writes small GGUF models whose metadata looks like real llama.cpp files (a tokenizer
with special tokens, GQA, sliding-window and recurrent architectures, experts, missing keys), with
zero-filled tensors of the right sizes, for the model-view tests (info, tokens, estimate).

gguf_tool.write_gguf does the writing; the facts of each model are in MODELS below, and
`model_files.py OUTDIR` writes OUTDIR/<name>.gguf for each of them plus OUTDIR/models.json.
"""
import json
import struct
import sys

from gguf_tool import write_gguf

F32, F16, Q4_0, Q8_0 = 0, 1, 2, 8
BYTES = {F32: (1, 4), F16: (1, 2), Q4_0: (32, 18), Q8_0: (32, 34)}  # (block elements, block bytes)


def u32(v): return (4, struct.pack("<I", v))
def i32(v): return (5, struct.pack("<i", v))
def f32(v): return (6, struct.pack("<f", v))
def boolean(v): return (7, struct.pack("<B", 1 if v else 0))
def s(text):
    b = text.encode()
    return (8, struct.pack("<Q", len(b)) + b)
def arr(elem_type, payloads): return (9, struct.pack("<IQ", elem_type, len(payloads)) + b"".join(payloads))
def str_arr(texts): return arr(8, [s(t)[1] for t in texts])
def u32_arr(values): return arr(4, [struct.pack("<I", v) for v in values])
def i32_arr(values): return arr(5, [struct.pack("<i", v) for v in values])
def f32_arr(values): return arr(6, [struct.pack("<f", v) for v in values])


def tensor(name, ne, t):
    n = 1
    for d in ne:
        n *= d
    per, size = BYTES[t]
    return [name.encode(), tuple(ne), t, 0, bytes(n // per * size)]


TOKENS = ["<unk>", "<s>", "</s>", "<|eot_id|>", "\u2581hello", "\u0120world", "a\tb", "x|y", "back`tick", "<pad>"] + \
         [f"w{i}" for i in range(30)]
TYPES = [2, 3, 3, 3, 1, 1, 1, 1, 4, 1] + [1] * 30  # <pad> is special only by tokenizer.ggml.padding_token_id
TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}{% endfor %}"


def tokenizer():
    return [("tokenizer.ggml.model", s("llama")), ("tokenizer.ggml.pre", s("default")),
            ("tokenizer.ggml.tokens", str_arr(TOKENS)), ("tokenizer.ggml.token_type", i32_arr(TYPES)),
            ("tokenizer.ggml.scores", f32_arr([-float(i) for i in range(len(TOKENS))])),
            ("tokenizer.ggml.merges", str_arr(["h e", "l l", "o w"])),
            ("tokenizer.ggml.bos_token_id", u32(1)), ("tokenizer.ggml.eos_token_id", u32(2)),
            ("tokenizer.ggml.eot_token_id", u32(3)), ("tokenizer.ggml.unknown_token_id", u32(0)),
            ("tokenizer.ggml.padding_token_id", u32(9)), ("tokenizer.ggml.add_bos_token", boolean(True)),
            ("tokenizer.ggml.add_eos_token", boolean(False)), ("tokenizer.chat_template", s(TEMPLATE))]


def llama_layers(n, kv_width=16, prefix="blk"):
    ts = []
    for i in range(n):
        p = f"{prefix}.{i}."
        ts += [tensor(p + "attn_norm.weight", [64], F32), tensor(p + "attn_q.weight", [64, 64], Q4_0),
               tensor(p + "attn_k.weight", [64, kv_width], Q4_0), tensor(p + "attn_v.weight", [64, kv_width], Q4_0),
               tensor(p + "attn_output.weight", [64, 64], Q4_0), tensor(p + "ffn_norm.weight", [64], F32),
               tensor(p + "ffn_gate.weight", [64, 128], Q4_0), tensor(p + "ffn_up.weight", [64, 128], Q4_0),
               tensor(p + "ffn_down.weight", [128, 64], Q4_0)]
    return ts


def llama(arch="llama", kv_heads=2, extra=()):
    kv = [("general.architecture", s(arch)), ("general.name", s("Tiny Llama | test")),
          ("general.size_label", s("200K")), ("general.file_type", u32(15)),
          (f"{arch}.context_length", u32(8192)), (f"{arch}.embedding_length", u32(64)),
          (f"{arch}.block_count", u32(4)), (f"{arch}.feed_forward_length", u32(128)),
          (f"{arch}.attention.head_count", u32(8)),
          (f"{arch}.attention.head_count_kv", u32_arr(kv_heads) if isinstance(kv_heads, list) else u32(kv_heads)),
          (f"{arch}.rope.freq_base", f32(500000.0)), (f"{arch}.attention.layer_norm_rms_epsilon", f32(1e-5))]
    kv += list(extra) + tokenizer()
    ts = [tensor("token_embd.weight", [64, len(TOKENS)], F16)] + llama_layers(4)
    ts += [tensor("output_norm.weight", [64], F32), tensor("output.weight", [64, len(TOKENS)], Q8_0)]
    return kv, ts


def mamba():
    kv = [("general.architecture", s("mamba")), ("mamba.context_length", u32(1048576)),
          ("mamba.embedding_length", u32(64)), ("mamba.block_count", u32(2)),
          ("mamba.ssm.conv_kernel", u32(4)), ("mamba.ssm.inner_size", u32(128)),
          ("mamba.ssm.state_size", u32(16)), ("mamba.ssm.time_step_rank", u32(4))]
    ts = [tensor("token_embd.weight", [64, 40], F16)]
    for i in range(2):
        ts += [tensor(f"blk.{i}.ssm_in.weight", [64, 256], Q4_0), tensor(f"blk.{i}.ssm_out.weight", [128, 64], Q4_0)]
    ts += [tensor("output_norm.weight", [64], F32)]
    return kv, ts


def moe():
    a = "qwen3moe"
    kv = [("general.architecture", s(a)), (f"{a}.context_length", u32(32768)), (f"{a}.embedding_length", u32(64)),
          (f"{a}.block_count", u32(2)), (f"{a}.feed_forward_length", u32(32)),
          (f"{a}.expert_feed_forward_length", u32(64)), (f"{a}.expert_count", u32(4)),
          (f"{a}.expert_used_count", u32(2)), (f"{a}.attention.head_count", u32(4)),
          (f"{a}.attention.head_count_kv", u32(1)), (f"{a}.attention.key_length", u32(32)),
          (f"{a}.attention.value_length", u32(32)), (f"{a}.vocab_size", u32(100))]
    ts = [tensor("token_embd.weight", [64, 100], F16)]
    for i in range(2):
        p = f"blk.{i}."
        ts += [tensor(p + n, [64, 64, 4], Q4_0) for n in ("ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_down_exps.weight")]
        ts += [tensor(p + "ffn_gate_inp.weight", [64, 4], F32)]
    return kv, ts


def bare():
    kv = [("general.architecture", s("mystery")), ("mystery.block_count", s("four")),
          ("mystery.attention.head_count", u32(4))]
    return kv, [tensor("token_embd.weight", [64, 40], F16), tensor("blk.0.w", [64], F32), tensor("blk.1.w", [64], F32)]


MODELS = {
    "llama": llama(),
    "perlayer": llama(kv_heads=[2, 4, 2, 4]),
    "gemma2": llama("gemma2", extra=[("gemma2.attention.sliding_window", u32(1024))]),
    "mamba": mamba(),
    "moe": moe(),
    "bare": bare(),
}

if __name__ == "__main__":
    out = sys.argv[1]
    for name, (kv, ts) in MODELS.items():
        write_gguf(f"{out}/{name}.gguf", [(k.encode(), t, p) for k, (t, p) in kv], ts, 32)
    json.dump({"tokens": TOKENS, "types": TYPES, "template": TEMPLATE}, open(f"{out}/models.json", "w"))
