#include "docs/generate.hpp"

#include <iostream>

#include "docs/cli_model.hpp"
#include "docs/completions.hpp"
#include "docs/man_page.hpp"
#include "onnxq/core/version.hpp"

namespace onnxq::cli::docs {

void add_generate_option(CLI::App& app) {
  app.add_option_function<std::string>(
         "--generate",
         [&app](const std::string& what) {
           const CommandDoc root = describe_app(app);
           if (what == "man")
             std::cout << render_man_page(root, kVersion);
           else if (what == "options")
             std::cout << render_option_table(root);
           else if (what == "bash")
             std::cout << render_bash_completion(root);
           else
             std::cout << render_zsh_completion(root);
           std::cout.flush();
           throw CLI::Success();  // done: skip the command requirement
         },
         "Print the man page, a shell completion or the option table (for tests)")
      ->check(CLI::IsMember({"man", "bash", "zsh", "options"}))
      ->group("");  // hidden
}

}  // namespace onnxq::cli::docs
