# Debian packages (scripts/package runs cpack): the two install components become
#   onnxq_VERSION_ARCH.deb         the tool, its ONNX helper, man page, completions
#   libonnxq-dev_VERSION_ARCH.deb  headers, libonnxq.a, CMake package, pkg-config file
# Split because the static library needs the -dev packages of its private dependencies
# (protobuf, ONNX) to link, which someone who only runs the tool should not have to install.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME onnxq)
set(CPACK_PACKAGE_VENDOR "the onnxq authors")
set(CPACK_PACKAGE_CONTACT "the onnxq authors")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tool dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # NAME_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # Depends from dpkg-shlibdeps on the installed programs

set(CPACK_DEBIAN_TOOL_PACKAGE_NAME onnxq)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION utils)
# libcurl is loaded only when a remote file is opened (lib/src/io/curl_library.cpp), so
# dpkg-shlibdeps cannot see it; local files work without it.
set(CPACK_DEBIAN_TOOL_PACKAGE_RECOMMENDS libcurl4)
# The first line of a description is the package's summary (CPack would put
# CPACK_PACKAGE_DESCRIPTION_SUMMARY before it if that were set).
string(CONCAT CPACK_DEBIAN_TOOL_DESCRIPTION
    "inspect GGUF model files and decode their packed tensors\n"
    "onnxq reads GGUF model files (local, split or remote), lists their metadata and tensors,\n"
    "checks and hashes them, and decodes the 27 packed GGML block formats exactly as ggml\n"
    "does into .npy, safetensors or raw arrays. It also runs the ONNX DequantizePacked,\n"
    "Unpack, OneHot and Unsqueeze operators in shell pipelines.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libonnxq-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# What a program linking the static library needs (see onnxqConfig.cmake.in and onnxq.pc.in).
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libprotobuf-dev, libonnx-dev, libxxhash-dev, libssl-dev, pkgconf | pkg-config")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
    "GGUF reader and exact GGML block-format decoders (C++ library)\n"
    "The onnxq engine as a static C++20 library: GGUF reading, the DequantizePacked, Unpack,\n"
    "OneHot and Unsqueeze operators, .npy and ONNX TensorProto input and output. With its\n"
    "headers, a CMake package (find_package(onnxq)) and a pkg-config file.")

include(CPack)
