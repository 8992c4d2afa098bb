// .npy reader: preamble, header dict, descr -> dtype, then the data checked against the shape.
#include "onnxq/npy/reader.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "npy/header_dict.hpp"
#include "npy/unicode.hpp"
#include "onnxq/core/checked.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/io/mapped_file.hpp"
#include "onnxq/io/read_all.hpp"

namespace onnxq {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string src(std::string_view source) { return std::string(source); }

struct Descr {
  DType dtype;
  std::size_t item_bytes;
  bool byteswap;
  std::size_t unicode_chars;
};

// '<f4', '|u1', '>i8', '<U12' ... -> dtype; numpy spells one-byte items with '|'.
Descr parse_descr(const std::string& d, std::string_view source) {
  const auto bad = [&](ErrorKind kind, const std::string& why) -> Descr {
    fail(kind, src(source) + ": .npy descr '" + d + "' " + why);
  };
  if (d.size() < 2) return bad(ErrorKind::InvalidInput, "is not a dtype string");
  const char order = d[0], kind = d[1];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return bad(ErrorKind::InvalidInput, "has no byte-order character");
  const std::string size_text = d.substr(2);
  if (size_text.empty() || size_text.size() > 9 ||
      !std::all_of(size_text.begin(), size_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return bad(kind == 'O' ? ErrorKind::Unsupported : ErrorKind::InvalidInput,
               kind == 'O' ? "is an object array; only plain numeric, bool and unicode arrays are supported"
                           : "has no valid item size");
  const std::size_t size = std::stoul(size_text);
  const bool big = order == '>';
  if (kind == 'U') return {DType::String, size * 4, big, size};
  struct Row {
    char kind;
    std::size_t size;
    DType dtype;
  };
  static constexpr Row kRows[] = {
      {'b', 1, DType::Bool},      {'u', 1, DType::UInt8},       {'i', 1, DType::Int8},  {'u', 2, DType::UInt16},
      {'u', 4, DType::UInt32},    {'u', 8, DType::UInt64},      {'i', 2, DType::Int16}, {'i', 4, DType::Int32},
      {'i', 8, DType::Int64},     {'f', 2, DType::Float16},     {'f', 4, DType::Float}, {'f', 8, DType::Double},
      {'c', 8, DType::Complex64}, {'c', 16, DType::Complex128},
  };
  for (const Row& r : kRows) {
    if (r.kind != kind || r.size != size) continue;
    if (order == '|' && size > 1) return bad(ErrorKind::InvalidInput, "gives no byte order for a multi-byte type");
    // Complex items swap each of their two float halves, not the whole item.
    return {r.dtype, size, big && size > 1, 0};
  }
  if (kind == 'O')
    return bad(ErrorKind::Unsupported, "is an object array; only plain numeric, bool and unicode arrays are supported");
  if (kind == 'V') return bad(ErrorKind::Unsupported, "is a structured or void dtype; not supported");
  return bad(ErrorKind::Unsupported, "is not a supported dtype (bool, u1-u8, i1-i8, f2/f4/f8, c8/c16, U)");
}

std::uint32_t read_le(const std::byte* p, int n) {
  std::uint32_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::to_integer<std::uint32_t>(p[i]) << (8 * i);
  return v;
}

void byteswap_items(std::byte* p, std::size_t count, std::size_t unit) {
  for (std::size_t i = 0; i < count; ++i) std::reverse(p + i * unit, p + (i + 1) * unit);
}

}  // namespace

bool has_npy_magic(std::span<const std::byte> bytes) {
  return bytes.size() >= 6 && std::memcmp(bytes.data(), kMagic, 6) == 0;
}

NpyArrayInfo parse_npy_header(std::span<const std::byte> file, std::string_view source) {
  const auto bad = [&](const std::string& why) { invalid_input(src(source) + ": " + why); };
  if (file.size() < 10 || std::memcmp(file.data(), kMagic, 6) != 0) bad("not a .npy file (no \\x93NUMPY magic)");
  NpyArrayInfo info;
  const int major = std::to_integer<int>(file[6]), minor = std::to_integer<int>(file[7]);
  if (major < 1 || major > 3 || minor != 0)
    fail(ErrorKind::Unsupported, src(source) + ": .npy format version " + std::to_string(major) + "." +
                                     std::to_string(minor) + " is not supported (1.0, 2.0, 3.0 are)");
  info.major_version = major;
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  const std::size_t start = 8 + len_bytes;
  if (file.size() < start) bad(".npy preamble is truncated");
  const std::size_t header_len = read_le(file.data() + 8, static_cast<int>(len_bytes));
  if (header_len > kNpyMaxHeaderBytes)
    bad(".npy header length " + std::to_string(header_len) + " exceeds the limit of " +
        std::to_string(kNpyMaxHeaderBytes) + " bytes");
  if (header_len > file.size() - start)
    bad(".npy header of " + std::to_string(header_len) + " bytes runs past the end of the " +
        std::to_string(file.size()) + "-byte input");
  const std::string_view text(reinterpret_cast<const char*>(file.data() + start), header_len);
  // Versions 1 and 2 are latin-1; version 3 is UTF-8. The keys and values we accept are ASCII either way.
  if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80 || c == '\0'; }))
    bad(".npy header contains non-ASCII bytes");
  const npy_detail::HeaderDict dict = npy_detail::parse_header_dict(text, source);
  if (dict.fortran_order)
    fail(ErrorKind::Unsupported, src(source) + ": Fortran-order .npy arrays are not supported; save with C order");
  const Descr descr = parse_descr(dict.descr, source);
  info.dtype = descr.dtype;
  info.item_bytes = descr.item_bytes;
  info.byteswap = descr.byteswap;
  info.unicode_chars = descr.unicode_chars;
  info.shape = dict.shape;
  info.data_offset = start + header_len;

  const std::uint64_t count = shape_element_count(info.shape);
  const auto data_bytes = checked_mul(count, info.item_bytes);
  const std::size_t have = file.size() - info.data_offset;
  if (!data_bytes) bad(".npy shape " + shape_to_string(info.shape) + " needs more than 2^64 data bytes");
  if (*data_bytes != have)
    bad(".npy shape " + shape_to_string(info.shape) + " of " + dict.descr + " needs " + std::to_string(*data_bytes) +
        " data bytes, found " + std::to_string(have));
  // Zero-width items ('<U0') pass the length check at any count, yet each becomes a string in
  // memory: bound their count by the input size so that a tiny file cannot demand gigabytes.
  if (info.item_bytes == 0 && count > file.size())
    bad(".npy shape " + shape_to_string(info.shape) + " of zero-width " + dict.descr + " has " + std::to_string(count) +
        " elements, more than the " + std::to_string(file.size()) + " bytes of the input");
  return info;
}

