# `cmake --install`: the tool with its man page and completions, and the library for
# other projects: headers, libonnxq.a, a CMake package (find_package(onnxq) -> onnxq::onnxq)
# and a pkg-config file. Two components, which cmake/package.cmake turns into two Debian
# packages: `tool` (onnxq) and `dev` (libonnxq-dev).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# onnxq finds onnxq-onnx at this place relative to its own (ONNXQ_HELPER_FROM_BINDIR in app/).
install(TARGETS onnxq_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tool)
install(TARGETS onnxq_onnx RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/onnxq COMPONENT tool)
install(FILES ${PROJECT_SOURCE_DIR}/man/onnxq.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tool)
install(FILES ${PROJECT_SOURCE_DIR}/man/completions/onnxq.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME onnxq COMPONENT tool)
install(FILES ${PROJECT_SOURCE_DIR}/man/completions/_onnxq DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions
        COMPONENT tool)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/onnxq DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
set_target_properties(onnxq PROPERTIES EXPORT_NAME onnxq)
install(TARGETS onnxq EXPORT onnxqTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(ONNXQ_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onnxq)
install(EXPORT onnxqTargets NAMESPACE onnxq:: DESTINATION ${ONNXQ_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/onnxqConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/onnxqConfig.cmake INSTALL_DESTINATION ${ONNXQ_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/onnxqConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/onnxqConfig.cmake ${PROJECT_BINARY_DIR}/onnxqConfigVersion.cmake
        DESTINATION ${ONNXQ_CMAKE_DIR} COMPONENT dev)

# pkg-config: the static library needs its private dependencies at link time too.
# Relocatable: the prefix is found from the .pc file's own place, so `--prefix` at install time works.
file(RELATIVE_PATH ONNXQ_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
set(ONNXQ_PC_PREFIX "\${pcfiledir}/${ONNXQ_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/onnxq.pc.in ${PROJECT_BINARY_DIR}/onnxq.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/onnxq.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The licence, as a Debian machine-readable copyright file (LICENSE's text under its SPDX name) in
# each package's documentation folder. A plain install gets the tool's; the library package's
# copy is installed only when its component is asked for (as CPack does).
file(READ ${PROJECT_SOURCE_DIR}/LICENSE ONNXQ_LICENSE_TEXT)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ ${ONNXQ_LICENSE_TEXT})
set(ONNXQ_COPYRIGHT_HOLDERS ${CMAKE_MATCH_1})
string(REGEX REPLACE "^.*Copyright \\(c\\) [^\n]*\n\n" "" ONNXQ_LICENSE_TERMS "${ONNXQ_LICENSE_TEXT}")
string(STRIP "${ONNXQ_LICENSE_TERMS}" ONNXQ_LICENSE_TERMS)
string(REGEX REPLACE "\n\n" "\n.\n" ONNXQ_LICENSE_TERMS "${ONNXQ_LICENSE_TERMS}")
string(REGEX REPLACE "\n" "\n " ONNXQ_LICENSE_TERMS " ${ONNXQ_LICENSE_TERMS}")
file(WRITE ${PROJECT_BINARY_DIR}/copyright
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
  "Upstream-Name: ${PROJECT_NAME}\n\n"
  "Files: *\nCopyright: ${ONNXQ_COPYRIGHT_HOLDERS}\nLicense: ${ONNXQ_LICENSE}\n${ONNXQ_LICENSE_TERMS}\n")
install(FILES ${PROJECT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/onnxq COMPONENT tool)
install(FILES ${PROJECT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/libonnxq-dev
        COMPONENT dev EXCLUDE_FROM_ALL)
