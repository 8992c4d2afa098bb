#include "tensor_output.hpp"

#include "common_options.hpp"
#include "onnxq/npy/writer.hpp"
#include "output.hpp"

namespace onnxq::cli {

void add_npy_output_option(CLI::App* cmd, std::string& path) {
  names_path(
      cmd->add_option("-o,--output", path, "Output .npy file; '-' for stdout (the default when stdout is a pipe)"));
}

void write_npy_output(const Tensor& tensor, const std::string& path) {
  std::string target = path;
  if (target.empty()) {
    if (stdout_is_terminal())
      throw CLI::RequiredError(
          "-o: give -o FILE, or -o - with stdout redirected; binary output is not written to a terminal");
    target = "-";
  }
  write_npy_file(target, tensor);
}

void write_npy_file(const std::string& path, const Tensor& tensor) {
  OutputSink sink = OutputSink::open(path);
  write_npy_tensor(tensor, [&](const void* data, std::size_t size) { sink.write(data, size); });
  sink.commit();
}

}  // namespace onnxq::cli
