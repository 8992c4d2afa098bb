// hf:// paths resolve as huggingface_hub resolves them; other paths are not remote.
#include <gtest/gtest.h>

#include <cstdlib>

#include "onnxq/core/error.hpp"
#include "onnxq/io/remote_file.hpp"

namespace onnxq {
namespace {

// Sets HF_ENDPOINT for one test and restores it afterwards.
class Endpoint {
 public:
  explicit Endpoint(const char* value) {
    if (const char* old = std::getenv("HF_ENDPOINT")) old_ = old, had_ = true;
    if (value)
      setenv("HF_ENDPOINT", value, 1);
    else
      unsetenv("HF_ENDPOINT");
  }
  ~Endpoint() {
    if (had_)
      setenv("HF_ENDPOINT", old_.c_str(), 1);
    else
      unsetenv("HF_ENDPOINT");
  }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(RemoteUrl, WhichPathsAreRemote) {
  EXPECT_TRUE(is_remote_path("http://h/x.gguf"));
  EXPECT_TRUE(is_remote_path("https://h/x.gguf"));
  EXPECT_TRUE(is_remote_path("hf://o/r/x.gguf"));
  EXPECT_FALSE(is_remote_path("x.gguf"));
  EXPECT_FALSE(is_remote_path("/data/http://x.gguf"));
  EXPECT_FALSE(is_remote_path("ftp://h/x.gguf"));
}

TEST(RemoteUrl, HfPathsUseTheHubByDefault) {
  Endpoint endpoint(nullptr);
  EXPECT_EQ(resolve_remote_url("hf://org/repo/model.gguf"), "https://huggingface.co/org/repo/resolve/main/model.gguf");
  EXPECT_EQ(resolve_remote_url("hf://org/repo@v1.0/sub/dir/m-00001-of-00002.gguf"),
            "https://huggingface.co/org/repo/resolve/v1.0/sub/dir/m-00001-of-00002.gguf");
  EXPECT_EQ(resolve_remote_url("https://h/x.gguf"), "https://h/x.gguf");
}

TEST(RemoteUrl, HfEndpointMovesThem) {
  Endpoint endpoint("http://127.0.0.1:8080/");
  EXPECT_EQ(resolve_remote_url("hf://o/r@abc123/x.gguf"), "http://127.0.0.1:8080/o/r/resolve/abc123/x.gguf");
}

TEST(RemoteUrl, IncompleteHfPathsAreRejected) {
  for (const char* bad : {"hf://", "hf://org", "hf://org/repo", "hf://org/repo/", "hf:///repo/x", "hf://org//x",
                          "hf://org/@v/x", "hf://org/repo@/x"})
    EXPECT_THROW(resolve_remote_url(bad), Error) << bad;
}

}  // namespace
}  // namespace onnxq
