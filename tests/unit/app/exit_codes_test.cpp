// The CLI's mapping from library error kinds to exit codes (app/exit_codes.hpp).
#include <gtest/gtest.h>

#include "exit_codes.hpp"

namespace onnxq::cli {
namespace {

TEST(ExitCodes, EveryErrorKindHasItsDocumentedCode) {
  EXPECT_EQ(exit_code_for(ErrorKind::InvalidInput), 2);
  EXPECT_EQ(exit_code_for(ErrorKind::InvalidArgument), 2);
  EXPECT_EQ(exit_code_for(ErrorKind::Unsupported), 2);
  EXPECT_EQ(exit_code_for(ErrorKind::Io), 3);
}

}  // namespace
}  // namespace onnxq::cli
