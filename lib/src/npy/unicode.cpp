#include "npy/unicode.hpp"

#include "onnxq/core/error.hpp"

namespace onnxq::npy_detail {
namespace {

bool valid_code_point(std::uint32_t c) { return c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF); }

void append_utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::vector<std::string> decode_utf32_items(std::span<const std::byte> data, std::size_t count, std::size_t chars,
                                            bool big_endian, std::string_view source) {
  std::vector<std::string> items;
  const std::size_t n = count;
  items.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* item = data.data() + i * 4 * chars;
    std::size_t len = chars;
    const auto unit = [&](std::size_t k) {
      std::uint32_t c = 0;
      for (int b = 0; b < 4; ++b) {
        const auto byte =
            std::to_integer<std::uint32_t>(item[4 * k + static_cast<std::size_t>(big_endian ? 3 - b : b)]);
        c |= byte << (8 * b);
      }
      return c;
    };
    while (len > 0 && unit(len - 1) == 0) --len;
    std::string s;
    for (std::size_t k = 0; k < len; ++k) {
      const std::uint32_t c = unit(k);
      if (!valid_code_point(c))
        invalid_input(std::string(source) + ": .npy unicode item " + std::to_string(i) +
                      " holds an invalid code point " + std::to_string(c));
      append_utf8(s, c);
    }
    items.push_back(std::move(s));
  }
  return items;
}

std::u32string utf8_to_utf32(std::string_view text) {
  std::u32string out;
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  while (i < text.size()) {
    const unsigned char b0 = byte(i);
    std::size_t len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > text.size()) invalid_input("string is not valid UTF-8 at byte " + std::to_string(i));
    std::uint32_t c = len == 1 ? b0 : len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
    for (std::size_t k = 1; k < len; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) invalid_input("string is not valid UTF-8 at byte " + std::to_string(i + k));
      c = (c << 6) | (byte(i + k) & 0x3Fu);
    }
    const std::uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min_for_len[len] || !valid_code_point(c))
      invalid_input("string is not valid UTF-8 at byte " + std::to_string(i) + " (overlong or invalid code point)");
    out += static_cast<char32_t>(c);
    i += len;
  }
  return out;
}

}  // namespace onnxq::npy_detail
