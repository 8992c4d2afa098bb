// File names for tensors and graph outputs written into a directory: injective percent-encoding,
// no name that leaves the directory or hides, the length limit, distinct stems, and the case check.
#include "onnxq/io/tensor_file_names.hpp"

#include <gtest/gtest.h>

#include <string>

#include "onnxq/core/error.hpp"
#include "scratch_dir.hpp"

namespace onnxq {
namespace {

TEST(TensorFileName, LettersDigitsAndDotsStandTheRestIsPercentEncoded) {
  EXPECT_EQ(tensor_file_name("blk.0.attn_q.weight", ".npy"), "blk.0.attn_q.weight.npy");
  EXPECT_EQ(tensor_file_name("a/b", ".npy"), "a%2Fb.npy");
  EXPECT_EQ(tensor_file_name(".hidden", ".bin"), "%2Ehidden.bin");
  EXPECT_EQ(tensor_file_name("", ".npy"), "%.npy");
  EXPECT_EQ(tensor_file_name("100%", ".npy"), "100%25.npy");
  EXPECT_EQ(tensor_file_name("a b\n", ".npy"), "a%20b%0A.npy");
  EXPECT_EQ(tensor_file_name("\xc3\xa9-x_y", ".npy"), "%C3%A9-x_y.npy");
  EXPECT_EQ(tensor_file_name("..", ".npy"), "%2E..npy");
}

TEST(TensorFileName, ANameTooLongForAFileIsRefused) {
  EXPECT_EQ(tensor_file_name(std::string(251, 'a'), ".npy").size(), 255u);
  try {
    tensor_file_name(std::string(84, '/'), ".npy");
    FAIL() << "a 256-byte file name was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("256 bytes, more than a file name may have (255)"), std::string::npos)
        << e.what();
  }
}

TEST(OutputFileStems, SafeNonEmptyAndDistinct) {
  EXPECT_EQ(output_file_stems({"y", "a/b", "", ".z", "y", "a_b"}),
            (std::vector<std::string>{"y", "a_b", "output_2", "_z", "y_4", "a_b_5"}));
}

TEST(CheckFileNamesDistinct, NamesThatDifferOnlyInCaseAreOneFileOnlyWhereCaseIsIgnored) {
  const testing::ScratchDir dir("tensor_file_names");
  // A Linux temporary directory tells a.npy from A.npy: no clash, and the probe leaves nothing.
  EXPECT_NO_THROW(check_file_names_distinct(dir.file(""), {"a.npy", "A.npy"}, {"a", "A"}));
  EXPECT_TRUE(dir.names().empty());
  EXPECT_NO_THROW(check_file_names_distinct(dir.file("missing"), {"a.npy", "b.npy"}, {"a", "b"}));
  // With a clash, the directory must be probed: one that does not exist is an I/O error.
  EXPECT_THROW(check_file_names_distinct(dir.file("missing"), {"a.npy", "A.npy"}, {"a", "A"}), Error);
}

}  // namespace
}  // namespace onnxq