namespace {

Tensor decode(const NpyArrayInfo& info, std::span<const std::byte> file, const std::shared_ptr<const void>* keep_alive,
              std::string_view source) {
  const std::span<const std::byte> data = file.subspan(info.data_offset);
  if (info.dtype == DType::String)
    return Tensor::from_strings(
        info.shape, npy_detail::decode_utf32_items(data, static_cast<std::size_t>(shape_element_count(info.shape)),
                                                   info.unicode_chars, info.byteswap, source));
  if (keep_alive && !info.byteswap && info.dtype != DType::Bool)
    return Tensor::view(info.dtype, info.shape, data, *keep_alive);
  Tensor t = Tensor::from_bytes(info.dtype, info.shape, data);
  std::span<std::byte> out = t.mutable_bytes();
  const std::size_t n = static_cast<std::size_t>(t.element_count());
  if (info.byteswap) {
    const bool complex = info.dtype == DType::Complex64 || info.dtype == DType::Complex128;
    const std::size_t unit = complex ? info.item_bytes / 2 : info.item_bytes;
    byteswap_items(out.data(), complex ? n * 2 : n, unit);
  }
  // numpy treats any non-zero byte as True; ONNX bools are 0 or 1.
  if (info.dtype == DType::Bool)
    for (std::byte& b : out) b = b != std::byte{0} ? std::byte{1} : std::byte{0};
  return t;
}

}  // namespace

Tensor read_npy(std::span<const std::byte> file, std::string_view source) {
  return decode(parse_npy_header(file, source), file, nullptr, source);
}

Tensor read_npy(std::span<const std::byte> file, std::shared_ptr<const void> keep_alive, std::string_view source) {
  return decode(parse_npy_header(file, source), file, &keep_alive, source);
}

Tensor read_npy_file(const std::string& path) {
  std::shared_ptr<const MappedFile> mapped = MappedFile::open(path);
  return read_npy(mapped->bytes(), mapped, path);
}

Tensor read_npy_stream(int fd, std::string_view source) {
  auto buffer = std::make_shared<std::vector<std::byte>>(read_all(fd, std::string(source)));
  return read_npy(std::span<const std::byte>(*buffer), buffer, source);
}

}  // namespace onnxq
