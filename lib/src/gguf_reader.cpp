#include "onnxq/gguf.hpp"
