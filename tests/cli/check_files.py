"""Test helper for tests/cli/check.sh: crafted GGUF files, each with the findings `onnxq check`
must report (an independent writer; nothing here uses onnxq).

Usage: check_files.py OUT_DIR   writes OUT_DIR/<name>.gguf and OUT_DIR/expected.txt, one line a file:
  <name>.gguf EXIT CODE[,CODE...]   (EXIT 0: warnings only or clean, 4: errors; "-" for no findings)
"""
import os
import struct
import sys

T_U32, T_I32, T_F32, T_STR, T_ARR = 4, 5, 6, 8, 9


class W:
    def __init__(self, e="<"):
        self.e = e

    def u32(self, v): return struct.pack(self.e + "I", v)
    def u64(self, v): return struct.pack(self.e + "Q", v)
    def s(self, b): return self.u64(len(b)) + b
    def str_kv(self, k, v): return (k, T_STR, self.s(v))
    def u32_kv(self, k, v): return (k, T_U32, self.u32(v))
    def arr(self, k, et, items): return (k, T_ARR, self.u32(et) + self.u64(len(items)) + b"".join(items))
    def strs(self, k, xs): return self.arr(k, T_STR, [self.s(x) for x in xs])
    def f32s(self, k, xs): return self.arr(k, T_F32, [struct.pack(self.e + "f", x) for x in xs])
    def i32s(self, k, xs): return self.arr(k, T_I32, [struct.pack(self.e + "i", x) for x in xs])

    def f32(self, *xs): return struct.pack(self.e + "%df" % len(xs), *xs)

    def gguf(self, kvs, tensors, alignment=32, magic=b"GGUF", pad=b"\0", tail=b"", cut=0):
        """tensors: (name, ne, type, raw, offset or None). Data placed at its offset in the data section."""
        out = magic + self.u32(3) + self.u64(len(tensors)) + self.u64(len(kvs))
        for k, t, payload in kvs:
            out += self.s(k) + self.u32(t) + payload
        offsets, nxt = [], 0
        for name, ne, t, raw, off in tensors:
            off = nxt if off is None else off
            offsets.append(off)
            nxt = -(-(off + len(raw)) // alignment) * alignment
        for (name, ne, t, raw, _), off in zip(tensors, offsets):
            out += self.s(name) + self.u32(len(ne)) + b"".join(self.u64(d) for d in ne) + self.u32(t) + self.u64(off)
        out += b"\0" * (-len(out) % alignment)
        end = max([-(-(o + len(r[3])) // alignment) * alignment for o, r in zip(offsets, tensors)] or [0])
        blob = bytearray(pad * end)
        for (_, _, _, raw, _), off in zip(tensors, offsets):
            blob[off:off + len(raw)] = raw
        data = bytes(out) + bytes(blob) + tail
        return data[:len(data) - cut] if cut else data


def vocab(w, n=4, scores=None, types=None):
    return [w.str_kv(b"general.architecture", b"llama"), w.strs(b"tokenizer.ggml.tokens", [b"<s>", b"a", b"b", b"c"][:n]),
            w.f32s(b"tokenizer.ggml.scores", [0.0] * (n if scores is None else scores)),
            w.i32s(b"tokenizer.ggml.token_type", [1] * (n if types is None else types)),
            w.u32_kv(b"tokenizer.ggml.bos_token_id", 0)]


def files():
    w = W()
    emb = lambda rows=4: (b"token_embd.weight", (8, rows), 0, w.f32(*([0.5] * (8 * rows))), None)
    small = lambda name=b"x", off=None, n=3: (name, (n,), 0, w.f32(*range(n)), off)
    benign = (b"{% set ns = namespace(found=false) %}{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n"
              b"{% endfor %}{# evaluate, execute, system prompt #}")
    yield "clean", 0, [], w.gguf(vocab(w) + [w.str_kv(b"tokenizer.chat_template", benign)], [emb(), small()])
    yield "w_control_key", 0, ["control-chars"], w.gguf([w.u32_kv(b"evil\x1b[2Jkey", 1)], [small()])
    yield "w_control_name", 0, ["control-chars"], w.gguf([], [small(b"bell\x07name")])
    yield "w_control_value", 0, ["control-chars"], w.gguf(
        [w.str_kv(b"general.name", b"model\x1b]0;pwned\x07"), w.strs(b"some.list", [b"ok", b"c1\xc2\x9bm"])], [small()])
    yield "w_invalid_utf8", 0, ["invalid-utf8"], w.gguf([w.str_kv(b"general.name", b"caf\xe9")], [small()])
    yield "w_template_globals", 0, ["chat-template-internals"], w.gguf(
        [w.str_kv(b"tokenizer.chat_template", b"{{ cycler.__init__.__globals__.os.popen('id').read() }}")], [small()])
    yield "w_template_subclasses", 0, ["chat-template-internals"], w.gguf(
        [w.str_kv(b"tokenizer.chat_template.tool_use", b"{{ ''.__class__.__mro__[1].__subclasses__() }}")], [small()])
    yield "w_template_escaped", 0, ["chat-template-internals"], w.gguf(
        [w.str_kv(b"tokenizer.chat_template", b"{{ ()|attr('\\x5f\\x5fclass\\x5f\\x5f') }}")], [small()])
    yield "w_tokenizer_lengths", 0, ["tokenizer-lengths"], w.gguf(vocab(w, scores=3), [emb()])
    yield "w_vocab_rows", 0, ["vocab-size"], w.gguf(vocab(w), [emb(5)])
    yield "w_token_id", 0, ["token-id-range"], w.gguf(vocab(w) + [w.u32_kv(b"tokenizer.ggml.eos_token_id", 9)], [emb()])
    yield "w_padding", 0, ["nonzero-padding"], w.gguf([], [small(b"a"), small(b"b")], pad=b"\xaa")
    yield "w_trailing", 0, ["trailing-bytes"], w.gguf([], [small()], tail=b"hidden payload")
    yield "w_alignment", 0, ["unusual-alignment"], w.gguf([w.u32_kv(b"general.alignment", 64)], [small()], alignment=64)
    be = W(">")
    yield "w_fugg", 0, ["fugg-magic", "big-endian"], be.gguf([be.str_kv(b"general.name", b"be")],
                                                              [(b"x", (3,), 0, be.f32(1, 2, 3), None)], magic=b"FUGG")
    yield "e_gap", 4, ["data-gap"], w.gguf([], [small(b"a"), small(b"b", 64)])
    yield "e_overlap", 4, ["data-overlap"], w.gguf([], [small(b"a", 0, 8), small(b"b", 0)])
    yield "e_out_of_order", 4, ["data-out-of-order"], w.gguf([], [small(b"a", 32), small(b"b", 0)])
    yield "e_non_ascii_key", 4, ["non-ascii-key"], w.gguf([w.u32_kv("modèle.taille".encode(), 1)], [small()])
    yield "e_long_key", 4, ["key-too-long"], w.gguf([w.u32_kv(b"k" * 65536, 1)], [small()])
    yield "e_long_name", 4, ["tensor-name-too-long"], w.gguf([], [small(b"n" * 64)])
    yield "e_nul_names", 4, ["duplicate-tensor", "control-chars"], w.gguf([], [small(b"a\0x"), small(b"a\0y")])
    yield "e_empty_key", 4, ["empty-key"], w.gguf([w.u32_kv(b"", 1)], [small()])
    yield "e_nested_array", 4, ["nested-array"], w.gguf([w.arr(b"a.nested", T_ARR, [w.u32(T_U32) + w.u64(1) + w.u32(7)])],
                                                          [small()])
    yield "e_cut_padding", 4, ["data-section-truncated"], w.gguf([], [small()], cut=4)
    # Two independent defects, two findings; and one file with many.
    yield "e_two_defects", 4, ["duplicate-key", "tensor-name-too-long"], w.gguf(
        [w.u32_kv(b"a.b", 1), w.u32_kv(b"a.b", 2)], [small(b"n" * 70)])
    yield "e_several", 4, ["duplicate-key", "non-ascii-key", "data-gap", "control-chars", "chat-template-internals",
                           "tokenizer-lengths", "unusual-alignment"], w.gguf(
        vocab(w, types=2) + [w.u32_kv(b"general.alignment", 64), w.u32_kv(b"dup", 1), w.u32_kv(b"dup", 2),
                             w.u32_kv("clé".encode(), 3), w.str_kv(b"general.name", b"\x1b[31mred"),
                             w.str_kv(b"tokenizer.chat_template", b"{{ self.__init__.__globals__ }}")],
        [emb(), small(b"x", 1024)], alignment=64)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, code, findings, data in files():
        open(os.path.join(out, name + ".gguf"), "wb").write(data)
        lines.append("%s.gguf %d %s" % (name, code, ",".join(findings) or "-"))
    # A split model whose shards disagree on split.tensors.count (the reader checks only shard 1's).
    w = W()
    for i, total in ((1, 2), (2, 3)):
        kvs = [(b"split.no", 2, struct.pack("<H", i - 1)),
               (b"split.count", 2, struct.pack("<H", 2)), (b"split.tensors.count", T_I32, struct.pack("<i", total))]
        open(os.path.join(out, "split-%05d-of-00002.gguf" % i), "wb").write(
            w.gguf(kvs, [(b"t%d" % i, (3,), 0, w.f32(1, 2, 3), None)]))
    lines.append("split-00001-of-00002.gguf 0 split-keys-disagree")
    open(os.path.join(out, "expected.txt"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
