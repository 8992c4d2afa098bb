// The edit plan's changes as `onnxq edit --dry-run` lists them, one line each, in the order made.
#include "onnxq/gguf/metadata_edit.hpp"

#include <gtest/gtest.h>

namespace onnxq {
namespace {

TEST(MetadataEdit, ChangesAsLines) {
  GgufMetadata md;
  md.set("general.name", GgufOwnedValue::string("old"));
  md.set("a.u8", GgufOwnedValue::u8(200));
  md.set("a.i16", GgufOwnedValue::i16(-30000));
  MetadataEdits edits;
  edits.remove = {"a.i16"};
  edits.rename = {"a.u8=b.u8"};
  edits.set = {"general.name=new", "c.flag=bool:true"};
  std::vector<std::string> lines;
  for (const MetadataChange& c : apply_metadata_edits(md, edits)) lines.push_back(metadata_change_line(c));
  EXPECT_EQ(lines, (std::vector<std::string>{"remove  a.i16 (was i16 -30000)", "rename  a.u8 -> b.u8",
                                             "set     general.name: str \"old\" -> str \"new\"",
                                             "add     c.flag: bool true"}));
}

}  // namespace
}  // namespace onnxq
