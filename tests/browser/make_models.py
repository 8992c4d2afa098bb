"""Writes small llama-shaped GGUF models for the report tests and the screenshot: the same random
weights as float32 (ref.gguf), quantized as a Q4_K_M file mixes types (model.gguf: Q6_K for
attn_v and ffn_down where llama.cpp gives them more bits, Q4_K elsewhere, norms in F32), and
that model with one tensor damaged (damaged.gguf: DAMAGED's weights noised before quantizing).
The quantizing is onnxq's (`onnxq quantize`, ggml's bytes). Its chat template tries to end the
page's script element, which the page must show as text.

usage: make_models.py ONNXQ OUTDIR [LAYERS [DIM]]
"""
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from gguf_tool import write_gguf  # noqa: E402

F32, Q4_K, Q6_K = 0, 12, 14
FORMAT = {Q4_K: "q4_k", Q6_K: "q6_k"}
DAMAGED = "blk.1.ffn_up.weight"
CHAT_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}</script><script>document.title='pwned'</script><!--"


def s(text):
    b = text.encode()
    return (8, struct.pack("<Q", len(b)) + b)


def u32(v): return (4, struct.pack("<I", v))
def f32(v): return (6, struct.pack("<f", v))
def str_arr(texts): return (9, struct.pack("<IQ", 8, len(texts)) + b"".join(s(t)[1] for t in texts))


def more_bits(i, n):  # llama.cpp's use_more_bits: the first and last eighth, and every third layer between
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def main():
    onnxq, out = sys.argv[1], sys.argv[2]
    layers = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    dim = int(sys.argv[4]) if len(sys.argv) > 4 else 256
    ffn, vocab = 2 * dim, 512
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(51)
    tensors = [("token_embd.weight", (dim, vocab), Q4_K)]
    for i in range(layers):
        p = f"blk.{i}."
        tensors += [(p + "attn_norm.weight", (dim,), F32), (p + "attn_q.weight", (dim, dim), Q4_K),
                    (p + "attn_k.weight", (dim, dim), Q4_K),
                    (p + "attn_v.weight", (dim, dim), Q6_K if more_bits(i, layers) else Q4_K),
                    (p + "attn_output.weight", (dim, dim), Q4_K), (p + "ffn_norm.weight", (dim,), F32),
                    (p + "ffn_gate.weight", (dim, ffn), Q4_K), (p + "ffn_up.weight", (dim, ffn), Q4_K),
                    (p + "ffn_down.weight", (ffn, dim), Q6_K if more_bits(i, layers) else Q4_K)]
    tensors += [("output_norm.weight", (dim,), F32), ("output.weight", (dim, vocab), Q6_K)]
    kvs = [(b"general.architecture", *s("llama")), (b"general.name", *s("report-test-llama")),
           (b"general.file_type", *u32(15)), (b"llama.block_count", *u32(layers)),
           (b"llama.context_length", *u32(4096)), (b"llama.embedding_length", *u32(dim)),
           (b"llama.feed_forward_length", *u32(ffn)), (b"llama.attention.head_count", *u32(8)),
           (b"llama.attention.head_count_kv", *u32(2)), (b"llama.rope.freq_base", *f32(10000.0)),
           (b"tokenizer.ggml.model", *s("gpt2")),
           (b"tokenizer.ggml.tokens", *str_arr([f"tok{i}" for i in range(vocab)])),
           (b"tokenizer.ggml.bos_token_id", *u32(1)), (b"tokenizer.chat_template", *s(CHAT_TEMPLATE))]

    def quantized(name, values, t):
        path = os.path.join(out, "rows.npy")
        np.save(path, values.astype(np.float32))
        subprocess.run([onnxq, "-q", "quantize", "--raw", path, "--packed-format", FORMAT[t], "-o", path + ".bin"],
                       check=True)
        data = open(path + ".bin", "rb").read()
        os.remove(path)
        os.remove(path + ".bin")
        return data

    ref, model, damaged = [], [], []
    for name, ne, t in tensors:
        shape = tuple(reversed(ne))
        values = (1.0 + 0.1 * rng.standard_normal(shape) if name.endswith("norm.weight")
                  else rng.standard_normal(shape) * 0.02).astype(np.float32)
        raw32 = values.tobytes()
        ref.append([name.encode(), ne, F32, 0, raw32])
        packed = raw32 if t == F32 else quantized(name, values, t)
        model.append([name.encode(), ne, t, 0, packed])
        if name == DAMAGED:
            noisy = values + rng.standard_normal(shape).astype(np.float32) * 0.02
            packed = quantized(name, noisy, t)
        damaged.append([name.encode(), ne, t, 0, packed])
    write_gguf(os.path.join(out, "ref.gguf"), kvs, ref, 32)
    write_gguf(os.path.join(out, "model.gguf"), kvs, model, 32)
    write_gguf(os.path.join(out, "damaged.gguf"), kvs, damaged, 32)


if __name__ == "__main__":
    main()
