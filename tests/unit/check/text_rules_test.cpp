// The check layer's text rules: chat templates that reach Python internals (and real templates
// that do not), terminal controls, UTF-8 validity.
#include <gtest/gtest.h>

#include "check/report.hpp"

namespace onnxq::check_detail {
namespace {

std::vector<std::string> internals(std::string_view t) {
  std::size_t first = 0;
  return template_internals(t, first);
}

TEST(CheckTextRules, OrdinaryTemplatesAreQuiet) {
  // Shapes of widely used templates: ChatML, Llama 3 (namespace, system messages), tool calls.
  for (std::string_view t : {
           "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
           "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}",
           "{%- set ns = namespace(system='') -%}{%- if messages[0]['role'] == 'system' -%}{%- set ns.system = "
           "messages[0]['content'] -%}{%- endif -%}{{ bos_token }}{{ ns.system | trim }}",
           "{# evaluate the tools; execute nothing; the OS is not involved #}{{ tools | tojson(indent=4) }}",
           "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}",
           "{% if loop.index0 == 0 %}{{ '<s>' }}{% endif %}{{ message.content.split('</think>')[-1] }}",
       })
    EXPECT_TRUE(internals(t).empty()) << t;
}

TEST(CheckTextRules, TemplatesReachingInternalsAreNamed) {
  EXPECT_EQ(internals("{{ cycler.__init__.__globals__.os.popen('id').read() }}"),
            (std::vector<std::string>{"cycler.__init__", "__globals__", "popen()", "os."}));
  EXPECT_EQ(internals("{{ joiner . __init__ }}"), std::vector<std::string>{"joiner.__init__"});
  EXPECT_EQ(internals("{{ namespace['__init__'] }}"), std::vector<std::string>{"namespace.__init__"});
  EXPECT_EQ(internals("{{ ''.__class__.__mro__[1].__subclasses__() }}"),
            (std::vector<std::string>{"__class__", "__mro__", "__subclasses__"}));
  EXPECT_EQ(internals("{{ x.__builtins__['__import__']('os') }}"),
            (std::vector<std::string>{"__builtins__", "__import__"}));
  EXPECT_EQ(internals("{{ lipsum.__globals__['os'].system('id') }}"),
            (std::vector<std::string>{"lipsum.__globals__", "system()"}));
  EXPECT_EQ(internals("{{ eval ('1') }}{{ exec('x') }}"), (std::vector<std::string>{"eval()", "exec()"}));
  EXPECT_EQ(internals("{{ ()|attr('\\x5f\\x5fclass\\x5f\\x5f') }}"),
            std::vector<std::string>{"escaped underscore \\x5f"});
  std::size_t first = 0;
  template_internals("0123{{ a.__class__ }}", first);
  EXPECT_EQ(first, 9u);
}

TEST(CheckTextRules, Controls) {
  EXPECT_FALSE(find_control("line one\nline\ttwo\r", true));
  EXPECT_TRUE(find_control("line one\n", false));
  auto esc = find_control("ok\x1b[2J", true);
  ASSERT_TRUE(esc);
  EXPECT_EQ(esc->at, 2u);
  EXPECT_TRUE(find_control("bell\x07", true));
  EXPECT_TRUE(find_control("del\x7f", true));
  EXPECT_TRUE(
      find_control("csi\xc2\x9b"
                   "31m",
                   true));  // U+009B
  EXPECT_TRUE(
      find_control("rlo\xe2\x80\xae"
                   "txt",
                   true));                                                        // U+202E
  EXPECT_FALSE(find_control("caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80", true));  // é, em dash, emoji
}

TEST(CheckTextRules, Utf8) {
  EXPECT_FALSE(find_invalid_utf8("caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80"));
  EXPECT_TRUE(find_invalid_utf8("caf\xe9"));           // Latin-1
  EXPECT_TRUE(find_invalid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_TRUE(find_invalid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_TRUE(find_invalid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_TRUE(find_invalid_utf8("ends in \xe2\x80"));  // truncated
}

}  // namespace
}  // namespace onnxq::check_detail
