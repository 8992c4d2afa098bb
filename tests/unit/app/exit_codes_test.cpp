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

// diff --exit-code, hash --check and check report what they find with this one status, apart
// from every error's.
TEST(ExitCodes, DifferencesHaveTheirOwnCode) {
  EXPECT_EQ(kExitDifferences, 4);
  for (ErrorKind kind : {ErrorKind::InvalidInput, ErrorKind::InvalidArgument, ErrorKind::Unsupported, ErrorKind::Io})
    EXPECT_NE(exit_code_for(kind), kExitDifferences);
  EXPECT_NE(kExitUsage, kExitDifferences);
}

}  // namespace
}  // namespace onnxq::cli
