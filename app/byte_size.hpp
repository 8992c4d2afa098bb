// Sizes on the command line ("5GB", "2GiB", "500M", "123"): the library's parse_byte_size.
#pragma once

#include "onnxq/core/value_text.hpp"
