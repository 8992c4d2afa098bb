# `cmake --install`: the tool with its man page and completions, and the library for
# other projects: headers, libonnxq.a, a CMake package (find_package(onnxq) -> onnxq::onnxq)
# and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/man/onnxq.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/man/completions/onnxq.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME onnxq)
install(FILES ${PROJECT_SOURCE_DIR}/man/completions/_onnxq DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/onnxq DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
set_target_properties(onnxq PROPERTIES EXPORT_NAME onnxq)
install(TARGETS onnxq EXPORT onnxqTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(ONNXQ_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onnxq)
install(EXPORT onnxqTargets NAMESPACE onnxq:: DESTINATION ${ONNXQ_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/onnxqConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/onnxqConfig.cmake INSTALL_DESTINATION ${ONNXQ_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/onnxqConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/onnxqConfig.cmake ${PROJECT_BINARY_DIR}/onnxqConfigVersion.cmake
        DESTINATION ${ONNXQ_CMAKE_DIR})

# pkg-config: the static library needs its private dependencies at link time too.
# Relocatable: the prefix is found from the .pc file's own place, so `--prefix` at install time works.
file(RELATIVE_PATH ONNXQ_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
set(ONNXQ_PC_PREFIX "\${pcfiledir}/${ONNXQ_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/onnxq.pc.in ${PROJECT_BINARY_DIR}/onnxq.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/onnxq.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
