// numpy '<U<n>' items are n UTF-32 code units, shorter strings padded with NULs; onnxq strings are UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq::npy_detail {

// Decodes `count` items of 4 * chars bytes; trailing NULs are padding (numpy drops them too).
std::vector<std::string> decode_utf32_items(std::span<const std::byte> data, std::size_t count, std::size_t chars,
                                            bool big_endian, std::string_view source);

// UTF-8 to code points; throws InvalidInput for malformed UTF-8 (overlong, surrogates, past U+10FFFF).
std::u32string utf8_to_utf32(std::string_view text);

}  // namespace onnxq::npy_detail
