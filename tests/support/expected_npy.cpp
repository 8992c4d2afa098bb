#include "expected_npy.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace onnxq::testing {

std::size_t ExpectedArray::count() const {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

std::vector<std::uint32_t> ExpectedArray::f32_bits() const {
  if (descr != "<f4") throw std::runtime_error("expected <f4, got " + descr);
  std::vector<std::uint32_t> bits(data.size() / 4);
  std::memcpy(bits.data(), data.data(), bits.size() * 4);
  return bits;
}

std::vector<std::byte> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

std::string testdata_path(const std::string& relative) { return std::string(ONNXQ_TESTDATA_DIR) + "/" + relative; }

ExpectedArray load_expected_npy(const std::string& path) {
  const std::vector<std::byte> file = read_file_bytes(path);
  auto at = [&](std::size_t i) { return static_cast<unsigned char>(file.at(i)); };
  if (file.size() < 10 || std::memcmp(file.data(), "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not .npy");
  const int major = at(6);
  std::size_t header_len, start;
  if (major == 1) {
    header_len = at(8) | (at(9) << 8);
    start = 10;
  } else {
    header_len =
        at(8) | (at(9) << 8) | (static_cast<std::size_t>(at(10)) << 16) | (static_cast<std::size_t>(at(11)) << 24);
    start = 12;
  }
  const std::string header(reinterpret_cast<const char*>(file.data()) + start, header_len);
  ExpectedArray a;
  const auto d = header.find("'descr': '");
  if (d == std::string::npos) throw std::runtime_error(path + ": no descr");
  a.descr = header.substr(d + 10, header.find('\'', d + 10) - (d + 10));
  if (header.find("'fortran_order': False") == std::string::npos) throw std::runtime_error(path + ": not C order");
  const auto s = header.find("'shape': (");
  const auto e = header.find(')', s);
  std::string dims = header.substr(s + 10, e - (s + 10));
  std::size_t pos = 0;
  while (pos < dims.size()) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ',')) ++pos;
    if (pos >= dims.size()) break;
    std::size_t used = 0;
    a.shape.push_back(std::stoll(dims.substr(pos), &used));
    pos += used;
  }
  a.data.assign(file.begin() + static_cast<std::ptrdiff_t>(start + header_len), file.end());
  return a;
}

}  // namespace onnxq::testing
