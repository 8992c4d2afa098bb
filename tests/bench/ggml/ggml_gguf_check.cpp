// A GGUF file as ggml sees it: opened with ggml's own reader (gguf_init_from_file), every tensor's
// bytes read and checked by ggml_validate_row_data. Given the model it was quantized from, each
// tensor is also recomputed the way llama-quantize does it, tensor by tensor at one thread (the
// source converted to float32 by ggml's to_float, then ggml_quantize_chunk), and the bytes compared;
// copied tensors must equal the source's. The time of that ggml work is printed: scripts/bench-quantize
// sets it against `onnxq quantize` (which reads and writes the files besides).
//
// Not built by CMake: scripts/bench-quantize --ggml DIR compiles it against DIR's headers and
// libggml-base. Usage: ggml_gguf_check OUT.gguf [IN.gguf]   (exit 0: all checks passed)
#include <ggml.h>
#include <gguf.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct GgufFile {
  gguf_context* gguf = nullptr;
  ggml_context* tensors = nullptr;
  FILE* file = nullptr;
  std::string path;

  explicit GgufFile(const char* p) : path(p) {
    gguf_init_params params{true, &tensors};
    gguf = gguf_init_from_file(p, params);
    file = std::fopen(p, "rb");
  }
  ~GgufFile() {
    if (file) std::fclose(file);
    if (gguf) gguf_free(gguf);
    if (tensors) ggml_free(tensors);
  }
  bool read(int64_t id, std::vector<uint8_t>& out) const {
    out.resize(gguf_get_tensor_size(gguf, id));
    const long offset = static_cast<long>(gguf_get_data_offset(gguf) + gguf_get_tensor_offset(gguf, id));
    return std::fseek(file, offset, SEEK_SET) == 0 && std::fread(out.data(), 1, out.size(), file) == out.size();
  }
  const ggml_tensor* tensor(int64_t id) const { return ggml_get_tensor(tensors, gguf_get_tensor_name(gguf, id)); }
};

int fail(const std::string& message) {
  std::fprintf(stderr, "ggml_gguf_check: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return fail("usage: ggml_gguf_check OUT.gguf [IN.gguf]");
  const GgufFile out(argv[1]);
  if (!out.gguf || !out.file) return fail(std::string(argv[1]) + ": ggml's gguf reader refused it");
  std::unique_ptr<GgufFile> in;
  if (argc == 3) {
    in = std::make_unique<GgufFile>(argv[2]);
    if (!in->gguf || !in->file) return fail(std::string(argv[2]) + ": ggml's gguf reader refused it");
    if (gguf_get_n_tensors(in->gguf) != gguf_get_n_tensors(out.gguf)) return fail("the tensor counts differ");
  }
  std::vector<uint8_t> bytes, source, mine;
  std::vector<float> values;
  double ggml_seconds = 0;
  int64_t quantized = 0, copied = 0;
  const int64_t n = gguf_get_n_tensors(out.gguf);
  for (int64_t id = 0; id < n; ++id) {
    const std::string name = gguf_get_tensor_name(out.gguf, id);
    const ggml_tensor* t = out.tensor(id);
    const ggml_type type = gguf_get_tensor_type(out.gguf, id);
    if (!out.read(id, bytes)) return fail(name + ": cannot read its bytes");
    if (bytes.size() != ggml_nbytes(t)) return fail(name + ": its size is not ggml_nbytes");
    if (!ggml_validate_row_data(type, bytes.data(), bytes.size()))
      return fail(name + ": ggml_validate_row_data refused it");
    if (!in) continue;
    if (name != gguf_get_tensor_name(in->gguf, id))
      return fail(name + ": the input's tensor " + std::to_string(id) + " is " + gguf_get_tensor_name(in->gguf, id));
    const ggml_tensor* src = in->tensor(id);
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
      if (src->ne[d] != t->ne[d]) return fail(name + ": the shapes differ");
    if (!in->read(id, source)) return fail(name + ": cannot read the input's bytes");
    const ggml_type from = gguf_get_tensor_type(in->gguf, id);
    if (from == type) {
      if (source != bytes) return fail(name + ": copied, but its bytes differ from the input's");
      ++copied;
      continue;
    }
    // What llama-quantize does for this tensor, at one thread.
    const auto start = std::chrono::steady_clock::now();
    const int64_t elements = ggml_nelements(src);
    values.resize(elements);
    if (from == GGML_TYPE_F32)
      std::memcpy(values.data(), source.data(), elements * sizeof(float));
    else
      ggml_get_type_traits(from)->to_float(source.data(), values.data(), elements);
    mine.resize(bytes.size());
    const size_t size =
        ggml_quantize_chunk(type, values.data(), mine.data(), 0, elements / src->ne[0], src->ne[0], nullptr);
    ggml_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (size != bytes.size() || mine != bytes) {
      size_t i = 0;
      while (i < bytes.size() && mine[i] == bytes[i]) ++i;
      return fail(name + ": " + ggml_type_name(type) + " bytes differ from ggml_quantize_chunk's at byte " +
                  std::to_string(i));
    }
    ++quantized;
  }
  std::printf("%s: %lld tensors read by ggml's gguf reader, every row valid", argv[1], static_cast<long long>(n));
  if (in)
    std::printf(
        "; %lld quantized tensors equal ggml_quantize_chunk on %s, %lld copied ones equal its bytes; ggml_seconds %.3f",
        static_cast<long long>(quantized), argv[2], static_cast<long long>(copied), ggml_seconds);
  std::printf("\n");
  return 0;
}
