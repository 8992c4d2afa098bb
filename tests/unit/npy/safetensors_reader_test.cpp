// Reading safetensors: a file and an index of shards, names and the header's order kept, the shape
// reversed into GGUF's ne; and a catalogue of malformed headers and indexes, each refused with one
// line naming the file and the tensor or field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "onnxq/core/error.hpp"
#include "onnxq/npy/safetensors_reader.hpp"

namespace onnxq {
namespace {

class SafetensorsReader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("onnxq_str_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A file of `header` (padded to 8 bytes) and `data_bytes` bytes counting up.
  std::string write(const std::string& name, std::string header, std::size_t data_bytes, bool pad = true) {
    while (pad && header.size() % 8) header += ' ';
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(header.size() >> (8 * i));
    bytes += header;
    for (std::size_t i = 0; i < data_bytes; ++i) bytes += static_cast<char>(i);
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  void refused(const std::string& file, const std::string& phrase, ErrorKind kind = ErrorKind::InvalidInput) {
    SCOPED_TRACE(phrase);
    try {
      SafetensorsModel::open(file);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind);
      const std::string message = e.what();
      EXPECT_NE(message.find(phrase), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  std::filesystem::path dir_;
};

TEST_F(SafetensorsReader, ReadsTheDtypesGgufHasATypeFor) {
  const std::string f = write("ints.safetensors",
                              R"({"p":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
                              R"("d":{"dtype":"F64","shape":[1],"data_offsets":[16,24]},)"
                              R"("b":{"dtype":"I8","shape":[3],"data_offsets":[24,27]},)"
                              R"("s":{"dtype":"I16","shape":[1],"data_offsets":[28,30]},)"
                              R"("i":{"dtype":"I32","shape":[1],"data_offsets":[32,36]}})",
                              36);
  const SafetensorsModel m = SafetensorsModel::open(f);
  ASSERT_EQ(m.tensors().size(), 5u);
  EXPECT_EQ(m.tensors()[0].dtype, DType::Int64);
  EXPECT_EQ(m.tensors()[1].dtype, DType::Double);
  EXPECT_EQ(m.tensors()[2].dtype, DType::Int8);
  EXPECT_EQ(m.tensors()[3].dtype, DType::Int16);
  EXPECT_EQ(m.tensors()[4].dtype, DType::Int32);
  EXPECT_EQ(m.tensors()[2].byte_size, 3u);
}

TEST_F(SafetensorsReader, KeepsTheHeadersOrderAndReversesShapes) {
  const std::string f = write("m.safetensors",
                              R"({"z":{"dtype":"F16","shape":[2,3],"data_offsets":[8,20]},)"
                              R"("__metadata__":{"format":"pt"},)"
                              R"("a":{"dtype":"BF16","shape":[],"data_offsets":[20,22]},)"
                              R"("m":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                              22);
  const SafetensorsModel m = SafetensorsModel::open(f);
  ASSERT_EQ(m.tensors().size(), 3u);
  EXPECT_EQ(m.tensors()[0].name, "z");
  EXPECT_EQ(m.tensors()[1].name, "a");
  EXPECT_EQ(m.tensors()[2].name, "m");
  EXPECT_EQ(m.tensors()[0].dtype, DType::Float16);
  EXPECT_EQ(m.tensors()[0].gguf_ne(), (std::vector<std::uint64_t>{3, 2}));
  EXPECT_EQ(m.tensors()[1].gguf_ne(), (std::vector<std::uint64_t>{1}));
  ASSERT_EQ(m.metadata().size(), 1u);
  EXPECT_EQ(m.metadata()[0].second, "pt");
  std::vector<std::byte> b(4);
  m.read(m.tensors()[0], 2, b);
  EXPECT_EQ(b[0], std::byte{10});  // data byte 8 + 2
  EXPECT_THROW(m.read(m.tensors()[0], 10, b), Error);
}

TEST_F(SafetensorsReader, IndexOfShards) {
  write("a.safetensors", R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4);
  write("b.safetensors", R"({"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4);
  std::ofstream(path("model.safetensors.index.json"))
      << R"({"metadata":{"total_size":8},"weight_map":{"y":"b.safetensors","x":"a.safetensors"}})";
  const SafetensorsModel m = SafetensorsModel::open(path("model.safetensors.index.json"));
  ASSERT_EQ(m.tensors().size(), 2u);
  EXPECT_EQ(m.tensors()[0].name, "y");  // the shard the index names first comes first
  EXPECT_EQ(m.files().size(), 2u);
}

TEST_F(SafetensorsReader, MalformedFilesAreRefused) {
  std::ofstream(path("short.safetensors")) << "abc";
  refused(path("short.safetensors"),
          "short.safetensors: 3 bytes; a safetensors file starts with an 8-byte header length");
  {
    std::string bytes(8, '\0');
    bytes[0] = 100;
    std::ofstream(path("long.safetensors"), std::ios::binary) << bytes << "{}";
    refused(path("long.safetensors"), "offset 0: the header length 100 is past the file's 10 bytes");
  }
  refused(write("json.safetensors", "{\"a\":", 0), "json.safetensors: the header is not valid JSON");
  refused(write("array.safetensors", "[1]", 0), "the header must be a JSON object");
  refused(write("entry.safetensors", R"({"a":3})", 0), "tensor 'a': its entry must be an object");
  refused(write("dtype.safetensors", R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1),
          "tensor 'a': dtype U8 has no GGUF type", ErrorKind::Unsupported);
  refused(write("f8.safetensors", R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})", 2),
          "tensor 'a': dtype F8_E4M3 has no GGUF type", ErrorKind::Unsupported);
  refused(write("nodtype.safetensors", R"({"a":{"shape":[1],"data_offsets":[0,4]}})", 4), "dtype must be a string");
  refused(write("shape.safetensors", R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4),
          "tensor 'a': each shape entry must be a non-negative integer");
  refused(write("offsets.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4),
          "data_offsets must be an array [begin, end]");
  refused(write("outside.safetensors", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4),
          "tensor 'a': data_offsets [0, 8] are not inside the 4 bytes of data");
  refused(write("size.safetensors", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4),
          "tensor 'a': data_offsets span 4 bytes, but its shape of F32 needs 8");
  refused(
      write("overflow.safetensors", R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4),
      "the shape's element count overflows 64 bits");
  refused(
      write(
          "overlap.safetensors",
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
          8),
      "tensor 'b' overlaps tensor 'a'");
  refused(write("meta.safetensors", R"({"__metadata__":{"k":1}})", 0), "__metadata__.k must be a string");
}

TEST_F(SafetensorsReader, MalformedIndexesAreRefused) {
  write("a.safetensors", R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4);
  auto index = [&](const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
    return path(name);
  };
  refused(index("1.json", R"({"metadata":{}})"), "an index needs a \"weight_map\" object");
  refused(index("2.json", R"({"weight_map":{}})"), "the weight_map names no tensor");
  refused(index("3.json", R"({"weight_map":{"x":"../a.safetensors"}})"), "is not a file name beside the index");
  refused(index("4.json", R"({"weight_map":{"x":"a.safetensors","q":"a.safetensors"}})"),
          "weight_map lists tensor 'q', which a.safetensors lacks");
  write("b.safetensors", R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4);
  refused(index("5.json", R"({"weight_map":{"x":"a.safetensors","y":"b.safetensors"}})"),
          "tensor 'x' is in more than one shard");
  refused(index("6.json", R"({"weight_map":{"x":"missing.safetensors"}})"), "missing.safetensors", ErrorKind::Io);
}

}  // namespace
}  // namespace onnxq
